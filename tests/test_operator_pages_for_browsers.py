"""Pages for browsers, JSON for clients (issue 51 point 5): /admin and /marketing with no
ADMIN_PASSWORD answer a browser with an HTML page saying how to turn them on (JSON to anyone
else); the admin pages' blank favicon (`data:,`) is allowed by their own policy; and a path
with an empty segment, leading ones included (`//api/health`), is the JSON 404 of an unknown
path, as the README says."""
from __future__ import annotations

import re

import pytest

from api.admin import PAGE_CSP

PASSWORD = "operator-password-of-the-tests"
AUTH = ("ops", PASSWORD)
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def never_kept(response):
    directives = {d.strip() for d in response.headers["Cache-Control"].split(",")}
    assert {"no-store", "private"} <= directives and response.headers.getlist("Set-Cookie") == []
    assert response.headers["X-Frame-Options"] == "DENY" and response.headers["Content-Security-Policy"] == PAGE_CSP


@pytest.mark.parametrize("path", ["/admin", "/marketing"])
def test_a_browser_is_told_how_to_turn_the_closed_pages_on(client, path):
    response = client.get(path, headers={"Accept": BROWSER})
    assert response.status_code == 403 and response.mimetype == "text/html"
    never_kept(response)
    assert "Accept" in response.headers["Vary"]
    html = response.get_data(as_text=True)
    assert "<h1>The operator pages are turned off</h1>" in html
    assert "<code>ADMIN_PASSWORD</code>" in html and "16 characters" in html and "Restart" in html
    assert "<script" not in html


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "application/json, text/html;q=0.5"])
def test_a_client_is_answered_json_when_the_pages_are_closed(client, accept):
    response = client.get("/admin", headers={"Accept": accept} if accept else {})
    assert response.status_code == 403 and response.mimetype == "application/json"
    assert response.get_json()["reason"] == "admin_not_configured"
    never_kept(response)


def test_with_a_password_set_a_browser_without_it_is_still_asked_for_it(client, settings_with):
    settings_with(admin_password=PASSWORD)
    response = client.get("/admin", headers={"Accept": BROWSER})
    assert response.status_code == 401 and response.headers["WWW-Authenticate"].startswith("Basic")
    assert response.get_json()["reason"] == "admin_credentials_required"


def _allows(policy: str, directive: str, source: str) -> bool:
    found = re.search(rf"(?:^|;)\s*{directive}\s+([^;]*)", policy)
    if found is None:  # the directive falls back to default-src
        return _allows(policy, "default-src", source) if directive != "default-src" else False
    return source in found.group(1).split()


@pytest.mark.parametrize("path", ["/admin", "/marketing"])
def test_the_admin_pages_favicon_is_allowed_by_their_policy(client, settings_with, path):
    settings_with(admin_password=PASSWORD)
    response = client.get(path, auth=AUTH)
    assert response.status_code == 200
    icons = re.findall(r'<link rel="icon" href="([^"]*)"', response.get_data(as_text=True))
    policy = response.headers["Content-Security-Policy"]
    assert policy == PAGE_CSP and icons
    for icon in icons:
        source = icon.split(",")[0].split(":")[0] + ":" if icon.startswith("data:") else "'self'"
        assert _allows(policy, "img-src", source), (icon, policy)
    assert "script-src" not in policy and "unsafe" not in policy


def _raw(client, method, path, **kwargs):
    # The path as sent: the test client would read a leading "//" as a host name.
    return client.open("/", method=method, environ_overrides={"PATH_INFO": path}, **kwargs)


@pytest.mark.parametrize("path", ["//api/health", "///api/health", "/api//health", "/api/health//", "//admin",
                                  "//store/p/" + "0" * 32, "//"])
def test_a_path_with_an_empty_segment_is_a_json_404(client, path):
    response = _raw(client, "GET", path, headers={"Accept": BROWSER})
    assert response.status_code == 404 and response.mimetype == "application/json", path
    assert response.get_json()["reason"] == "not_found" and "Location" not in response.headers


def test_a_post_to_a_path_with_a_leading_empty_segment_reaches_no_route(client):
    from models.page import Page

    response = _raw(client, "POST", "//api/pages", json={"intent": "a returns page"})
    assert response.status_code == 404 and response.get_json()["reason"] == "not_found"
    assert Page.select().count() == 0
    assert client.get("/api/health").status_code == 200 and client.get("/api/health/").status_code == 200
