"""HTTP conventions: JSON for every failure, cache headers, routing, bodies, cross-site."""
import json
import re

import flask
import pytest
from marshmallow import Schema, fields

from api import create_app
from api.openapi import iter_routes
from api.routing import Blueprint
from models import ALL_MODELS
from services.errors import Refused
from tests.conftest import SETTINGS, reconnect
from tests.mailbox import last_link, path_of
from tests.redis_server import RedisServer


class Line(Schema):
    sku = fields.String(required=True)
    quantity = fields.Integer(required=True)
    tags = fields.List(fields.String(), load_default=list)


class EchoBody(Schema):
    product_id = fields.String(required=True, metadata={"reason": "no_product_id"})
    note = fields.String(load_default=None)
    count = fields.Integer(load_default=None)
    flag = fields.Boolean(load_default=None)
    ratio = fields.Float(load_default=None)
    line = fields.Nested(Line, load_default=None)
    lines = fields.List(fields.Nested(Line), load_default=None)
    scores = fields.Dict(keys=fields.String(), values=fields.Integer(), load_default=None)


probe = Blueprint("probe", __name__)


@probe.post("/api/_probe/echo")
@probe.declare(changes_state=True, refuses={409: ["claimed_by_another_founder"]})
@probe.arguments(EchoBody)
@probe.response(200)
def echo(body):
    """Echoes a validated body (test route)."""
    if body["product_id"] == "taken":
        raise Refused("claimed_by_another_founder")
    if body["product_id"] == "boom":
        raise RuntimeError("secret internal detail")
    return {k: v for k, v in body.items() if k not in ("line", "lines", "scores") or v is not None}


@probe.get("/api/_probe/state")
@probe.declare(changes_state=True)
@probe.response(200)
def state():
    """A GET that changes state, like find (test route)."""
    return {"status": "ok"}


@probe.get("/api/_probe/folder/", strict_slashes=True)
@probe.declare(changes_state=False)
@probe.response(200)
def folder():
    """A route that insists on its trailing slash, so the router redirects (test route)."""
    return {"status": "ok"}


@probe.get("/api/_probe/old", redirect_to="/api/_probe/folder/")
@probe.declare(changes_state=False)
@probe.response(200)
def old():
    """A rule that redirects elsewhere (test route)."""
    return {"status": "ok"}


@probe.post("/api/_probe/mine")
@probe.declare(changes_state=True, requires_account=True, no_body=True)
@probe.response(200)
def mine():
    """An action that must belong to a signed-in account (test route)."""
    return {"status": "ok"}


@probe.get("/api/_probe/bound")
@probe.declare(changes_state=False)
@probe.response(200)
def database_bound():
    """The bound this request's database waits are under (test route)."""
    from models.db import current_bound

    return {"seconds": current_bound()}


HUNG_REDIS = {}  # "url": a Redis that takes connections and answers nothing (the test's own)


@probe.get("/api/_probe/redis")
@probe.declare(changes_state=False)
@probe.response(200)
def redis_read():
    """Reads a key from the hung Redis, as a route that needs Redis itself would (test route)."""
    import redis

    return {"value": redis.Redis.from_url(HUNG_REDIS["url"], socket_timeout=0.2, socket_connect_timeout=0.2).get("x")}


@probe.get("/api/_probe/busy")
@probe.declare(changes_state=False)
@probe.response(200)
def busy():
    """Fails as a query does when every pooled connection stayed busy (test route)."""
    from playhouse.pool import MaxConnectionsExceeded

    raise MaxConnectionsExceeded("Max connections exceeded, timed out attempting to connect.")


# Routes that declare nothing: the guards must treat them as state-changing (fail closed).
bare = flask.Blueprint("bare", __name__)


@bare.get("/api/_probe/undeclared")
def undeclared():
    """A GET route with no declaration at all (test route)."""
    return {"status": "ok"}


@bare.post("/api/_probe/undeclared")
def undeclared_post():
    """A POST route with no declaration at all (test route)."""
    return {"status": "ok"}


