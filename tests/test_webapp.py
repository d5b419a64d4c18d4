"""GET / serves the browser app's shell (api/webapp.py): its headers, its markup (nothing
inline, which the content security policy would block anyway) and the files it loads.

These use the Flask test client and run in both passes; tests/browser/ checks what Chromium
does with the same shell.
"""
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from api.session import COOKIE_NAME
from api.webapp import APP_CSP

# What each kind of file under /static/app/ must be served as for the browser to use it
# (Chromium refuses a module script that is not served as JavaScript).
CONTENT_TYPES = {
    ".js": ("text/javascript", "application/javascript"),
    ".css": ("text/css",),
    ".svg": ("image/svg+xml",),
}


class Shell(HTMLParser):
    """Every start tag of the page, with its attributes."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def app_files(self) -> set[str]:
        """The /static/app/ URLs the page refers to (scripts, stylesheets, icons, images)."""
        urls = {attrs.get("src") or attrs.get("href") for _, attrs in self.tags}
        return {url for url in urls if url and urlsplit(url).path.startswith("/static/app/")}


def _session_cookies(response):
    return [h for h in response.headers.getlist("Set-Cookie") if h.startswith(f"{COOKIE_NAME}=")]


def test_the_shell_answers_html_with_its_policy_and_headers(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == APP_CSP
    assert response.headers["Cache-Control"] == "private, no-cache"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert len(_session_cookies(response)) == 1


def test_the_sign_in_links_landing_is_the_same_shell(founder):
    shell = founder().get("/")
    landing = founder().get("/?view=home")
    assert landing.status_code == 200
    assert landing.get_data(as_text=True) == shell.get_data(as_text=True)
    for header in ("Content-Type", "Content-Security-Policy", "Cache-Control", "X-Frame-Options"):
        assert landing.headers[header] == shell.headers[header]
    assert len(_session_cookies(landing)) == 1


def test_the_shell_has_no_inline_script_or_style(client):
    shell = Shell(client.get("/").get_data(as_text=True))
    scripts = [attrs for tag, attrs in shell.tags if tag == "script"]
    assert scripts, "the shell loads no script"
    for attrs in scripts:
        assert attrs.get("src") and attrs.get("type") == "module", f"an inline or classic script: {attrs}"
    assert not [tag for tag, _ in shell.tags if tag == "style"], "a <style> element (style-src 'self' blocks it)"
    for tag, attrs in shell.tags:
        handlers = [name for name in attrs if name.startswith("on")]
        assert not handlers, f"<{tag}> has inline event handlers {handlers}"
        assert "style" not in attrs, f"<{tag}> has a style attribute"
        assert not any((value or "").strip().lower().startswith("javascript:") for value in attrs.values()), \
            f"<{tag}> has a javascript: URL"


def test_every_app_file_the_shell_loads_is_served_with_its_type(client):
    files = Shell(client.get("/").get_data(as_text=True)).app_files()
    assert {urlsplit(url).path for url in files} >= {"/static/app/main.js", "/static/app/app.css"}
    for url in sorted(files):
        response = client.get(url)
        assert response.status_code == 200, url
        suffix = urlsplit(url).path[urlsplit(url).path.rfind("."):]
        assert suffix in CONTENT_TYPES, f"{url}: a kind of file the shell did not load before; say how it is served"
        assert response.mimetype in CONTENT_TYPES[suffix], f"{url} is served as {response.mimetype}"


@pytest.mark.parametrize("headers", [
    {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"},  # a link on another site or in a mail
    {"Origin": "https://elsewhere.example"},
], ids=["sec-fetch-site", "origin"])
def test_a_cross_site_get_is_answered_the_shell(client, headers):
    # GET / changes no state, so the cross-site guard (api/http.py) lets other sites link to it.
    response = client.get("/", headers=headers)
    assert response.status_code == 200
    assert response.headers["Content-Security-Policy"] == APP_CSP


def test_the_apps_files_go_out_compressed_and_json_answers_as_they_are(client):
    import gzip
    import json

    script = client.get("/static/app/main.js", headers={"Accept-Encoding": "gzip"})
    assert script.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in script.headers["Vary"]
    assert b"import(" in gzip.decompress(script.data)
    plain = client.get("/static/app/main.js")
    assert "Content-Encoding" not in plain.headers and b"import(" in plain.data
    answer = client.get("/api/reasons", headers={"Accept-Encoding": "gzip, br"})
    assert "Content-Encoding" not in answer.headers and json.loads(answer.data)["count"] > 0
    # A JSON body never varies by the encoding asked for (api/__init__.py asks the compressor
    # only about the types it compresses), so it says none.
    assert "Vary" not in answer.headers


def test_every_screen_module_the_router_names_is_served(client):
    import re

    router = client.get("/static/app/main.js").get_data(as_text=True)
    modules = re.findall(r'import\("\./(screens/[\w-]+\.js)"\)', router)
    assert len(modules) >= 12
    for module in modules:
        response = client.get(f"/static/app/{module}")
        assert response.status_code == 200 and "javascript" in response.headers["Content-Type"], module
        assert "export async function render" in response.get_data(as_text=True), module
