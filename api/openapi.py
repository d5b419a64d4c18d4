"""The OpenAPI document and the controls registry.

flask-smorest builds the document from the routes' own declarations (bodies, query
strings and answers); this module adds what it has no word for, from each route's
`declare(...)`: the refusals a route answers with (each status with its reason codes,
beside the answer where a refusal shares its status), the session cookie, required
headers, and the decisions taken on the spec's open points (`info.x-decisions`). The
controls registry is read off the live URL map, so neither can list a route that does
not exist.
"""
from __future__ import annotations

import copy
import re

import flask_smorest
import jsonschema
from marshmallow import INCLUDE, Schema, fields

from api.errors import SIGN_IN_TO_RESEARCH
from api.json_body import INT64_MAX, INT64_MIN, MAX_DEPTH
from api.routing import BODY_METHODS, UNDECLARED, declaration_of, declared_arguments
from config import Settings
from jobs.runner import DEFAULT_TIME_LIMIT_MS
from services.reasons import REASONS

# Cross-cutting decisions on points the spec leaves open; each feature area adds its own
# (the DECISIONS list of its blueprint module).
DECISIONS = [
    "Refusal bodies are {status, reason, explanation}; `status` is `refused` for refusals of the request and "
    "`error` for HTTP-level failures (unknown path, wrong method, body too large) and server faults. The one "
    "exception is spec 5.13's: the research routes' 401 carries an explanation and no reason.",
    "Answers are JSON in UTF-8, non-ASCII text sent as it is rather than as \\u escapes (the same values).",
    "Days and times in every text the service writes for people (mails, store pages, explanations) read "
    "'5 December 2026'; a moment reads '5 December 2026, 12:00 UTC' (always UTC on the server, which does not know "
    "the reader's zone; services/day_words.py). The browser app writes the same style in the founder's own time "
    "zone, naming the zone. Fields meant for programs keep ISO 8601. Explanations and `because` sentences "
    "(analysis figures, intent proposals and refusals) write days that way and name a series by its words and "
    "source ('Search interest (Trends feed)'); the data fields (`source_row`, `evidence`, `signals`) keep ISO "
    "dates and the catalog's keys.",
    "An uncaught exception answers 500 {status: error, reason: internal_error, explanation, request_id}; the "
    "traceback is logged under the same request id and never sent.",
    "The database being unreachable answers 503 `database_unavailable`; nothing is half-written. One that stops "
    "answering without a word costs a request at most DB_WAIT_SECONDS (5) of waiting on it in all before that "
    "503 (once one wait ran out, its later reads fail at once), and never waits on another request's connect; "
    "GET /api/health waits at most 1 s on it and answers `degraded`. A published store's pages are served "
    "meanwhile from the copy any web process rendered.",
    "Any request body must be one JSON object sent with Content-Type application/json. An empty body reads as {}. "
    "Malformed JSON, another content type, an array or scalar, NaN/Infinity or a NUL character answer 400 "
    "`invalid_json`; a missing or mistyped field (at any nesting level) answers 400 with that field's reason "
    "(else `invalid_request`) and a `fields` object naming each problem.",
    "No body is silently dropped (issue 51): a client's JSON body naming a field its route does not take, at the top "
    "or inside an object the body declares (a list's items included), answers 400 {status: refused, reason: "
    "unknown_field, explanation, field, fields}, as Stripe refuses an unknown parameter: the explanation names each "
    "such field in words (with the field it was probably meant to be), `field` is the first one's path and "
    "`fields` all of them (`settings.curency`, `campaigns[0].nmae`); it is checked before any other field, and "
    "nothing is changed. A route that takes no body refuses any field the same way ({} and no body stay fine). "
    "The document says `additionalProperties: false` on those bodies and on the objects they declare; an object "
    "a body declares as free (any keys, such as a journey's `data`) stays open. Unchanged, and open in the "
    "document: a provider's callback (the billing webhook reads a few fields of a payload that has many), an "
    "HTML form posted by the service's own pages, and query strings (extra parameters such as cache-busters and "
    "utm_ tags are common there and are ignored). `unknown_field` was the store editor's code for an edit naming "
    "a field the store lacks (still 200 there, spec 7.2 table: '200 or 400'); the same code at 400 names a field "
    "the request lacks, and its registry sentence now covers both.",
    "A body must also be JSON the service can keep (I-JSON, RFC 7493, a little stricter), checked before any "
    "handler runs and wherever the value sits, keys included: UTF-8 text (a byte order mark is ignored), arrays "
    f"and objects at most {MAX_DEPTH} levels deep (the body's own object is the first), no lone UTF-16 surrogate "
    "(`\\ud800` without its pair) and no NUL in any string, integers within the signed 64-bit range, and numbers "
    "that stay finite (1e999 reads as infinity). Each answers 400 `invalid_json` with an explanation naming the "
    "problem; no new reason: the registry's sentence (the request could not be read, nothing was changed) fits "
    "them all, and every route that takes a body already documents it.",
    "The document declares the bounds the service checks (lengths, ranges, enums, patterns, `anyOf` where fields "
    "go together, `required` where a missing field is refused) so that a request it allows is accepted; a bound "
    "the service checks with a reason of its own is declared in the document only, and a request outside it keeps "
    "that refusal. A body is required when {} is not one the document allows; every integer is bounded to the "
    "signed 64 bits the body reader keeps.",
    "Patterns spell their classes out as literal characters, whitespace as Python's str.isspace (what the service "
    "strips and splits on), never \\s, \\d or \\w, whose sets differ between regex dialects; letters are "
    "listed in every case the service folds (the Kelvin sign is a k to str.lower()). A query parameter whose "
    "absence the service refuses with a reason of its own is declared required. Where a check is not a shape "
    "(an IBAN's check digits, email-validator's special-use domains, which Unicode labels IDNA takes), the "
    "document declares the shape, says the rest in words, and the refusal keeps its reason.",
    "No answer's Location is built from the Host header. A path with an empty segment (`/api//health`, "
    "`/api/health//`) matches no route and answers the JSON 404 `not_found` of any unknown path, never a redirect "
    "(leading ones too: `//api/health`, `//admin`); `/api/x/` is `/api/x`. Any redirect the router "
    "would still make answers 308 `{status: moved, location}` with a relative Location; links in mails and pages "
    "are built from BASE_URL. A path holding a NUL (`%00`) is likewise a JSON 404, and a NUL in a query "
    "parameter or a form field is 400 `invalid_request` (GET /login still answers its 303): none names anything.",
    f"Bodies larger than MAX_BODY_BYTES (default {Settings.max_body_bytes // (1024 * 1024)} MiB) answer 413 "
    "`payload_too_large`.",
    "State-changing requests (every POST, and GET /api/find and /api/feed) sent by another site "
    "(Sec-Fetch-Site: cross-site, or an Origin that is not the service's own) answer 403 `cross_site_request`; "
    "provider callbacks are exempt and authenticate by signature. A route that declares nothing is treated as "
    "state-changing.",
    "The ff_session cookie is HttpOnly, SameSite=Lax, Path=/, Max-Age=31536000, without Domain, Secure when "
    "BASE_URL is https; its value is 32 lowercase hex characters (128 random bits). A value the server did not "
    "issue is replaced. The server stores only a SHA-256 hash of it.",
    "The cookie rule (spec 2.1, 4.1, 5 rule 2): every endpoint of spec section 4, public or session, gives a "
    "request without a valid ff_session cookie a new one, refusals included: GET /api/reasons, /api/controls, "
    "/api/brief, /api/track-record and /api/store/confirm too, and every other route under /api/ and /login (this "
    "document as well, all of them `private, no-store`), the app's shell and /r/<code>. Routes declared "
    "session=False neither read nor issue it, and none is a spec endpoint but one: the public store pages "
    "(/store/<slug>/...: a shared cache keeps them a minute; the owner's preview reads the session), static files, "
    "uploaded images (/media/: reads a cookie the founder's browser sends, to show them their unpublished "
    "uploads, and issues none), the sandbox payment provider (/pay/sandbox/), the payment-provider paths spec 4.7 "
    "lists as internal callbacks (/pay/landing, /pay/back, /pay/notify, /pay/logo.svg), POST /api/billing/webhook "
    "and /metrics. The one spec endpoint kept cookieless, a deliberate deviation: POST /api/track (spec 4.7 says "
    "session; decisions.md: called by the store pages, public store visitors carry no founder cookie). Issued "
    "there, every shopper whose store page sent an event would be handed a year-long founder cookie on the "
    "store's origin: a session row per shopper, a cookie the shopper never agreed to, and a Cookie header on each "
    "later store page request, which shared caches commonly pass by. The visitor is the body's session_id instead.",
    "An answer a shared cache may keep never carries a cookie. Kept means not marked `private` (unqualified) or "
    "`no-store`: `public`, `s-maxage`, `no-cache` alone and no Cache-Control at all count as kept (a Set-Cookie "
    "does not stop a cache, and a 200, 301 or 404 may be kept heuristically). Routes whose answers are shared "
    "(static files, public store pages, published images under /media/) are declared session=False and issue no "
    "cookie. Should any other answer set a cookie while kept, it is made private (`public`, `s-maxage` and "
    "`proxy-revalidate` removed, `private` added, the browser's own directives kept) rather than the cookie "
    "dropped: the answer may be this visitor's alone, and the visitor keeps the session it was given; when the "
    "route had marked it shareable this is logged as a programming error. Everything under /api/ and /login is "
    "`private, no-store, must-revalidate` (spec 5.14), so those answers may carry the cookie.",
    "GET /api/health always answers 200 (the engine reads any other code as 'no API here'): `status` is `ok` "
    "when the database answers, the broker answers (within half a second) and a worker has been heard from "
    "within WORKER_STALE_SECONDS, and `degraded` otherwise; `database`, `broker` and `worker` say which.",
    "A worker counts as heard from when it booted or beat within WORKER_STALE_SECONDS (each worker process "
    "beats every HEARTBEAT_SECONDS from a thread of its own, however busy its job threads are).",
    "Background work is a job row {id, kind, subject, status: queued|running|done|failed, stage, attempt, error}; "
    "`error` holds a registered reason code. At most one job per kind and subject is queued or running.",
    "A running job renews its subject lock and its row's lease at every stage and every lease/3, so it may run for "
    "many leases; the reaper only takes a running job whose lease has actually run out.",
    "The reaper runs in the clock process every REAPER_SECONDS, never behind queued work: a running job whose "
    "lease ran out is sent again (failed once its attempts are spent), so a dead worker's job runs again about "
    "one lease after its last renewal; messages a worker took are put back in the queue once its broker "
    "heartbeat is WORKER_LOST_SECONDS old; a queued job whose message Redis no longer holds (a flush, a failed "
    "send) is sent again after a 5 s grace, and one whose message waits in the queue is not sent twice (with the "
    "in-process broker, a job queued for JOB_STALE_SECONDS is sent again). The "
    "dead attempt's late writes are refused (every write of a run is fenced by its attempt number).",
    "A web request waits at most REDIS_WAIT_SECONDS (1 s) on one Redis call (workers and the clock "
    "WORKER_REDIS_WAIT_SECONDS). A job whose message could not be sent stays queued for the reaper, and a route "
    "that waits on its job answers at once with it queued; what needs Redis itself answers 503 `queue_unavailable`.",
    "With Redis out of reach the clock logs one warning, keeps running and fires each slot once when Redis "
    "answers again; a job that finished while its lock could not be let go is still done (the lock expires).",
    "A run that finds its row moved on, or its subject lock held by another job, stops at its next stage or "
    "fenced write and records nothing.",
    f"A job's lease is JOB_LEASE_SECONDS ({Settings.job_lease_seconds} s) for every kind. A worker process takes one message per free "
    "thread. Stopped with SIGTERM, it takes nothing more, returns what it took but had not started, lets its "
    "running jobs finish for up to WORKER_SHUTDOWN_SECONDS, then hands back the ones still running: their rows "
    "go back to `queued` with the same attempt number and their messages are sent again at once, so they start "
    "over elsewhere as a new attempt (a hand-back spends no retry delay but counts towards the attempts). "
    "A job that already had its turn (returned by a stopping worker, handed back, taken by a lost worker, or "
    "sent again by the reaper) goes to the head of its queue, not behind the backlog.",
    f"A job's run time is capped by its time limit ({DEFAULT_TIME_LIMIT_MS // 60_000} minutes unless the job kind "
    "sets another); a run stopped by "
    "it is retried, then fails.",
    f"The clock prunes, hourly, anonymous sessions older than ANON_SESSION_DAYS ({Settings.anon_session_days}) that hold, claimed, metered "
    "(a claim-allowance row) or bound nothing, with no open watch, live sign-in link or pending sign-in mail, and "
    "no activity recorded within that period. A pruned session's seen, passed, share and milestone rows go with "
    "it; sign-in tokens and referral codes stay without the reference. A pruned cookie is simply replaced.",
]

