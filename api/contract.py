"""The contract of a route, declared once beside it.

`@endpoint(...)` states what a route takes (a JSON body schema, a query schema), what it
answers (a schema per status) and which reasons it refuses with at which HTTP status.
From that one declaration:

- the body and query are parsed and validated before the view runs (bad input never
  reaches a service);
- a `Refused` raised below the route gets the status the route declared for its reason;
- the OpenAPI document (api/openapi.py) and GET /api/controls are generated.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import wraps

from flask import Response, jsonify, request
from marshmallow import EXCLUDE, Schema, ValidationError, fields

from api.errors import ApiError
from api.session import current_session


# An answer with no body (a redirect): `answers={303: EMPTY}`.
EMPTY = "empty"


@dataclass
class Contract:
    summary: str
    description: str
    body: Schema | None = None
    query: Schema | None = None
    answers: dict = field(default_factory=dict)  # status -> Schema (or None for a free-form body)
    refuses: dict = field(default_factory=dict)  # status -> tuple of reason codes
    state_changing: bool = False  # refused when it comes from another site
    cross_site: bool = False  # callable by other sites and servers (provider callbacks)
    session: bool = True  # reads the ff_session cookie
    requires_account: bool = False  # refused 401 no_account unless the session is signed in
    headers: dict = field(default_factory=dict)  # required request headers (name -> description), documented
    tag: str = "service"

    def status_for(self, reason: str) -> int | None:
        for status, reasons in self.refuses.items():
            if reason in reasons:
                return status
        return None


def endpoint(*, body: type[Schema] | None = None, query: type[Schema] | None = None, answers: dict | None = None,
             refuses: dict | None = None, state_changing: bool | None = None, cross_site: bool = False,
             session: bool = True, requires_account: bool = False, headers: dict | None = None,
             tag: str = "service"):
    """Declares a route's contract; see the module docstring."""

    def declare(view):
        doc = (view.__doc__ or "").strip()
        summary, _, rest = doc.partition("\n")
        contract = Contract(
            summary=summary.strip(),
            description=rest.strip(),
            # Unknown fields are ignored, and the document says so (no additionalProperties: false).
            body=body(unknown=EXCLUDE) if body else None,
            query=query(unknown=EXCLUDE) if query else None,
            answers={status: (schema() if isinstance(schema, type) else schema)
                     for status, schema in (answers or {200: None}).items()},
            refuses={status: tuple(codes) for status, codes in (refuses or {}).items()},
            state_changing=bool(state_changing),
            cross_site=cross_site,
            session=session,
            requires_account=requires_account,
            headers=headers or {},
            tag=tag,
        )

        @wraps(view)
        def run(*args, **kwargs):
            if contract.requires_account and current_session().account_id is None:
                raise ApiError(401, "no_account")
            parsed_body = read_json_body(contract.body)
            if contract.body is not None:
                kwargs["body"] = parsed_body
            if contract.query is not None:
                kwargs["query"] = load(contract.query, request.args.to_dict(), strict=False)
            return render(view(*args, **kwargs), contract)

        run.contract = contract
        return run

    return declare


def read_json_body(schema: Schema | None):
    """Reads the request body. Any body sent must be one JSON object with a JSON content
    type; an empty body reads as {} (so routes without a body accept being called bare)."""
    raw = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
    if not raw.strip():
        data = {}
    else:
        if not request.is_json:
            raise ApiError(400, "invalid_json", "Send the body as JSON with Content-Type: application/json.")
        try:
            data = json.loads(raw, parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError):
            raise ApiError(400, "invalid_json", "The body is not valid JSON.") from None
        if not isinstance(data, dict):
            raise ApiError(400, "invalid_json", "The body must be a JSON object.")
        if _has_nul(data):
            # PostgreSQL cannot store NUL in text, and no field needs one.
            raise ApiError(400, "invalid_json", "The body contains a NUL character, which no field accepts.")
    return load(schema, data) if schema is not None else None


# JSON types each marshmallow field accepts. marshmallow itself coerces ("5" -> 5, 0 ->
# False, "1.5" -> 1.5), which the published document (integer, boolean, number) forbids.
_JSON_TYPES = (
    (fields.Boolean, (bool,)),
    (fields.Integer, (int,)),
    (fields.Number, (int, float)),
    (fields.String, (str,)),
    (fields.List, (list,)),
    (fields.Dict, (dict,)),
    (fields.Nested, (dict, list)),
)


def _strict_types(schema: Schema, data: dict) -> dict:
    """Messages for top-level values whose JSON type is not the field's."""
    problems = {}
    for name, declared in schema.fields.items():
        key = declared.data_key or name
        if key not in data or data[key] is None:
            continue
        value = data[key]
        for field_type, json_types in _JSON_TYPES:
            if isinstance(declared, field_type):
                wrong = not isinstance(value, json_types) or (isinstance(value, bool) and bool not in json_types)
                if wrong:
                    problems[key] = [f"Not a valid {json_types[0].__name__.replace('str', 'string')}."]
                break
    return problems


def load(schema: Schema, data: dict, *, strict: bool = True) -> dict:
    """Validates `data`; a failure becomes a 400 with the failing field's own reason code
    (from the field's metadata) or `invalid_request`. `strict` checks JSON types as
    published (query strings are all text, so they are loaded with strict=False)."""
    try:
        problems = _strict_types(schema, data) if strict else {}
        if problems:
            raise ValidationError(problems)
        return schema.load(data, unknown=EXCLUDE)
    except ValidationError as exc:
        messages = exc.normalized_messages()
        first = next((name for name in schema.fields if name in messages), None)
        reason = "invalid_request"
        if first is not None:
            reason = schema.fields[first].metadata.get("reason", "invalid_request")
        detail = "; ".join(f"{name}: {' '.join(_flatten(msg))}" for name, msg in messages.items())
        raise ApiError(400, reason, fields={"fields": messages}, detail=detail) from None


def render(result, contract: Contract):
    """Turns what a view returned into a JSON response, dumping it through the schema
    declared for its status."""
    if isinstance(result, Response):
        return result
    status = 200
    if isinstance(result, tuple):
        result, status = result
    schema = contract.answers.get(status)
    payload = schema.dump(result) if isinstance(schema, Schema) else result
    response = jsonify(payload)
    response.status_code = status
    return response


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


def _flatten(message):
    if isinstance(message, dict):
        return [f"{k}: {' '.join(_flatten(v))}" for k, v in message.items()]
    if isinstance(message, list):
        return [str(m) for m in message]
    return [str(message)]
