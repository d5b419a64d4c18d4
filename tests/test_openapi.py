"""The OpenAPI document: generated from the routes, documents every refusal's reasons, and
is fuzzed in-process by schemathesis (no server error; every answer matches the document)."""
import json
import math

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import positive_data_acceptance

from api import create_app
from api.json_body import INT64_MAX, INT64_MIN, MAX_DEPTH
from api.openapi import iter_routes, openapi_path
from api.routing import declaration_of, declared_arguments
from services.reasons import REASONS
from tests.conftest import SETTINGS
from tests.factories import new_account


def test_document_lists_every_route_with_responses(app, client):
    document = client.get("/api/openapi.json").get_json()
    assert document["openapi"].startswith("3.")
    operations = {(method.upper(), path) for path, ops in document["paths"].items() for method in ops
                  if method != "parameters"}
    controls = {tuple(key.split(" ", 1)) for key in client.get("/api/controls").get_json()["controls"]}
    assert operations == controls
    for path, ops in document["paths"].items():
        for method, operation in ops.items():
            if method == "parameters":
                continue
            assert operation["summary"], (method, path)
            assert "500" in operation["responses"] and "503" in operation["responses"]


def test_every_documented_refusal_names_registered_reasons(client):
    document = client.get("/api/openapi.json").get_json()
    for ops in document["paths"].values():
        for method, operation in ops.items():
            if method == "parameters":
                continue
            for response in operation["responses"].values():
                if "application/json" not in response.get("content", {}):  # a redirect, or GET /metrics' text
                    continue
                schema = response["content"]["application/json"]["schema"]
                for option in schema.get("anyOf", [schema]):
                    reason = option.get("properties", {}).get("reason", {})
                    assert set(reason.get("enum", [])) <= set(REASONS)


def test_a_path_parameter_never_takes_the_name_of_a_static_sibling_route(client, app):
    """/store/{slug}/checkout is its own route: the document must not offer `checkout` as a page
    name, or a client (the fuzzer among them) meets that route's answers under the page's."""
    paths = client.get("/api/openapi.json").get_json()["paths"]
    (name,) = [p for p in paths["/store/{slug}/{name}"]["parameters"] if p["name"] == "name"]
    assert name["schema"]["not"] == {"enum": ["checkout", "preview", "thanks"]}
    assert client.get("/store/any/checkout").status_code == 303  # the sibling route answers, as the router says


# What a Unicode-mode ECMA 262 pattern (a JSON Schema validator such as ajv compiles with the u
# flag) lets a backslash stand before: a syntax character, and `-` inside a class.
_ECMA_ESCAPABLE = frozenset("^$\\.*+?()[]{}|/")


def _refused_escapes(pattern: str) -> list[str]:
    refused, in_class, index = [], False, 0
    while index < len(pattern):
        ch = pattern[index]
        if ch == "\\":
            escaped = pattern[index + 1:index + 2]
            if escaped not in _ECMA_ESCAPABLE and not (in_class and escaped == "-"):
                refused.append(pattern[index:index + 2])
            index += 2
            continue
        in_class = (in_class and ch != "]") or (not in_class and ch == "[")
        index += 1
    return refused