# Every route may answer these.
_COMMON_REFUSALS = {500: ("internal_error",), 503: ("database_unavailable", "queue_unavailable")}


class Api(flask_smorest.Api):
    """flask-smorest's Api, without its error handlers and error responses: every failure is
    answered by api/errors.py as {status, reason, explanation}, and documented here."""

    DEFAULT_ERROR_RESPONSE_NAME = None

    def _register_error_handlers(self):
        pass

    def _register_responses(self):
        pass


def make_api(app, settings) -> Api:
    app.config.update(API_TITLE="Sourcing and Storefront Service", API_VERSION=settings.build,
                      OPENAPI_VERSION="3.0.3", OPENAPI_URL_PREFIX=None)
    return Api(app)


def _refusal_schema(reasons) -> dict:
    return {
        "type": "object",
        "required": ["status", "reason", "explanation"],
        "properties": {
            "status": {"type": "string"},
            "reason": {"type": "string", "enum": sorted(set(reasons))},
            "explanation": {"type": "string"},
        },
        "additionalProperties": True,
    }


# The research routes' 401 (spec 5.13): an explanation and no reason (api/errors.py).
SIGN_IN_TO_RESEARCH_SCHEMA = {
    "type": "object",
    "required": ["status", "explanation"],
    "properties": {
        "status": {"type": "string", "enum": ["refused"]},
        "explanation": {"type": "string", "enum": [SIGN_IN_TO_RESEARCH]},
    },
    "additionalProperties": False,
}


