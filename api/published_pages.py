"""Published store pages before Flask: a WSGI layer that answers a GET or HEAD of a public
store page on the service's own host from memory, when this process already holds both the
store's pointer and the page rendered (services/store/published.py), and a conditional
request naming its ETag with a 304. Everything else goes on to the app as before, and the
app's store routes (api/storefront.py) are what fill that memory: a first request, a page
not rendered here yet, a connected domain's Host, a request with a body, an
Accept-Encoding with weights, any other path.

What it answers is what the app would (tests/test_store_static.py compares the two): the
route's headers, the app's own (X-Request-Id, nosniff, Referrer-Policy), flask-compress's
encoding, Vary and ETag suffix, no cookie (the routes are declared session=False), the
request's log line and its metrics. It exists because the page itself is cheap now and
Flask's request machinery (contexts, hooks, the signed-cookie session) is most of the
cost of a cached answer.
"""
from __future__ import annotations

import re
import time

from flask_compress.flask_compress import _choose_algorithm, _compress_data
from werkzeug.http import parse_etags

from api import before_flask, storefront
from config import get_settings
from services.store import published

_PATH = re.compile(r"/store/([a-z0-9-]{1,80})/([a-z.]*)")


class PublishedPages:
    def __init__(self, app, compress):
        self.app, self.compress = app, compress
        self.next = app.wsgi_app

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        answer = self._answer(environ)
        if answer is None:
            return self.next(environ, start_response)
        status, headers, body, route = answer
        return before_flask.send(environ, start_response, status, headers, body, route, started)

    def _answer(self, environ):
        method = environ.get("REQUEST_METHOD")
        if method not in ("GET", "HEAD") or not before_flask.without_body(environ):
            return None
        found = _PATH.fullmatch(environ.get("PATH_INFO", ""))
        if found is None or not storefront.is_public_page(found.group(2)):
            return None
        if not before_flask.on_own_host(environ):
            return None  # maybe a connected domain: the app's host routing decides
        settings = get_settings()
        accepted = environ.get("HTTP_ACCEPT_ENCODING", "")
        if ";" in accepted:
            return None
        slug, name = found.groups()
        pointer = published.known(slug)
        if pointer is None:
            return None
        csp = storefront.csp_for(on_domain=False)
        tag = storefront.published_tag(slug, name, pointer, base=f"/store/{slug}", origin=settings.base_url, csp=csp)
        route = "/store/<slug>/" if name == "" else "/store/<slug>/<name>"
        headers = [("Content-Security-Policy", csp), ("X-Frame-Options", "DENY"),
                   ("Cache-Control", storefront.PUBLISHED_CACHE), ("Vary", "Accept-Encoding")]
        matched = storefront.matching_tag(parse_etags(environ.get("HTTP_IF_NONE_MATCH")), tag)
        if matched is not None:
            return "304 NOT MODIFIED", [*headers, ("ETag", matched)], b"", route
        body = published.kept(tag)
        if body is None:
            return None
        content_type = storefront.page_type(name)
        compress = self.compress
        algorithm = _choose_algorithm(compress.enabled_algorithms, accepted)
        if algorithm is not None and content_type.split(";")[0] in compress.compress_mimetypes_set \
                and len(body) >= self.app.config["COMPRESS_MIN_SIZE"]:
            body = published.kept_encoded(tag, body, algorithm, lambda data: _compress_data(self.app, data, algorithm))
            headers += [("Content-Encoding", algorithm), ("ETag", f'"{tag.strip(chr(34))}:{algorithm}"')]
        else:
            headers.append(("ETag", tag))
        return "200 OK", [("Content-Type", content_type), ("Content-Length", str(len(body))), *headers], body, route