@pytest.fixture(scope="module")
def probe_app(app):
    # A second instance of the real app, with two routes added that exercise the contract machinery.
    probed = create_app(SETTINGS)
    probed.register_blueprint(probe)
    probed.register_blueprint(bare)
    return probed


@pytest.fixture
def c(probe_app):
    return probe_app.test_client()


def _refusal(response, status, reason):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["reason"] == reason
    assert isinstance(body["explanation"], str) and body["explanation"]
    assert body["status"] in ("refused", "error")
    return body


def test_unknown_api_path_is_json_404(c):
    body = _refusal(c.get("/api/no/such/thing"), 404, "not_found")
    assert body["status"] == "error"


def test_wrong_method_is_json_405_with_allow(c):
    response = c.delete("/api/health")
    _refusal(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "HEAD"}


def test_uncaught_exception_is_json_500_with_request_id_and_no_traceback(c, caplog):
    response = c.post("/api/_probe/echo", json={"product_id": "boom"})
    body = _refusal(response, 500, "internal_error")
    assert body["request_id"] == response.headers["X-Request-Id"]
    assert "secret internal detail" not in response.get_data(as_text=True)
    assert "Traceback" not in response.get_data(as_text=True)
    logged = [r for r in caplog.records if getattr(r, "fields", {}).get("request_id") == body["request_id"] and r.exc_info]
    assert logged, "the traceback is logged under the request id"


def test_domain_refusal_gets_the_status_the_route_declares(c):
    body = _refusal(c.post("/api/_probe/echo", json={"product_id": "taken"}), 409, "claimed_by_another_founder")
    assert body["status"] == "refused"


def test_cache_control_on_api(c):
    for response in (c.get("/api/health"), c.get("/api/nope"), c.post("/api/_probe/echo", data="{")):
        assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"


def test_query_strings_never_change_the_handler(c):
    plain = c.get("/api/reasons").get_json()
    for query in ("?_=123", "?utm_source=x&view=home", "?method=POST&_method=DELETE", "?format=html"):
        response = c.get("/api/reasons" + query)
        assert response.status_code == 200 and response.get_json() == plain


def test_trailing_slash_is_the_same_route_without_a_redirect(c):
    response = c.get("/api/reasons/")
    assert response.status_code == 200 and response.get_json()["count"] > 0


@pytest.mark.parametrize("data, content_type", [
    ("{", "application/json"),
    ("[1, 2]", "application/json"),
    ("42", "application/json"),
    ('"text"', "application/json"),
    ('{"product_id": NaN}', "application/json"),
    ('{"product_id": "a\\u0000b"}', "application/json"),
    ("product_id=x", "application/x-www-form-urlencoded"),
    ('{"product_id": "x"}', "text/plain"),
    (b"\xff\xfe\x00", "application/json"),
])
def test_a_body_that_is_not_a_json_object_is_400_invalid_json(c, data, content_type):
    _refusal(c.post("/api/_probe/echo", data=data, content_type=content_type), 400, "invalid_json")


def test_a_missing_field_is_400_with_the_fields_own_reason(c):
    body = _refusal(c.post("/api/_probe/echo", json={}), 400, "no_product_id")
    assert "product_id" in body["fields"]


def test_a_mistyped_field_is_400(c):
    _refusal(c.post("/api/_probe/echo", json={"product_id": 12}), 400, "no_product_id")
    _refusal(c.post("/api/_probe/echo", json={"product_id": "x", "note": ["list"]}), 400, "invalid_request")


def test_valid_body_passes(c):
    response = c.post("/api/_probe/echo", json={"product_id": "p1", "note": "\u202eevil"})
    assert response.status_code == 200
    assert response.get_json() == {"product_id": "p1", "note": "\u202eevil", "count": None, "flag": None, "ratio": None}