def openapi_path(rule: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)


def iter_routes(app):
    """Yields (rule, method, view) for every routed method but HEAD and OPTIONS (Flask's
    static files are not part of the interface)."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if rule.endpoint == "static":
            continue
        view = app.view_functions.get(rule.endpoint)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield rule, method, view


def summary_of(view) -> str:
    return (getattr(view, "__doc__", None) or "").strip().partition("\n")[0].strip()


def controls(app) -> dict:
    """GET /api/controls: every route that exists, keyed `METHOD /path`, with its description."""
    return {f"{method} {openapi_path(rule.rule)}": {"description": summary_of(view) or rule.endpoint}
            for rule, method, view in iter_routes(app)}


def build_document(app, api: Api, decisions: list[str]) -> dict:
    """The served document: flask-smorest's, with refusals, cookie, headers and decisions."""
    document = copy.deepcopy(api.spec.to_dict())
    document["info"]["description"] = ("The contract of the service, generated from its routes. Decisions on "
                                       "points the interface spec leaves open:\n\n"
                                       + "\n".join(f"- {d}" for d in decisions))
    document["info"]["x-decisions"] = list(decisions)
    document["info"]["x-reason-count"] = len(REASONS)
    document.pop("tags", None)
    for rule, method, view in iter_routes(app):
        operation = document.get("paths", {}).get(openapi_path(rule.rule), {}).get(method.lower())
        if operation is not None:
            _complete(operation, method.lower(), view)
            _add_body_rules(document, operation, view)
            _close_bodies(document, operation, view)
            _add_query_rules(operation, view)
    _exclude_static_siblings(document.get("paths", {}))
    _mark_required_bodies(document)
    _bound_integers(document)
    components = document.get("components", {})
    components.pop("responses", None)  # flask-smorest's own error responses: ours are inline
    components.get("schemas", {}).pop("PaginationMetadata", None)  # flask-smorest's, unused here
    return document