def _patterns(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            else:
                yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


def test_every_pattern_is_one_an_ecma_262_unicode_pattern_reads(client):
    """JSON Schema's patterns are ECMA 262; a JavaScript validator compiles them with the u flag,
    where escaping a space, a line break or a letter that is not an escape is an error (Python's
    re.escape writes those): the document escapes only what both dialects read alike."""
    patterns = list(_patterns(client.get("/api/openapi.json").get_json()))
    assert len(patterns) >= 20
    assert {pattern[:80]: _refused_escapes(pattern) for pattern in patterns if _refused_escapes(pattern)} == {}
    assert _refused_escapes("[\\ a]\\-") == ["\\ ", "\\-"]  # the check itself


def test_document_records_the_decisions(client):
    info = client.get("/api/openapi.json").get_json()["info"]
    assert len(info["x-decisions"]) >= 5
    assert "internal_error" in info["description"]


# Loaded at collection from its own instance of the real app (schemathesis' fixture
# loader does not work with pytest 9).
FUZZED_APP = create_app(SETTINGS)
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", FUZZED_APP)


def _nested(levels: int):
    value = []
    for _ in range(levels):
        value = [value]
    return value


# Raw JSON text no Python value writes, put in place of its marker once the body is written.
RAW = {f"\u2603raw{i}\u2603": fragment for i, fragment in enumerate(
    ["1e999", "-1e999", "[" * 100_000 + "]" * 100_000, '{"a": ' * 100_000 + "1" + "}" * 100_000])}

# What hostile clients put in bodies, beside what the document allows: half of it JSON the
# reader refuses before any handler runs (api/json_body.py: lone surrogates, NULs, integers
# past 64 bits, NaN and infinity, nesting past its limit), half text each route must take
# or refuse for what it says (right-to-left marks, 100,000 characters), never with a 500.
UNREADABLE_VALUES = st.sampled_from([
    "\ud800x", "x\udfff", "\udc00\ud800", "a\x00b", 2**63, -(2**63) - 1, 10**30, float("inf"), float("nan"),
    _nested(400), {"\ud800": "x"}, {"k\x00": "x"}, ["\udfff"], *RAW,
])
HOSTILE_TEXT = st.sampled_from(["\u202egpj.exe\u200f", "\u2066x\u2069\u200e", "\u202e" + "x" * 99_999,
                                "x" * 100_000, "\u200f\u202b"])
HOSTILE_VALUES = st.one_of(UNREADABLE_VALUES, HOSTILE_TEXT)
HOSTILE_KEYS = st.sampled_from(["\ud800", "k\x00", "\u202ek", "\u200f"])


def _written(body: dict) -> bytes:
    # Python's json writes NaN and Infinity, which the transport's own encoder refuses to.
    text = json.dumps(body)
    for marker, fragment in RAW.items():
        text = text.replace(json.dumps(marker), fragment)
    return text.encode()


def _body_fields(app) -> dict:
    """(METHOD, documented path) -> the names of the fields its JSON body declares."""
    return {(method, openapi_path(rule.rule)): sorted(field.data_key or name for name, field in body.fields.items()
                                                      if not field.dump_only)
            for rule, method, view in iter_routes(app)
            for location, body in declared_arguments(view) if location == "json"}


BODY_FIELDS = _body_fields(FUZZED_APP)


def _taken_path_values(app) -> dict:
    """(documented path) -> {parameter: the values its document rules out} (the names of
    static sibling routes, api/openapi._exclude_static_siblings)."""
    paths = app.test_client().get("/api/openapi.json").get_json()["paths"]
    return {path: {p["name"]: set(p["schema"]["not"]["enum"]) for p in item.get("parameters", [])
                   if p.get("in") == "path" and "not" in p.get("schema", {})}
            for path, item in paths.items()}


TAKEN_PATH_VALUES = _taken_path_values(FUZZED_APP)


def _ruled_out(case) -> bool:
    """Whether a path parameter holds a value the document rules out (`not`: a static sibling
    route's name, which the router sends to that route). The fuzzer's phases do not all honour
    `not` (nor a filter hook), so such a case, which is no case of this operation, is passed."""
    taken = TAKEN_PATH_VALUES.get(case.operation.path, {})
    return any(str(value) in taken.get(name, ()) for name, value in (case.path_parameters or {}).items())


def _readable(value, depth=1):
    """`value` with what the body reader refuses wherever it sits (integers past 64 bits,
    NaN and infinity, nesting past MAX_DEPTH) made plain. The fuzzer fills the free objects a
    body declares (any keys, such as a journey's `data`) with any JSON at all; the document
    declares the reader's limits on every declared field (integers bounded to 64 bits) and in
    its decisions, but JSON Schema cannot bound "any value" of a free object without the
    negative checks calling its other values wrong, so those values are kept readable here.
    (Every other object of a client's body says additionalProperties: false, and a field it
    does not declare is refused: 400 unknown_field.)"""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if INT64_MIN <= value <= INT64_MAX else 0
    if isinstance(value, float):
        return value if math.isfinite(value) else 0.0
    if isinstance(value, (list, dict)) and depth >= MAX_DEPTH - 1:
        return type(value)()
    if isinstance(value, list):
        return [_readable(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: _readable(item, depth + 1) for key, item in value.items()}
    return value


@schema.hook
def flatmap_body(ctx, body):
    """Two in three valid bodies get hostile values: in one declared field (the rest of the
    body as generated, so the handler is reached when the value is readable) or in several,
    and maybe under a hostile key. Every declared field of every route is a candidate, so the
    fuzzer reaches them all, not only those it happened to generate."""
    if not isinstance(body, dict) or not any(declared.is_valid(body) for declared in ctx.operation.body):
        # A body the fuzzer made invalid on purpose stays as it is: poisoning (or making it
        # readable) could mend the very field it broke, and the body would no longer be the
        # refusal it expects.
        return st.just(body)
    body = _readable(body)
    names = BODY_FIELDS.get((ctx.operation.method.upper(), ctx.operation.path), [])
    if not names:
        return st.just(body)
    one_field = st.builds(lambda name, value: {name: value}, st.sampled_from(names), HOSTILE_VALUES)
    some_fields = st.fixed_dictionaries({}, optional={name: HOSTILE_VALUES for name in names})
    extra_key = st.dictionaries(HOSTILE_KEYS, HOSTILE_TEXT, max_size=1)
    poisoned = st.builds(lambda fields, extra: _written({**body, **extra, **fields}),
                         st.one_of(one_field, some_fields), extra_key)
    # Two in three: the rest still fuzz what the document allows, with the other phases.
    return st.one_of(st.just(body), poisoned, poisoned)


# Operations that answer 401 to a session without an account before reading anything: the
# fuzzer calls them signed in, so their bodies and fields are reached too. (The billing
# webhook checks its signature before the body, so unsigned fuzz stops there: the bad-body
# test signs what it sends.)
ACCOUNT_OPERATIONS = {f"{method} {openapi_path(rule.rule)}" for rule, method, view in iter_routes(FUZZED_APP)
                      if declaration_of(view).requires_account}


def test_the_fuzzer_knows_every_body_field_and_every_route_that_needs_an_account():
    assert len(BODY_FIELDS) >= 20 and all(BODY_FIELDS.values())
    assert ("POST", "/api/select") in BODY_FIELDS and "product_id" in BODY_FIELDS[("POST", "/api/select")]
    assert {"POST /api/ai/edit", "POST /api/research-workspace"} <= ACCOUNT_OPERATIONS


@pytest.fixture
def account_cookie(founder, run_jobs):
    client = new_account(founder, run_jobs, "fuzzed@example.com")
    return client.get_cookie("ff_session").value


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_matches_its_document(case, worker, request):
    # Every built-in check runs (no server error, status codes, content types, headers and
    # bodies as documented, schema-violating input refused, schema-valid input accepted). The
    # only exclusions are schemathesis.toml's, each with its reason (an operation that refuses
    # a well-formed value for what it names, as an unknown product).
    if _ruled_out(case):
        return
    cookies = {}
    if case.operation.label in ACCOUNT_OPERATIONS:
        cookies["ff_session"] = request.getfixturevalue("account_cookie")
    # A body the flatmap_body hook poisoned (written out as bytes) holds values the document
    # rules out (NUL, lone surrogates, numbers past 64 bits, nesting past the limit): it is no
    # positive case, so only the other checks judge its answer.
    excluded = [positive_data_acceptance] if isinstance(case.body, bytes) else []
    case.call_and_validate(cookies=cookies, excluded_checks=excluded)
