"""The ff_session cookie (spec 2.1, decisions.md, reliability guide)."""
import re

import pytest

from api import create_app
from config import use_settings
from models.session import Session
from services.sessions import hash_token
from tests.conftest import SETTINGS


def _set_cookie_headers(response):
    return [h for h in response.headers.getlist("Set-Cookie") if h.startswith("ff_session=")]


def _value(header):
    return header.split(";", 1)[0].split("=", 1)[1]


def test_first_response_sets_a_32_hex_cookie_with_the_spec_attributes(client):
    response = client.get("/api/health")
    [header] = _set_cookie_headers(response)
    assert re.fullmatch(r"[0-9a-f]{32}", _value(header))
    attributes = [part.strip() for part in header.split(";")[1:]]
    assert "Path=/" in attributes
    assert "Max-Age=31536000" in attributes
    assert "HttpOnly" in attributes
    assert "SameSite=Lax" in attributes
    assert not any(a.lower().startswith("domain") for a in attributes)
    assert "Secure" not in attributes  # BASE_URL is http in the tests


def test_the_value_is_stored_in_that_same_request_and_only_as_a_hash(client):
    value = _value(_set_cookie_headers(client.get("/api/health"))[0])
    assert Session.select().where(Session.token_hash == hash_token(value)).count() == 1
    assert Session.select().where(Session.token_hash == value).count() == 0


def test_a_valid_cookie_is_kept(client):
    first = client.get("/api/health")
    value = _value(_set_cookie_headers(first)[0])
    second = client.get("/api/health")
    assert _set_cookie_headers(second) == []
    assert client.get_cookie("ff_session").value == value
    assert Session.select().count() == 1


@pytest.mark.parametrize("made_up", ["0123456789abcdef0123456789abcdef", "not-hex", "A" * 32, "", "0" * 31])
def test_a_value_the_server_never_issued_is_replaced(client, made_up):
    client.set_cookie("ff_session", made_up)
    response = client.get("/api/health")
    [header] = _set_cookie_headers(response)
    fresh = _value(header)
    assert fresh != made_up and re.fullmatch(r"[0-9a-f]{32}", fresh)
    assert Session.get_or_none(Session.token_hash == hash_token(made_up)) is None


def test_every_kind_of_response_carries_the_cookie_when_missing(client):
    for path, status in (("/api/nope", 404), ("/api/health", 200), ("/nope", 404), ("/", 200)):
        response = client.get(path)
        assert response.status_code == status
        assert len(_set_cookie_headers(response)) == 1
        client.delete_cookie("ff_session")


def _sessionless_requests(app):
    """(method, path) of every route declared session=False, its parameters filled in."""
    from api.routing import declaration_of

    for rule in app.url_map.iter_rules():
        declaration = declaration_of(app.view_functions[rule.endpoint])
        if declaration is None or declaration.session:
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", lambda m: "app/main.js" if m.group(1) == "filename" else "x", rule.rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield method, path


def test_routes_declared_without_sessions_neither_issue_a_cookie_nor_store_a_session(app, client):
    requests = list(_sessionless_requests(app))
    paths = {path for _method, path in requests}
    # Static files, the public store pages, the store's funnel events and the provider paths
    # are among them: none gives a visitor a founder's cookie. The spec's public endpoints (the
    # registries, the brief, the track record) are not: they issue it (tests/test_cookie_rule.py).
    assert {"/static/app/main.js", "/store/x/", "/store/x/x", "/media/x", "/pay/sandbox/checkout/x", "/api/track",
            "/metrics", "/api/billing/webhook"} <= paths
    assert not paths & {"/api/reasons", "/api/controls", "/api/openapi.json", "/api/brief", "/api/track-record"}
    for method, path in requests:
        response = client.open(path, method=method, json={} if method == "POST" else None)
        assert response.status_code < 500, (method, path, response.status_code)
        assert _set_cookie_headers(response) == [], (method, path)
    assert client.get("/static/app/main.js").status_code == 200
    assert Session.select().count() == 0
    # A route that reads the session still issues one on the same client.
    assert len(_set_cookie_headers(client.get("/api/health"))) == 1


def test_the_owners_preview_still_reads_the_session(client):
    response = client.get("/store/nowhere/preview/")
    assert response.status_code == 404 and len(_set_cookie_headers(response)) == 1


def test_founders_get_distinct_sessions(founder):
    values = {_value(_set_cookie_headers(founder().get("/api/health"))[0]) for _ in range(20)}
    assert len(values) == 20


@pytest.fixture
def https_client():
    app = create_app(SETTINGS.but(base_url="https://shop.example.com"))
    try:
        yield app.test_client()
    finally:
        use_settings(SETTINGS)


def test_cookie_is_secure_when_base_url_is_https(https_client):
    [header] = _set_cookie_headers(https_client.get("/api/health", base_url="https://shop.example.com"))
    assert "Secure" in [part.strip() for part in header.split(";")]