def _add_body_rules(document: dict, operation: dict, view) -> None:
    """A body schema's BODY_RULES (JSON Schema keywords: anyOf where fields go together, one
    of several; `required` and `nullable: false` where a missing or null field is refused with
    the field's own reason) go into its component: rules the service checks itself with reasons of its
    own, so they are declared for clients rather than enforced by marshmallow."""
    for location, schema in declared_arguments(view):
        if location != "json":
            continue
        ref = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
        _merge_rules(document, ref.get("$ref", "").rpartition("/")[2], getattr(schema, "BODY_RULES", None))
        # A body's nested objects (a list of them included) may carry rules of their own.
        for each in schema.fields.values():
            inner = getattr(each, "inner", each)
            nested = getattr(inner, "schema", None) if isinstance(inner, fields.Nested) else None
            if getattr(nested, "BODY_RULES", None):
                _merge_rules(document, type(nested).__name__.removesuffix("Schema"), nested.BODY_RULES)


def _close_bodies(document: dict, operation: dict, view) -> None:
    """A client's JSON body and every object in it that a nested schema declares say
    `additionalProperties: false`: a field the route does not take is refused (400
    `unknown_field`, api/routing.py). A provider's callback keeps ignoring them, and its
    body stays open."""
    declaration = declaration_of(view) or UNDECLARED
    if declaration.callback:
        return
    for location, schema in declared_arguments(view):
        if location != "json":
            continue
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
        # One body, or several the route tells apart (anyOf: each member is one the route takes).
        for node in body.get("anyOf") or body.get("oneOf") or [body]:
            _close(document, node, schema)


