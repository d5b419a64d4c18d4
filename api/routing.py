"""How a route is declared: flask-smorest for the body, the answers and the document, and
one `declare(...)` of ours for what the library has no word for.

A route reads, top to bottom:

    @bp.post("/api/select")
    @bp.declare(changes_state=True, refuses={404: ["unknown_product"], 409: [...]})
    @bp.arguments(SelectBody)            # the JSON body (flask-smorest + webargs)
    @bp.response(200, SelectAnswer)      # the answer, dumped through its schema
    def select(body): ...

`declare` is the outermost decorator (right under the route) so its checks run first:
a signed-in account when `requires_account` (or `sign_in_to_research`), then the raw body
(empty, or one JSON object with a JSON content type). `changes_state` is required: the
cross-site guard (api/http.py) refuses state-changing requests from other sites, and a view
that declares nothing at all is treated as state-changing (fail closed). `refuses` maps
HTTP statuses to reason codes: a `Refused` raised by a service gets the status the route
declared for its reason, and the OpenAPI document lists them (api/openapi.py).
`max_body_bytes` lets one route read bodies larger than MAX_BODY_BYTES (POST /api/product
takes images); api/http.py applies the larger of the two to that route only.

Validation answers with our own refusals, never the library's 422: a failing field
answers 400 with its reason code (the field's `metadata={"reason": ...}`, else
`invalid_request`), and JSON types are checked as published at every nesting level
(marshmallow would otherwise turn "5" into 5 and 0 into False).

No body is silently dropped: a client's JSON body naming a field the route does not take
(at the top or in a nested object its schema declares) answers 400 `unknown_field` naming
each, before anything else is read; so does a body with any field sent to a route that takes
none (`no_body`, or no `arguments`). A provider's callback (`callback=True`) keeps ignoring
the fields it does not read (a provider's payload carries many), and so do HTML forms and
query strings (cache-busters and tracking parameters are common there).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import wraps

import flask_smorest
from flask import current_app, g, request
from marshmallow import EXCLUDE, INCLUDE, Schema, ValidationError, fields
from webargs.flaskparser import FlaskParser

from api import json_body
from api.errors import ApiError, SignInToResearch
from api.session import current_session

BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True)
class Declaration:
    """What a route declares beyond its schemas (see the module docstring)."""

    changes_state: bool
    refuses: dict = field(default_factory=dict)  # status -> tuple of reason codes
    callback: bool = False  # called server to server by a provider: no cookie, no cross-site check
    # Reads the ff_session cookie and issues one to a request without it; False: neither
    # (api/session.py: such a route never calls current_session(); it may look up a cookie
    # sent with sent_session(), which never opens a session). Every spec endpoint keeps the
    # default (spec 2.1: any request without the cookie is given one; tests/test_cookie_rule.py
    # reads the spec's table); False is for shareable pages, providers' paths and POST /api/track.
    session: bool = True
    requires_account: bool = False  # 401 no_account unless the session is signed in
    # The research routes (spec 5.13): an account is required, and a session without one is
    # answered 401 with the sign-in-to-research sentence and no reason code (api/errors.py).
    sign_in_to_research: bool = False
    headers: dict = field(default_factory=dict)  # required request headers (name -> description)
    no_body: bool = False  # a body-taking method that takes none (any body sent must still be a JSON object)
    # A route whose body may be larger than MAX_BODY_BYTES (image uploads): its own ceiling,
    # in bytes. Every other route keeps MAX_BODY_BYTES (api/http.py applies either).
    max_body_bytes: int | None = None
    # The body is an HTML form (application/x-www-form-urlencoded) posted by one of the
    # service's own pages (a store's buy box, the sandbox checkout page), not JSON. The
    # cross-site guard still applies.
    form: bool = False
    # Called by a published store's own pages (the funnel events, the buy box), which may be
    # served on the store's connected domain: the cross-site guard accepts that domain's
    # origin for this route when the request came to it (api/hosts.py). Founder routes never.
    storefront: bool = False

    def status_for(self, reason: str) -> int | None:
        for status, reasons in self.refuses.items():
            if reason in reasons:
                return status
        return None


# What the guards assume of a view that declared nothing: it changes state.
UNDECLARED = Declaration(changes_state=True)


def declaration_of(view) -> Declaration | None:
    return getattr(view, "declaration", None)


# --- Reading the body --------------------------------------------------------------------

def read_json_object() -> dict:
    """The request body as one JSON object; an empty body reads as {}. Anything else sent
    (another content type, malformed JSON, an array or scalar, and whatever api/json_body.py
    refuses: nesting too deep, NaN or infinity, an integer past 64 bits, a NUL or a lone
    surrogate anywhere) is 400 `invalid_json`, before any handler runs."""
    if "json_body" in g:
        return g.json_body
    raw = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
    if not raw:
        data = {}  # no body at all; a body of only whitespace is not JSON and is refused below
    else:
        if not request.is_json:
            raise ApiError(400, "invalid_json", "Send the body as JSON with Content-Type: application/json.")
        try:
            data = json_body.parse(raw)
        except json_body.UnreadableJson as exc:
            raise ApiError(400, "invalid_json", exc.explanation) from None
        if not isinstance(data, dict):
            raise ApiError(400, "invalid_json", "The body must be a JSON object.")
    g.json_body = data
    return data


# --- JSON types as published, at every level -----------------------------------------------

# The JSON types each marshmallow field accepts (a bool is not a number here).
_JSON_TYPES = (
    (fields.Boolean, (bool,), "boolean"),
    (fields.Integer, (int,), "integer"),
    (fields.Number, (int, float), "number"),
    (fields.String, (str,), "string"),
    (fields.List, (list,), "array"),
    (fields.Dict, (dict,), "object"),
    (fields.Nested, (dict,), "object"),
)


def type_problems(schema: Schema, data) -> dict:
    """Messages for values whose JSON type is not the declared one, nested as marshmallow
    nests its own (field -> messages, list index -> messages)."""
    problems = {}
    if not isinstance(data, dict):
        return problems
    for name, declared in schema.fields.items():
        if declared.dump_only:
            continue
        key = declared.data_key or name
        if key in data:
            found = _field_problems(declared, data[key])
            if found:
                problems[key] = found
    return problems


def _field_problems(declared, value):
    if value is None:
        return None  # allow_none is marshmallow's to judge
    for field_type, json_types, word in _JSON_TYPES:
        if isinstance(declared, field_type):
            if not isinstance(value, json_types) or (isinstance(value, bool) and bool not in json_types):
                return [f"Not a valid {word}."]
            break
    if isinstance(declared, fields.Nested):
        nested = declared.schema
        if declared.many or nested.many:
            if not isinstance(value, list):
                return ["Not a valid array."]
            found = {i: p for i, item in enumerate(value) if (p := type_problems(nested, item))}
            return found or None
        return type_problems(nested, value) or None
    if isinstance(declared, fields.List):
        found = {i: p for i, item in enumerate(value) if (p := _field_problems(declared.inner, item))}
        return found or None
    if isinstance(declared, fields.Dict) and declared.value_field is not None:
        found = {k: p for k, item in value.items() if (p := _field_problems(declared.value_field, item))}
        return found or None
    return None


# --- Unknown fields ------------------------------------------------------------------------

def _taken_keys(schema: Schema) -> dict:
    """The keys a body of this schema may carry, each with its field."""
    return {(declared.data_key or name): declared for name, declared in schema.fields.items() if not declared.dump_only}


def unknown_fields(schema: Schema, data, where: str = "") -> list[tuple[str, str, list[str]]]:
    """Each key of `data` the schema does not take, at every level a nested schema declares,
    in the order sent: its path (such as `campaigns[0].nmae`), the key, and the keys taken
    beside it. A schema that keeps unknown keys on purpose (Meta.unknown = INCLUDE) takes any;
    a free object (fields.Dict, fields.Raw) is not looked into."""
    if not isinstance(data, dict) or schema.unknown == INCLUDE:
        return []
    taken = _taken_keys(schema)
    found = []
    for key, value in data.items():
        path = f"{where}.{key}" if where else key
        declared = taken.get(key)
        if declared is None:
            found.append((path, key, list(taken)))
            continue
        inner = declared.inner if isinstance(declared, fields.List) else declared
        if not isinstance(inner, fields.Nested) or not isinstance(inner.schema, Schema):
            continue
        if isinstance(declared, fields.List) or declared.many or inner.schema.many:
            for index, item in enumerate(value if isinstance(value, list) else []):
                found.extend(unknown_fields(inner.schema, item, f"{path}[{index}]"))
        else:
            found.extend(unknown_fields(inner.schema, value, path))
    return found


# How many unknown fields a refusal names in words, and lists in `fields` (a body of thousands
# of keys is refused with an answer of bounded size; the count is always said).
NAMED_IN_WORDS = 10
LISTED = 50


def _said(path: str) -> str:
    return repr(path if len(path) <= 80 else path[:79] + "\u2026")


def refuse_unknown_fields(found: list[tuple[str, str, list[str]]]) -> None:
    """400 `unknown_field`: the explanation names each field not taken (with the one it was
    probably meant to be); `field` is the first one's path, `fields` all of them (the first
    LISTED)."""
    named = []
    for path, key, taken in found[:NAMED_IN_WORDS]:
        close = difflib.get_close_matches(key, taken, n=1, cutoff=0.6)
        named.append(f"{_said(path)} (did you mean {close[0]!r}?)" if close else _said(path))
    paths = [path for path, _key, _taken in found]
    if len(found) == 1:
        path, key, taken = found[0]
        there = " there" if path != key else ""
        takes = f" It takes {', '.join(repr(t) for t in taken)}{there}." if taken else f" It takes no fields{there}."
        text = f"This request has a field it does not take: {named[0]}. Nothing was changed.{takes}"
    else:
        more = f" and {len(found) - len(named)} more" if len(found) > len(named) else ""
        text = (f"This request has {len(found)} fields it does not take: {', '.join(named)}{more}. Nothing was "
                "changed; remove them or correct their names.")
    raise ApiError(400, "unknown_field", text, fields={"field": paths[0], "fields": paths[:LISTED]})


def _refuses_unknown_fields() -> bool:
    """Whether the called route refuses unknown body fields: every client's JSON body does; a
    provider's callback does not (see the module docstring)."""
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    declaration = declaration_of(view)
    return not (declaration and declaration.callback)


