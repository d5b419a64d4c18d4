"""A small web site on 127.0.0.1 for Fix's tests: pages with known defects, served by the
standard library's HTTP server in a thread, and a count of the requests it saw."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# 1x1 PNG, so an image's width and height can be read.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478"
                    "9c6360000002000154a24f5f0000000049454e44ae426082")

HOME = """<!doctype html><html><head><title>Blue Mug Co</title></head><body>
<h1>Blue ceramic mug</h1><h1>Handmade</h1>
<p>A hand-thrown blue ceramic mug that holds 350 ml. Dishwasher safe and made to last.</p>
<p>Price: $24.00</p>
<img src="/img/blue-ceramic-mug.png">
<a href="/about.html">About us</a> <a href="/faq.html">FAQ</a> <a href="/missing.html">Old page</a>
</body></html>"""

ABOUT = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>About Blue Mug Co</title><meta name="description" content="Who makes the blue mugs, and how.">
</head><body><h1>About us</h1><p>We are two potters in a small studio.</p></body></html>"""

FAQ = """<!doctype html><html><head><title>FAQ</title></head><body><h1>Questions</h1>
<p>Does it go in the dishwasher? Yes.</p></body></html>"""


class Site:
    """Serves `pages` ({path: (status, content type, body bytes)}); `.hits` lists the paths asked."""

    def __init__(self, pages: dict | None = None):
        self.pages = pages if pages is not None else default_pages()
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, with_body: bool):
                site.hits.append(self.path)
                status, kind, body = site.pages.get(self.path.split("?")[0], (404, "text/html", b"<h1>Not found</h1>"))
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if with_body:
                    self.wfile.write(body)

            def do_GET(self):  # noqa: N802 (the standard library's name)
                self._answer(True)

            def do_HEAD(self):  # noqa: N802
                self._answer(False)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @property
    def allow(self) -> tuple[str, ...]:
        return (f"127.0.0.1:{self.port}",)


def default_pages() -> dict:
    html = "text/html; charset=utf-8"
    return {"/": (200, html, HOME.encode()), "/about.html": (200, html, ABOUT.encode()),
            "/faq.html": (200, html, FAQ.encode()), "/img/blue-ceramic-mug.png": (200, "image/png", PNG)}