def _resolved(document: dict, node: dict) -> dict:
    """The schema a node stands for: a $ref's component (apispec wraps a described one in allOf)."""
    while isinstance(node, dict):
        if "$ref" in node:
            node = document.get("components", {}).get("schemas", {}).get(node["$ref"].rpartition("/")[2], {})
        elif len(node.get("allOf", ())) == 1 and "properties" not in node:
            node = node["allOf"][0]
        else:
            return node
    return {}


def _close(document: dict, node: dict, schema) -> None:
    node = _resolved(document, node)
    if not node or schema.unknown == INCLUDE or (node.get("type") != "object" and "properties" not in node):
        return
    node["additionalProperties"] = False
    taken = {(each.data_key or name): each for name, each in schema.fields.items() if not each.dump_only}
    for key, property_schema in node.get("properties", {}).items():
        declared = taken.get(key)
        inner = declared.inner if isinstance(declared, fields.List) else declared
        if not isinstance(inner, fields.Nested) or not isinstance(inner.schema, Schema):
            continue
        if isinstance(declared, fields.List) or declared.many or inner.schema.many:
            property_schema = _resolved(document, property_schema).get("items", {})
        _close(document, property_schema, inner.schema)


def _merge_rules(document: dict, name: str, rules: dict | None) -> None:
    component = document.get("components", {}).get("schemas", {}).get(name)
    if component is None or not rules:
        return
    for key, value in copy.deepcopy(rules).items():
        if key == "properties":  # keywords merged into each named field's own schema
            for field, keywords in value.items():
                component["properties"][field].update(keywords)
        else:
            component[key] = value


def _add_query_rules(operation: dict, view) -> None:
    """A query schema's QUERY_RULES (`required`: parameters whose absence the service refuses
    with a reason of its own, so marshmallow does not require them) mark those parameters required."""
    for location, schema in declared_arguments(view):
        rules = getattr(schema, "QUERY_RULES", None)
        if location != "query" or not rules:
            continue
        for parameter in operation.get("parameters", []):
            if parameter.get("in") == "query" and parameter.get("name") in rules.get("required", ()):
                parameter["required"] = True


def _bound_integers(node) -> None:
    """Every integer the document describes is one the body reader keeps (signed 64 bits:
    past that a body is 400 invalid_json wherever the number sits), unless it says less."""
    if isinstance(node, dict):
        if node.get("type") == "integer":
            node.setdefault("minimum", INT64_MIN)
            node.setdefault("maximum", INT64_MAX)
        for value in node.values():
            _bound_integers(value)
    elif isinstance(node, list):
        for value in node:
            _bound_integers(value)


def _mark_required_bodies(document: dict) -> None:
    """An empty body reads as {}: a body is required exactly when {} is not one the document
    allows (a required field, or anyOf bodies that each need one)."""
    components = document.get("components", {})
    for item in document.get("paths", {}).values():
        for operation in item.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body is None:
                continue
            for content in body.get("content", {}).values():
                schema = {**content.get("schema", {}), "components": components}
                if not jsonschema.Draft4Validator(schema).is_valid({}):
                    body["required"] = True


def _exclude_static_siblings(paths: dict) -> None:
    """A path parameter never takes a value that a static sibling path routes elsewhere: the
    router matches /store/{slug}/checkout before /store/{slug}/{name}, so `name` is declared
    `not` checkout (or preview, thanks) rather than a page that answers like another route."""
    split = {path: path.split("/") for path in paths}
    for path, item in paths.items():
        segments = split[path]
        for index, segment in enumerate(segments):
            match = re.fullmatch(r"\{(\w+)\}", segment)
            if match is None:
                continue
            taken = sorted({other[index] for name, other in split.items()
                            if name != path and len(other) == len(segments) and other[index]
                            and not other[index].startswith("{")
                            and all(a == b for i, (a, b) in enumerate(zip(other, segments, strict=True)) if i != index)})
            for parameter in item.get("parameters", []):
                if taken and parameter.get("in") == "path" and parameter.get("name") == match.group(1):
                    parameter.setdefault("schema", {})["not"] = {"enum": taken}


