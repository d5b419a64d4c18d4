"""The OpenAPI document and the controls registry, both generated from the live URL map
and the contracts declared on the routes, so neither can list a route that does not exist.

The document also records the decisions taken on the open points of the interface spec
(`DECISIONS`), as DEVELOPERS.md asks: each feature adds its own there.
"""
from __future__ import annotations

import re

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

from api.contract import EMPTY
from services.reasons import REASONS

# Cross-cutting decisions on points the spec leaves open; each feature area adds its own
# (the DECISIONS list of its blueprint module).
DECISIONS = [
    "Refusal bodies are {status, reason, explanation}; `status` is `refused` for refusals of the request and "
    "`error` for HTTP-level failures (unknown path, wrong method, body too large) and server faults.",
    "An uncaught exception answers 500 {status: error, reason: internal_error, explanation, request_id}; the "
    "traceback is logged under the same request id and never sent.",
    "The database being unreachable answers 503 `database_unavailable`; nothing is half-written.",
    "Any request body must be one JSON object sent with Content-Type application/json. An empty body reads as {}. "
    "Malformed JSON, another content type, an array or scalar, NaN/Infinity or a NUL character answer 400 "
    "`invalid_json`; a missing or mistyped field answers 400 with that field's reason (else `invalid_request`) "
    "and a `fields` object naming each problem. Unknown fields are ignored.",
    "Bodies larger than MAX_BODY_BYTES (default 1 MiB) answer 413 `payload_too_large`.",
    "State-changing requests (every POST, and GET /api/find and /api/feed) sent by another site "
    "(Sec-Fetch-Site: cross-site, or an Origin that is not the service's own) answer 403 `cross_site_request`; "
    "provider callbacks are exempt and authenticate by signature.",
    "The ff_session cookie is HttpOnly, SameSite=Lax, Path=/, Max-Age=31536000, without Domain, Secure when "
    "BASE_URL is https; its value is 32 lowercase hex characters (128 random bits). A value the server did not "
    "issue is replaced. The server stores only a SHA-256 hash of it.",
    "GET /api/health always answers 200 (the engine reads any other code as 'no API here'): `status` is `ok` "
    "when the database answers and `degraded` otherwise; `database`, `broker` and `worker` say what answered.",
    "A worker counts as heard from when it has run a heartbeat job (fired every HEARTBEAT_SECONDS by the clock) "
    "or booted within WORKER_STALE_SECONDS.",
    "Background work is a job row {id, kind, subject, status: queued|running|done|failed, stage, attempt, error}; "
    "`error` holds a registered reason code. At most one job per kind and subject is queued or running.",
]

_COMMON_REFUSALS = {
    500: ("internal_error",),
    503: ("database_unavailable",),
}


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


def _openapi_path(rule: str) -> tuple[str, list[dict]]:
    params = []

    def convert(match):
        converter, name = match.group(1), match.group(2)
        kind = {"int": "integer", "float": "number"}.get(converter or "", "string")
        params.append({"in": "path", "name": name, "required": True, "schema": {"type": kind}})
        return "{" + name + "}"

    return re.sub(r"<(?:(\w+):)?(\w+)>", convert, rule), params


