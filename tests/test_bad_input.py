"""Bad input on every POST route (reliability guide): malformed JSON, a JSON array or
number, a wrong content type, a 2 MB body, NULs (in values and keys), lone UTF-16
surrogates, JSON nested 400 and 100,000 deep, integers beyond 64 bits, NaN and infinity: a
4xx JSON refusal with a registered reason, never HTML or a 500, and nothing stored. Text a
field may well take (right-to-left marks, 100,000 characters) is never a 500 either.

The routes come from the live URL map and the fields from each route's declared body
schema, so a route or field added later is covered without touching this file."""
import hashlib
import hmac
import itertools
import json
import re

import pytest
from marshmallow import fields, validate

from api.json_body import MAX_DEPTH
from api.openapi import iter_routes
from api.routing import declaration_of, declared_arguments
from models import ALL_MODELS
from models.clock import clock
from services.reasons import REASONS
from tests.conftest import SETTINGS
from tests.factories import EXPLANATION_ONLY_401, EXPLANATION_ONLY_BODY, new_account

JSON = "application/json"
DEEP = 100_000

# Whole bodies, sent to every POST route.
BAD_BODIES = {
    "malformed": ("{\"email\": ", JSON),
    "array": ("[1, 2, 3]", JSON),
    "number": ("42", JSON),
    "string": ('"hello"', JSON),
    "wrong content type": ("email=a%40b.c&action=claim", "application/x-www-form-urlencoded"),
    "text": ('{"email": "a@b.c"}', "text/plain"),
    "whitespace": ("\t\n ", JSON),
    "nul": ('{"email": "a\\u0000@b.c", "product_id": "x\\u0000", "action": "claim", "q": "\\u0000"}', JSON),
    "nul in a key": ('{"email\\u0000": "a@b.c", "product_id\\u0000": "x"}', JSON),
    "lone surrogate in a key": ('{"\\ud800": "x", "email": "a@b.c"}', JSON),
    "nested 400 deep": ('{"email": "a@b.c", "x": ' + "[" * 400 + "]" * 400 + "}", JSON),
    "nested 100,000 deep": ('{"x": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}", JSON),
    "array nested 100,000 deep": ("[" * DEEP + "]" * DEEP, JSON),
    "unclosed nesting": ("[" * DEEP, JSON),
    "not UTF-8": (b'{"email": "\xed\xa0\x80@b.c"}', JSON),  # a surrogate encoded in the bytes themselves
    "two megabytes": (json.dumps({"email": "x" * (2 * 1024 * 1024)}), JSON),
}

# JSON values no field can take, placed in one field at a time: the edge refuses each as
# 400 invalid_json before any handler runs, whatever the field.
UNREADABLE = {
    "lone high surrogate": '"\\ud800x"',
    "lone low surrogate": '"x\\udfff"',
    "surrogates in the wrong order": '"\\udc00\\ud800"',
    "nul": '"a\\u0000b"',
    "integer beyond 64 bits": "9223372036854775808",
    "negative integer beyond 64 bits": "-9223372036854775809",
    "integer of 5000 digits": "9" * 5000,
    "infinite number": "1e999",
    "NaN": "NaN",
    "-Infinity": "-Infinity",
    "nested 400 deep": "[" * 400 + "]" * 400,
    "nested 100,000 deep": "[" * DEEP + "]" * DEEP,  # objects nested as deep: BAD_BODIES
}

# Text a field may take or refuse for what it says; either way never a 500.
HOSTILE_TEXT = {
    "right-to-left marks": "\u202e\u200fgpj.exe\u200e\u2066x\u2069",
    "100,000 characters": "\u202e" + "x" * 99_999,
}

# The largest integer each side of the limit reads as a number: what the edge lets through.
READABLE_LIMITS = ("9223372036854775807", "-9223372036854775808", "1e308")


def _row_counts():
    return {model.__name__: model.select().count() for model in ALL_MODELS}


def _concrete(rule: str) -> str:
    return re.sub(r"<[^>]+>", "x", rule)


@pytest.fixture(scope="module")
def post_routes(app):
    routes = sorted({(_concrete(rule.rule), view) for rule, method, view in iter_routes(app) if method == "POST"},
                    key=lambda route: route[0])
    assert len(routes) >= 10 and any("<" in rule.rule for rule, _m, _v in iter_routes(app))  # the map really was read
    return routes


@pytest.fixture
def signed_in(founder, run_jobs):
    """A founder with a verified account (so routes that need one read the body)."""
    client = new_account(founder, run_jobs, "bad-input@example.com")
    client.get("/api/health")
    return client


def _headers(path: str, payload: bytes) -> dict:
    if path != "/api/billing/webhook":
        return {}
    # Signed with the suite's key, so the body gets past the signature to the JSON reader.
    at = int(clock.time())
    digest = hmac.new(SETTINGS.billing_webhook_secret.encode(), f"{at}.".encode() + payload, hashlib.sha256)
    return {"Billing-Signature": f"t={at},v1={digest.hexdigest()}"}


def _post(client, path, data, content_type=JSON):
    payload = data if isinstance(data, bytes) else data.encode()
    return client.post(path, data=payload, content_type=content_type, headers=_headers(path, payload))


def _refused(response, path, kind, *, reason=None) -> str | None:
    """What is wrong with a refusal, or None."""
    if not 400 <= response.status_code < 500:
        return f"{path} [{kind}]: {response.status_code} {response.get_data()[:200]!r}"
    if response.mimetype != JSON:
        return f"{path} [{kind}]: {response.mimetype}"
    body = response.get_json()
    if f"POST {path}" in EXPLANATION_ONLY_401 and response.status_code == 401:
        # The research routes answer a session without an account before reading the body,
        # with the one refusal that has no reason (tests/test_registries.py).
        return None if body == EXPLANATION_ONLY_BODY else f"{path} [{kind}]: {body}"
    if body.get("reason") not in REASONS or not body.get("explanation"):
        return f"{path} [{kind}]: {body}"
    if reason is not None and (response.status_code, body["reason"]) != (400, reason):
        return f"{path} [{kind}]: {response.status_code} {body['reason']}, not 400 {reason}"
    return None


@pytest.mark.parametrize("who", ["anonymous", "signed in"])
@pytest.mark.parametrize("kind", sorted(BAD_BODIES))
def test_every_post_route_refuses_a_bad_body_with_a_registered_reason(founder, run_jobs, post_routes, kind, who):
    data, content_type = BAD_BODIES[kind]
    client = new_account(founder, run_jobs, "bad-body@example.com") if who == "signed in" else founder()
    client.get("/api/health")  # the session exists before counting rows
    before = _row_counts()
    problems = [problem for path, _view in post_routes
                if (problem := _refused(_post(client, path, data, content_type), path, kind))]
    assert problems == []
    assert _row_counts() == before, kind


# --- One field at a time ----------------------------------------------------------------------

def _sample(field):
    """A plausible value of a declared field, so that only the field under test is wrong."""
    for validator in field.validators:
        if isinstance(validator, validate.OneOf):
            return list(validator.choices)[0]
    if "enum" in field.metadata:
        return field.metadata["enum"][0]
    if isinstance(field, fields.Boolean):
        return False
    if isinstance(field, fields.Number):
        return 1
    if isinstance(field, fields.String):
        return "x"
    if isinstance(field, fields.Nested):
        return _baseline(field.schema)
    if isinstance(field, fields.List):
        return []
    if isinstance(field, fields.Dict):
        return {}
    return None


def _baseline(schema) -> dict:
    return {field.data_key or name: _sample(field) for name, field in schema.fields.items()
            if field.required and not field.dump_only}


def _places(schema, prefix=()):
    """(path, is_text) of every field of a body schema, nested ones and list items too."""
    for name, field in schema.fields.items():
        if field.dump_only:
            continue
        path = prefix + (field.data_key or name,)
        if isinstance(field, fields.Nested):
            yield path, False
            yield from _places(field.schema, path + ((0,) if field.many else ()))
        elif isinstance(field, fields.List):
            yield path, False
            if isinstance(field.inner, fields.Nested):
                yield from _places(field.inner.schema, path + (0,))
            else:
                yield path + (0,), isinstance(field.inner, fields.String)
        elif isinstance(field, fields.Dict):
            yield path, False
            yield path + ("key",), True
        else:
            yield path, isinstance(field, fields.String)


SENTINEL = "\u2603sentinel\u2603"


def _body_with(schema, path, fragment: str) -> str:
    """The schema's baseline body with the raw JSON `fragment` at `path`."""
    body = _baseline(schema)
    holder = body
    for step, following in itertools.pairwise(path):
        child = [] if isinstance(following, int) else {}
        if isinstance(holder, dict):
            if not isinstance(holder.get(step), type(child)):
                holder[step] = child
            holder = holder[step]
        else:  # a list: its first item
            holder[:] = holder[:1] or [child]
            holder = holder[0]
    if isinstance(holder, list):
        holder[:] = [SENTINEL]
    else:
        holder[path[-1]] = SENTINEL
    return json.dumps(body).replace(json.dumps(SENTINEL), fragment)


@pytest.fixture(scope="module")
def json_fields(post_routes):
    """(path, schema, field path, is_text) of every field of every route's JSON body."""
    found = [(path, schema, place, is_text) for path, view in post_routes
             for location, schema in declared_arguments(view) if location == "json"
             for place, is_text in _places(schema)]
    assert sum(is_text for *_rest, is_text in found) >= 30  # the schemas really were read
    return found


@pytest.mark.parametrize("kind", sorted(UNREADABLE))
def test_a_value_no_field_takes_is_400_invalid_json_in_every_field_of_every_route(signed_in, json_fields, kind):
    before = _row_counts()
    text_only = kind.startswith(("lone", "surrogates", "nul"))
    problems = [problem for path, schema, place, is_text in json_fields if is_text or not text_only
                if (problem := _refused(_post(signed_in, path, _body_with(schema, place, UNREADABLE[kind])),
                                        path, f"{kind} at {place}", reason="invalid_json"))]
    assert problems == []
    assert _row_counts() == before, kind


@pytest.mark.parametrize("kind", sorted(HOSTILE_TEXT))
def test_hostile_text_in_any_string_field_is_never_a_server_error(signed_in, json_fields, kind):
    problems = []
    for path, schema, place, is_text in json_fields:
        if not is_text:
            continue
        before = _row_counts()
        response = _post(signed_in, path, _body_with(schema, place, json.dumps(HOSTILE_TEXT[kind])))
        if response.status_code < 400:
            assert response.mimetype == JSON, (path, place, kind)
            continue
        if problem := _refused(response, path, f"{kind} at {place}"):
            problems.append(problem)
        elif _row_counts() != before:
            problems.append(f"{path} [{kind} at {place}]: refused, but rows changed")
    assert problems == []


def test_a_nul_in_any_form_field_is_400_invalid_request(founder, post_routes):
    # The service's own pages post forms (a store's buy box, the sandbox checkout page); a
    # NUL in one would reach a database lookup, as in a query string.
    forms = [(path, schema, field.data_key or name) for path, view in post_routes
             for location, schema in declared_arguments(view) if location == "form"
             for name, field in schema.fields.items() if not field.dump_only]
    assert len(forms) >= 3
    client = founder()
    client.get("/api/health")
    before = _row_counts()
    problems = []
    for path, schema, name in forms:
        data = {**{key: str(value) for key, value in _baseline(schema).items()}, name: "a\x00b"}
        response = client.post(path, data=data)
        problems.append(_refused(response, path, f"NUL in {name}", reason="invalid_request"))
    assert [problem for problem in problems if problem] == []
    assert _row_counts() == before


def test_the_edge_lets_through_what_it_can_read(signed_in):
    # The limits themselves are numbers, and a proper surrogate pair is one character: the
    # answer is the route's own (here: the version is not one the store has), never invalid_json.
    for number in READABLE_LIMITS:
        body = _post(signed_in, "/api/ai/edit", f'{{"message": "x", "version": {number}}}').get_json()
        assert body.get("reason") != "invalid_json", (number, body)
    response = _post(signed_in, "/api/research-workspace", '{"op": "add_note", "text": "\\ud83d\\ude00 ok"}')
    assert response.status_code == 200, response.get_data(as_text=True)
    assert signed_in.get("/api/research-workspace").get_json()["notes"][0]["text"] == "\U0001F600 ok"
    # MAX_DEPTH levels in all (the body's own object is the first) are read; one more is not.
    # Read, the field is then named as one the route does not take (tests/test_unknown_fields.py).
    nested = '{"op": "add_note", "text": "x", "extra": %s}'
    inner = MAX_DEPTH - 1
    read = _post(signed_in, "/api/research-workspace", nested % ("[" * inner + "]" * inner))
    assert (read.status_code, read.get_json()["reason"], read.get_json()["field"]) == (400, "unknown_field", "extra")
    deeper = _post(signed_in, "/api/research-workspace", nested % ("[" * (inner + 1) + "]" * (inner + 1)))
    assert (deeper.status_code, deeper.get_json()["reason"]) == (400, "invalid_json")


def test_each_refusal_says_what_is_wrong(client):
    said = {kind: _post(client, "/api/select", f'{{"product_id": {fragment}}}').get_json()["explanation"]
            for kind, fragment in UNREADABLE.items()}
    assert "surrogate" in said["lone high surrogate"] and "NUL" in said["nul"]
    assert "64-bit" in said["integer beyond 64 bits"] and "infinity" in said["infinite number"]
    assert "64 levels" in said["nested 400 deep"] and "64 levels" in said["nested 100,000 deep"]
    assert "NaN" in said["NaN"]


def test_the_suite_default_body_limit_is_what_the_two_megabyte_case_exceeds():
    assert SETTINGS.max_body_bytes < len(BAD_BODIES["two megabytes"][0])
    assert len(BAD_BODIES["nested 100,000 deep"][0]) < SETTINGS.max_body_bytes  # read, not refused for size


def test_every_route_with_a_body_is_declared(post_routes):
    # A POST route must say what it reads, or the walk above would not reach its fields.
    assert all(declaration_of(view) is not None for _path, view in post_routes)


def test_the_walk_covers_every_post_operation_the_document_lists(client, post_routes):
    # The routes above come from the URL map; the document is what clients (and the fuzzer)
    # read: the two must name the same POST operations, and no route takes a body by another
    # method (PUT, PATCH, DELETE) that the walk would miss.
    paths = client.get("/api/openapi.json").get_json()["paths"]
    documented = {re.sub(r"\{[^}]+\}", "x", path) for path, item in paths.items() if "post" in item}
    assert documented == {path for path, _view in post_routes}
    assert {method for item in paths.values() for method in item} <= {"get", "post", "parameters"}