def _complete(operation: dict, method: str, view) -> None:
    """Adds what the route's declaration says to its operation: the cookie and header
    parameters, and every refusal it may answer, by status, with its reasons."""
    declaration = declaration_of(view) or UNDECLARED
    _add_parameters(operation, declaration)
    if "requestBody" in operation:
        operation["requestBody"]["required"] = False  # settled by _mark_required_bodies
    _add_refusals(operation, _refusals_of(method, view, declaration), declaration)


def _add_parameters(operation: dict, declaration) -> None:
    parameters = operation.setdefault("parameters", [])
    if declaration.session:
        parameters.append({"in": "cookie", "name": "ff_session", "required": False, "schema": {"type": "string"},
                           "description": "The session; a missing or unknown value is replaced by a new one."})
    for name, description in declaration.headers.items():
        parameters.append({"in": "header", "name": name, "required": True, "schema": {"type": "string"},
                           "description": description})
    if not parameters:
        del operation["parameters"]


def _refusals_of(method: str, view, declaration) -> dict[int, list[str]]:
    """The reasons the route may refuse with, by status: its own, the common ones, and those
    of its body, its arguments, its account and the cross-site guard."""
    refusals: dict[int, list[str]] = {status: list(codes) for status, codes in declaration.refuses.items()}
    for status, codes in _COMMON_REFUSALS.items():
        refusals.setdefault(status, []).extend(codes)
    if method.upper() in BODY_METHODS:
        refusals.setdefault(400, []).append("invalid_json")
        refusals.setdefault(413, []).append("payload_too_large")
    if method.upper() in BODY_METHODS and not declaration.callback and not declaration.form:
        # A client's JSON body naming a field the route does not take (any, on a route that takes no body).
        refusals.setdefault(400, []).append("unknown_field")
    for location, schema in declared_arguments(view):
        refusals.setdefault(400, []).extend(["invalid_json", "invalid_request"] if location == "json"
                                            else ["invalid_request"])
        for each in schema.fields.values():
            refusals[400].extend(([each.metadata["reason"]] if "reason" in each.metadata else [])
                                 + each.metadata.get("also_refuses", []))
    if declaration.requires_account and not declaration.sign_in_to_research:
        refusals.setdefault(401, []).append("no_account")
    if (method.upper() in BODY_METHODS or declaration.changes_state) and not declaration.callback:
        refusals.setdefault(403, []).append("cross_site_request")
    return refusals


def _add_refusals(operation: dict, refusals: dict[int, list[str]], declaration) -> None:
    responses = operation.setdefault("responses", {})
    for key in [k for k, v in responses.items() if isinstance(v, str) or "$ref" in v]:
        del responses[key]  # flask-smorest's reference to its own error body
    for status, codes in sorted(refusals.items()):
        refusal = _refusal_schema(codes)
        key = str(status)
        existing = responses.get(key)
        if existing is None:
            responses[key] = {"description": f"{_status_text(status)}; reasons: {', '.join(sorted(set(codes)))}",
                              "content": {"application/json": {"schema": refusal}}}
        elif "content" in existing:
            # A status shared by an answer and refusals (domain refusals answered with 200).
            ok = existing["content"]["application/json"]["schema"]
            existing["content"]["application/json"]["schema"] = {"anyOf": [ok, refusal]}
            existing["description"] += f"; or a refusal with reason {', '.join(sorted(set(codes)))}"
    if declaration.sign_in_to_research:
        responses["401"] = {"description": "No account: the sign-in-to-research sentence, with no reason code "
                                           "(spec 5.13)",
                            "content": {"application/json": {"schema": SIGN_IN_TO_RESEARCH_SCHEMA}}}
        operation["responses"] = dict(sorted(responses.items()))


def _status_text(status: int) -> str:
    return {200: "OK", 201: "Created", 202: "Accepted", 303: "See Other", 400: "Bad request", 401: "No account",
            403: "Forbidden", 404: "Not found", 405: "Method not allowed", 409: "Conflict", 410: "Gone",
            413: "Payload too large", 429: "Usage limit reached", 500: "Server error",
            503: "Service unavailable"}.get(status, str(status))