def iter_operations(app):
    """Yields (rule, method, view, contract) for every routed method that has a contract."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        view = app.view_functions.get(rule.endpoint)
        contract = getattr(view, "contract", None)
        if contract is None:
            continue
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield rule, method, view, contract


def controls(app) -> dict:
    """GET /api/controls: every route that exists, keyed `METHOD /path`, with its description."""
    return {f"{method} {_openapi_path(rule.rule)[0]}": {"description": contract.summary}
            for rule, method, _view, contract in iter_operations(app)}


def build_spec(app, settings) -> dict:
    decisions = DECISIONS + app.extensions.get("decisions", [])
    spec = APISpec(
        title="Sourcing and Storefront Service",
        version=settings.build,
        openapi_version="3.0.3",
        plugins=[MarshmallowPlugin()],
        info={
            "description": "The contract of the service, generated from its routes. Decisions on points the "
                           "interface spec leaves open:\n\n" + "\n".join(f"- {d}" for d in decisions),
            "x-decisions": decisions,
        },
    )
    paths: dict[str, dict] = {}
    for rule, method, view, contract in iter_operations(app):
        path, path_params = _openapi_path(rule.rule)
        paths.setdefault(path, {"params": path_params, "ops": {}})["ops"][method.lower()] = _operation(rule, method, contract)
    for path, entry in paths.items():
        spec.path(path=path, operations=entry["ops"], parameters=entry["params"])
    document = spec.to_dict()
    document["info"]["x-reason-count"] = len(REASONS)
    return document


def _operation(rule, method: str, contract) -> dict:
    operation = {
        "operationId": f"{method.lower()}_{rule.endpoint.replace('.', '_')}",
        "summary": contract.summary,
        "tags": [contract.tag],
        "responses": {},
    }
    if contract.description:
        operation["description"] = contract.description
    parameters = []
    if contract.session:
        parameters.append({"in": "cookie", "name": "ff_session", "required": False, "schema": {"type": "string"},
                           "description": "The session; a missing or unknown value is replaced by a new one."})
    for name, description in contract.headers.items():
        parameters.append({"in": "header", "name": name, "required": True, "schema": {"type": "string"},
                           "description": description})
    if contract.query is not None:
        parameters.append({"in": "query", "schema": contract.query})
    if parameters:
        operation["parameters"] = parameters

    refusals: dict[int, list[str]] = {status: list(codes) for status, codes in contract.refuses.items()}
    for status, codes in _COMMON_REFUSALS.items():
        refusals.setdefault(status, []).extend(codes)
    takes_body = method in ("POST", "PUT", "PATCH", "DELETE")
    if takes_body:
        refusals.setdefault(400, []).append("invalid_json")
        refusals.setdefault(413, []).append("payload_too_large")
    if contract.body is not None:
        operation["requestBody"] = {"required": False, "content": {"application/json": {"schema": contract.body}}}
        refusals.setdefault(400, []).append("invalid_request")
        refusals[400].extend(f.metadata["reason"] for f in contract.body.fields.values() if "reason" in f.metadata)
    if contract.query is not None:
        refusals.setdefault(400, []).append("invalid_request")
        refusals[400].extend(f.metadata["reason"] for f in contract.query.fields.values() if "reason" in f.metadata)
    if contract.requires_account:
        refusals.setdefault(401, []).append("no_account")
    if (takes_body or contract.state_changing) and not contract.cross_site:
        refusals.setdefault(403, []).append("cross_site_request")

    for status, schema in contract.answers.items():
        if schema == EMPTY:
            operation["responses"][str(status)] = {"description": _status_text(status),
                                                   "headers": {"Location": {"schema": {"type": "string"}}}}
            continue
        if isinstance(schema, dict) and "content" in schema:  # not JSON (GET /metrics): its media types as given
            operation["responses"][str(status)] = {"description": _status_text(status), "content": schema["content"]}
            continue
        content_schema = schema if schema is not None else {"type": "object"}
        operation["responses"][str(status)] = {"description": _status_text(status),
                                               "content": {"application/json": {"schema": content_schema}}}
    for status, codes in refusals.items():
        refusal = _refusal_schema(codes)
        key = str(status)
        existing = operation["responses"].get(key)
        if existing is None:
            operation["responses"][key] = {
                "description": f"{_status_text(status)}; reasons: {', '.join(sorted(set(codes)))}",
                "content": {"application/json": {"schema": refusal}},
            }
        else:
            # A status shared by an answer and refusals (domain refusals answered with 200).
            ok = existing["content"]["application/json"]["schema"]
            existing["content"]["application/json"]["schema"] = {"anyOf": [ok, refusal]}
            existing["description"] += f"; or a refusal with reason {', '.join(sorted(set(codes)))}"
    return operation


def _status_text(status: int) -> str:
    return {200: "OK", 201: "Created", 202: "Accepted", 303: "See Other", 400: "Bad request", 401: "No account",
            403: "Forbidden", 404: "Not found", 405: "Method not allowed", 409: "Conflict", 410: "Gone",
            413: "Payload too large", 429: "Usage limit reached", 500: "Server error",
            503: "Service unavailable"}.get(status, str(status))