def reason_for(schema: Schema, messages: dict) -> str:
    """The reason code of the first failing field, in declaration order: its own
    `metadata["reason"]`, else that of the first failing field of a nested schema, else
    `invalid_request`."""
    for name, declared in schema.fields.items():
        key = declared.data_key or name
        if key not in messages:
            continue
        if "reason" in declared.metadata:
            return declared.metadata["reason"]
        nested = declared.metadata.get("schema") or (declared.schema if isinstance(declared, fields.Nested) else None)
        if nested is not None and isinstance(messages[key], dict):
            nested = nested() if isinstance(nested, type) else nested
            return reason_for(nested, messages[key])
        return "invalid_request"
    return "invalid_request"


class StrictJsonParser(FlaskParser):
    """webargs' Flask parser, answering bad input with our 400 refusals."""

    DEFAULT_VALIDATION_STATUS = 400
    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "json": EXCLUDE, "query": EXCLUDE}

    def load_json(self, req, schema):
        return read_json_object()

    def load_querystring(self, req, schema):
        # Query strings are text: no JSON type check; the first value of a repeated name.
        values = req.args.to_dict()
        if not getattr(schema, "ACCEPTS_NUL", False) and any("\x00" in value for value in values.values()):
            # PostgreSQL cannot compare text with a NUL in it, and no parameter needs one.
            raise ApiError(400, "invalid_request", "A query parameter contains a NUL character.")
        return values

    def load_form(self, req, schema):
        # A form (a store's buy box, the sandbox checkout page) is text too, and the same holds.
        if any("\x00" in value for value in req.form.values()):
            raise ApiError(400, "invalid_request", "A form field contains a NUL character.")
        return super().load_form(req, schema)

    def pre_load(self, location_data, *, schema, req, location):
        if location == "json":
            if _refuses_unknown_fields():
                found = unknown_fields(schema, location_data)
                if found:
                    refuse_unknown_fields(found)
            problems = type_problems(schema, location_data)
            if problems:
                raise ValidationError(problems)
        return location_data

    def handle_error(self, error, req, schema, *, error_status_code, error_headers):
        messages = error.normalized_messages()
        # webargs namespaces the messages under their location ({"json": {...}}).
        if len(messages) == 1 and next(iter(messages)) in ("json", "query", "querystring", "form"):
            messages = next(iter(messages.values()))
        detail = "; ".join(f"{name}: {' '.join(_flatten(msg))}" for name, msg in messages.items())
        raise ApiError(400, reason_for(schema, messages), fields={"fields": messages}, detail=detail)