def test_unknown_fields_are_refused_at_every_level_but_a_free_object_takes_any_key(c):
    body = _refusal(c.post("/api/_probe/echo", json={"product_id": "p1", "extra": 1, "line": {"sku": "a", "quantity": 1, "qty": 2},
                                                      "lines": [{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": 1, "tag": []}]}),
                    400, "unknown_field")
    assert body["field"] == "extra" and body["fields"] == ["extra", "line.qty", "lines[1].tag"]
    assert "'lines[1].tag' (did you mean 'tags'?)" in body["explanation"]
    assert c.post("/api/_probe/echo", json={"product_id": "p1", "scores": {"any key": 1}}).status_code == 200


@pytest.mark.parametrize("field, value", [("count", "5"), ("count", True), ("count", 1.5), ("flag", 0), ("flag", "true"),
                                          ("ratio", "1.5"), ("ratio", False), ("note", 7)])
def test_values_of_the_wrong_json_type_are_refused_not_coerced(c, field, value):
    _refusal(c.post("/api/_probe/echo", json={"product_id": "p1", field: value}), 400, "invalid_request")


def test_values_of_the_right_json_type_are_accepted(c):
    body = c.post("/api/_probe/echo", json={"product_id": "p1", "count": 5, "flag": False, "ratio": 2}).get_json()
    assert (body["count"], body["flag"], body["ratio"]) == (5, False, 2.0)


def test_a_two_megabyte_body_is_413(c):
    big = json.dumps({"product_id": "x" * (2 * 1024 * 1024)})
    _refusal(c.post("/api/_probe/echo", data=big, content_type="application/json"), 413, "payload_too_large")


def test_a_big_body_to_a_get_route_is_413_too(c):
    _refusal(c.post("/api/health", data="x" * (2 * 1024 * 1024)), 413, "payload_too_large")


def test_cross_site_post_changes_nothing(c):
    _refusal(c.post("/api/_probe/echo", json={"product_id": "p"}, headers={"Sec-Fetch-Site": "cross-site"}),
             403, "cross_site_request")
    _refusal(c.post("/api/_probe/echo", json={"product_id": "p"}, headers={"Origin": "https://evil.example"}),
             403, "cross_site_request")


def test_same_site_post_is_allowed(c):
    for headers in ({"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"}, {"Sec-Fetch-Site": "none"}, {}):
        assert c.post("/api/_probe/echo", json={"product_id": "p"}, headers=headers).status_code == 200


def test_state_changing_get_is_guarded_but_plain_get_is_not(c):
    _refusal(c.get("/api/_probe/state", headers={"Sec-Fetch-Site": "cross-site"}), 403, "cross_site_request")
    assert c.get("/api/health", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200


def test_head_answers_without_a_body(c):
    response = c.head("/api/health")
    assert response.status_code == 200 and response.get_data() == b""


def test_non_api_paths_are_json_too(c):
    response = c.get("/definitely/not/here")
    assert response.status_code == 404 and response.mimetype == "application/json"


def test_every_response_is_nosniff(c):
    assert c.get("/api/health").headers["X-Content-Type-Options"] == "nosniff"


@probe.get("/api/_probe/count")
@probe.declare(changes_state=False)
@probe.response(200)
def count():
    """Counts catalog products (test route that needs the database)."""
    from models.catalog import Product

    return {"products": Product.select().count()}


def test_unreachable_database_is_json_503_and_the_service_recovers(c):
    from models.db import init_db

    try:
        init_db("postgresql://postgres@127.0.0.1:1/nothing_listens_here")
        _refusal(c.get("/api/_probe/count"), 503, "database_unavailable")
    finally:
        reconnect()
    assert c.get("/api/_probe/count").get_json() == {"products": 0}


def test_an_action_that_must_belong_to_an_account_is_401_no_account(c, run_jobs):
    _refusal(c.post("/api/_probe/mine"), 401, "no_account")
    c.post("/api/account", json={"email": "someone@x.com"})
    _refusal(c.post("/api/_probe/mine"), 401, "no_account")  # a saved address proves nothing
    run_jobs()
    assert c.get(path_of(last_link("someone@x.com"))).status_code == 303  # the link, opened here, signs in
    assert c.post("/api/_probe/mine").get_json() == {"status": "ok"}


def test_a_request_waits_on_the_database_within_db_wait_seconds_and_the_thread_is_unbounded_after(c):
    from models.db import current_bound

    assert c.get("/api/_probe/bound").get_json() == {"seconds": SETTINGS.db_wait_seconds}
    assert current_bound() is None  # the teardown gave the thread its own bound back


def test_a_redis_that_does_not_answer_is_json_503_queue_unavailable_not_a_500(c):
    with RedisServer() as server:
        server.hang()
        HUNG_REDIS["url"] = server.url()
        try:
            body = _refusal(c.get("/api/_probe/redis"), 503, "queue_unavailable")
        finally:
            server.unhang()
    assert body["status"] == "error"


def test_an_exhausted_connection_pool_is_json_503_not_a_500(c):
    body = _refusal(c.get("/api/_probe/busy"), 503, "database_unavailable")
    assert body["status"] == "error"


@pytest.mark.parametrize("field, value", [
    ("line", {"sku": "a", "quantity": "2"}), ("line", {"sku": 5, "quantity": 2}), ("line", "not an object"),
    ("lines", [{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": True}]), ("lines", {"sku": "a"}),
    ("line", {"sku": "a", "quantity": 1, "tags": ["ok", 3]}), ("scores", {"x": "1"}), ("scores", {"x": 1.5}),
])
def test_values_of_the_wrong_json_type_are_refused_at_every_nesting_level(c, field, value):
    body = _refusal(c.post("/api/_probe/echo", json={"product_id": "p1", field: value}), 400, "invalid_request")
    assert field in body["fields"]


def test_nested_values_of_the_right_json_type_are_accepted(c):
    sent = {"product_id": "p1", "line": {"sku": "a", "quantity": 2, "tags": ["x"]},
            "lines": [{"sku": "b", "quantity": 3, "tags": []}], "scores": {"x": 1}}
    body = c.post("/api/_probe/echo", json=sent).get_json()
    assert (body["line"], body["lines"], body["scores"]) == (sent["line"], sent["lines"], sent["scores"])


def test_validation_never_answers_the_librarys_422(c):
    for sent in ({}, {"product_id": 5}, {"product_id": "p", "line": {"quantity": 1}}):
        response = c.post("/api/_probe/echo", json=sent)
        assert response.status_code == 400, response.get_data(as_text=True)


def test_a_route_that_declares_nothing_is_guarded_as_state_changing(c):
    _refusal(c.get("/api/_probe/undeclared", headers={"Sec-Fetch-Site": "cross-site"}), 403, "cross_site_request")
    _refusal(c.post("/api/_probe/undeclared", headers={"Origin": "https://evil.example"}), 403, "cross_site_request")
    assert c.get("/api/_probe/undeclared", headers={"Sec-Fetch-Site": "same-origin"}).get_json() == {"status": "ok"}


def test_a_nul_in_a_query_parameter_is_400_not_a_database_error(c):
    _refusal(c.get("/api/discover?job_id=a%00b"), 400, "invalid_request")
    login = c.get("/login?token=%00")  # a sign-in link always redirects (spec 4.2)
    assert login.status_code == 303 and login.headers["Location"] == "/#login?e=invalid_link"


# --- No redirect trusts the Host header ----------------------------------------------------

HOSTILE = {"Host": "evil.example", "X-Forwarded-Host": "evil.example", "Forwarded": "host=evil.example"}


def _raw(client, method, path, **kwargs):
    # The path goes to the app as sent: the test client would read a leading "//" as a host.
    return client.open("/", method=method, environ_overrides={"PATH_INFO": path}, **kwargs)


def _slash_variants(path):
    """The path with one extra slash at each separator, and with trailing slashes."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        yield "/".join(parts[:i]) + "//" + "/".join(parts[i:]), True
    yield path.rstrip("/") + "/", False
    yield path.rstrip("/") + "//", True


def _routes(app, method):
    return sorted({re.sub(r"<[^>]+>", "x", rule.rule) for rule, m, _view in iter_routes(app) if m == method})


def _location_problem(response, sent):
    location = response.headers.get("Location")
    if location is None:
        return None
    relative = location.startswith("/") and not location.startswith(("//", "/\\"))
    if "evil.example" in location or not (relative or location.startswith(SETTINGS.base_url + "/")):
        return f"{sent}: Location {location}"
    return None


def _answer_problem(response, sent, empty_segment):
    if (problem := _location_problem(response, sent)) is not None:
        return problem
    if empty_segment:
        # A path with an empty segment is no route's: the JSON 404 of any unknown path.
        if response.status_code != 404 or response.mimetype != "application/json":
            return f"{sent}: {response.status_code} {response.mimetype}, not a JSON 404"
        return None
    redirect = 300 <= response.status_code < 400 and "Location" in response.headers  # GET /api/auth/callback's 303
    if re.sub("^/+", "/", sent).startswith("/api/") and response.mimetype != "application/json" and not redirect:
        return f"{sent}: {response.status_code} {response.mimetype} under /api/"
    return None


def test_no_get_answer_redirects_to_the_host_header_and_api_answers_are_json(app, founder):
    client = founder()
    problems = []
    for path in _routes(app, "GET"):
        for sent, empty_segment in _slash_variants(path):
            response = _raw(client, "GET", sent, headers=HOSTILE)
            problems.append(_answer_problem(response, sent, empty_segment))
    assert [p for p in problems if p] == []
    assert len(problems) > 100  # the walk really went through the routes


def test_a_cross_site_post_to_a_slash_variant_never_reaches_a_handler(app, founder):
    client = founder()
    client.get("/api/health", headers=HOSTILE)  # the session (its cookie kept for that host) exists before counting
    callbacks = {re.sub(r"<[^>]+>", "x", rule.rule) for rule, m, view in iter_routes(app)
                 if m == "POST" and view.declaration.callback}
    before = {model.__name__: model.select().count() for model in ALL_MODELS}
    problems = []
    for path in _routes(app, "POST"):
        for sent, empty_segment in _slash_variants(path):
            response = _raw(client, "POST", sent, json={"email": "victim@example.com", "product_id": "p1"},
                            headers={**HOSTILE, "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
            problems.append(_answer_problem(response, sent, empty_segment))
            # Provider callbacks take no cookie and are exempt from the guard (they check a signature).
            if path not in callbacks and response.status_code not in (403, 404):
                problems.append(f"{sent}: {response.status_code} for a cross-site POST")
    assert [p for p in problems if p] == []
    assert {model.__name__: model.select().count() for model in ALL_MODELS} == before


def test_a_doubled_slash_is_a_json_404_not_an_html_redirect(c):
    response = _raw(c, "GET", "/api//health", headers=HOSTILE)
    _refusal(response, 404, "not_found")
    assert "Location" not in response.headers
    _refusal(_raw(c, "POST", "/api//account", json={"email": "a@b.c"}), 404, "not_found")


def test_a_redirect_the_router_still_makes_is_json_and_relative(c):
    # A slash added keeps the query; a rule's redirect_to names its whole target.
    for sent, location in (("/api/_probe/folder", "/api/_probe/folder/?q=1"), ("/api/_probe/old", "/api/_probe/folder/")):
        response = c.get(sent, query_string={"q": "1"}, headers=HOSTILE)
        assert response.status_code == 308, response.get_data(as_text=True)
        assert response.headers["Location"] == location
        assert response.get_json() == {"status": "moved", "location": location}
        assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert c.get("/api/_probe/folder/", headers=HOSTILE).get_json() == {"status": "ok"}


def test_a_nul_in_the_path_is_a_json_404_on_every_route(app, founder):
    # In a path parameter it would reach a database lookup (PostgreSQL cannot compare text
    # with a NUL); no path names anything with one.
    client = founder()
    problems = []
    for rule, method, _view in iter_routes(app):
        if method not in ("GET", "POST"):
            continue
        sent = re.sub(r"<[^>]+>", "a%00b", rule.rule) if "<" in rule.rule else rule.rule.rstrip("/") + "%00"
        response = client.open(sent, method=method)
        body = response.get_json(silent=True) or {}
        if (response.status_code, response.mimetype, body.get("reason")) != (404, "application/json", "not_found"):
            problems.append(f"{method} {sent}: {response.status_code} {response.get_data()[:120]!r}")
    assert problems == []