def _flatten(message):
    if isinstance(message, dict):
        return [f"{k}: {' '.join(_flatten(v))}" for k, v in message.items()]
    if isinstance(message, list):
        return [str(m) for m in message]
    return [str(message)]


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's blueprint with our parser and `declare`."""

    ARGUMENTS_PARSER = StrictJsonParser()

    def arguments(self, schema, *, location="json", **kwargs):
        """The body (location json, the default) or the query string (location "query").
        marshmallow itself ignores unknown fields: a client's JSON body has been refused for
        any before it loads (StrictJsonParser.pre_load), and what is left to ignore is a
        callback's, a form's or a query string's (the module docstring says why)."""
        if isinstance(schema, type):
            schema = schema(unknown=EXCLUDE)
        return super().arguments(schema, location=location, **kwargs)

    @staticmethod
    def declare(*, changes_state: bool, refuses: dict | None = None, callback: bool = False, session: bool = True,
                requires_account: bool = False, headers: dict | None = None, no_body: bool = False,
                sign_in_to_research: bool = False, max_body_bytes: int | None = None, form: bool = False,
                storefront: bool = False):
        """Declares what the route does beyond its schemas; see the module docstring."""
        declaration = Declaration(
            changes_state=changes_state,
            refuses={status: tuple(codes) for status, codes in (refuses or {}).items()},
            callback=callback, session=session, requires_account=requires_account or sign_in_to_research,
            headers=headers or {}, no_body=no_body, sign_in_to_research=sign_in_to_research,
            max_body_bytes=max_body_bytes, form=form, storefront=storefront,
        )

        def decorate(view):
            @wraps(view)
            def run(*args, **kwargs):
                if declaration.requires_account and current_session().account_id is None:
                    if declaration.sign_in_to_research:
                        raise SignInToResearch()
                    raise ApiError(401, "no_account")
                if declaration.form:
                    if request.mimetype != "application/x-www-form-urlencoded":
                        raise ApiError(400, "invalid_request", "Send the form as application/x-www-form-urlencoded.")
                else:
                    data = read_json_object()  # every body sent must be one JSON object, declared or not
                    if data and not declaration.callback and request.method in BODY_METHODS \
                            and not takes_json_body(view):
                        # A route that takes no body drops none silently either.
                        refuse_unknown_fields([(key, key, []) for key in data])
                return view(*args, **kwargs)

            run.declaration = declaration
            return run

        return decorate


def declared_arguments(view):
    """(location, schema) of each `arguments` the route declared ("json" for the body)."""
    for parameter in getattr(view, "_apidoc", {}).get("arguments", {}).get("parameters", []):
        if isinstance(parameter, dict) and hasattr(parameter.get("schema"), "fields"):
            yield parameter["in"], parameter["schema"]


def takes_json_body(view) -> bool:
    """Whether the view declared a JSON body with `arguments`."""
    return any(location == "json" for location, _schema in declared_arguments(view))


def takes_form_body(view) -> bool:
    """Whether the view declared an HTML form body (`declare(form=True)` with arguments)."""
    declaration = declaration_of(view)
    return bool(declaration and declaration.form) and any(location == "form" for location, _ in declared_arguments(view))


def declares_answers(view) -> bool:
    return bool(getattr(view, "_apidoc", {}).get("response", {}).get("responses"))
