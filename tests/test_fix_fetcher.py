"""The Fix fetcher (integrations/web): a URL a stranger gives is fetched only from a public
address, on 80 or 443, by http(s), connected to the very address that was checked, with every
redirect checked again, within 10 s and 2 MiB, and nothing of ours sent along.

Inward URLs are proved refused before any connection: a real TCP listener on 127.0.0.1 (and
::1 where the machine has it) counts what it accepts, the fetcher is given that listener's
port as an acceptable one and a resolver that answers 127.0.0.1 for every name (so only the
rule under test stands between the URL and the listener), and socket.connect is watched too.
"""
from __future__ import annotations

import contextlib
import gzip
import http.server
import ipaddress
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
import tracemalloc
import zlib
from urllib.parse import parse_qs, urlsplit

import pytest

from config import Settings, SettingsError, load_settings
from integrations.web import FAILURES, REFUSALS, FetchFailed, FetchRefused
from integrations.web.addresses import literal_host, public_address
from integrations.web.fetch import USER_AGENT, Fetcher, fetcher_for


class Listener:
    """A TCP listener on loopback that counts the connections it accepts."""

    def __init__(self):
        self.accepted = 0
        self.sockets = [socket.create_server(("127.0.0.1", 0))]
        self.port = self.sockets[0].getsockname()[1]
        with contextlib.suppress(OSError):  # the same port on ::1 too, where the machine has IPv6
            self.sockets.append(socket.create_server(("::1", self.port), family=socket.AF_INET6))
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._accept, args=(s,), daemon=True) for s in self.sockets]
        for thread in self._threads:
            thread.start()

    def _accept(self, server):
        server.settimeout(0.05)
        while not self._stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            conn.close()

    def close(self):
        self._stop.set()
        for thread in self._threads:
            thread.join()
        for server in self.sockets:
            server.close()


BOMB = {}


def _bomb() -> bytes:
    if "gzip" not in BOMB:  # 32 MiB of zeros, about 32 KiB on the wire
        BOMB["gzip"] = gzip.compress(b"\0" * (32 * 1024 * 1024), compresslevel=9)
    return BOMB["gzip"]


class Site(http.server.BaseHTTPRequestHandler):
    """A local test site: pages, redirects, cookies, slow and oversized answers."""

    seen: list = []

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        if self.path == "/trickle-headers":
            return self.route_trickle_headers(None)
        if self.path == "/head-refused":
            return self._answer(405, b"")
        self._answer(200 if self.path != "/missing" else 404, b"")

    def do_GET(self):
        url = urlsplit(self.path)
        Site.seen.append((self.path, {name.lower(): value for name, value in self.headers.items()}))
        route = getattr(self, "route_" + url.path.strip("/").split("/")[0].replace("-", "_"), None)
        if route is None:
            return self._answer(404, b"not here")
        route(url)

    def _answer(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def route_page(self, url):
        self._answer(200, b"<html><title>Shop</title></html>", [("Content-Type", "text/html")])

    def route_head_refused(self, url):
        self.route_page(url)

    def route_echo(self, url):
        self._answer(200, json.dumps(dict(self.headers.items())).encode())

    def route_to(self, url):
        self._answer(302, b"", [("Location", parse_qs(url.query)["u"][0])])

    def route_set_cookie(self, url):
        self._answer(302, b"", [("Set-Cookie", "sid=secret; Path=/"), ("Location", "/echo")])

    def route_loop(self, url):
        self._answer(302, b"", [("Location", f"/loop/{int(url.path.split('/')[2]) + 1}")])

    def route_big(self, url):
        self._answer(200, b"x" * 50_000)

    def route_exact(self, url):
        self._answer(200, b"x" * 10_000)

    def route_big_unknown(self, url):
        self.send_response(200)
        self.end_headers()  # no length: the body runs until the connection closes
        with contextlib.suppress(OSError):
            for _ in range(50):
                self.wfile.write(b"x" * 1000)

    def route_liar(self, url):
        self.send_response(200)
        self.send_header("Content-Length", str(10 ** 9))
        self.end_headers()
        self.wfile.flush()
        time.sleep(3)  # nothing follows: a reader would wait here

    def route_bomb(self, url):
        self._answer(200, _bomb(), [("Content-Encoding", "gzip")])

    def route_gzip(self, url):
        self._answer(200, gzip.compress(b"<p>zipped</p>"), [("Content-Encoding", "gzip")])

    def route_deflate(self, url):
        data = zlib.compress(b"<p>deflated</p>")
        self._answer(200, data if "raw" not in url.query else data[2:-4], [("Content-Encoding", "deflate")])

    def route_trickle(self, url):
        self.send_response(200)
        self.end_headers()
        with contextlib.suppress(OSError):
            for _ in range(50):  # a byte every 0.1 s: each read is quick, the whole is 5 s
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)

    def route_trickle_headers(self, url):
        with contextlib.suppress(OSError):
            self.wfile.write(b"HTTP/1.0 200 OK\r\n")
            for n in range(50):
                self.wfile.write(f"X-Slow-{n}: 1\r\n".encode())
                self.wfile.flush()
                time.sleep(0.1)


@pytest.fixture(scope="module")
def module_listener():
    inward = Listener()
    yield inward
    inward.close()


@pytest.fixture
def listener(module_listener):
    """The inward listener, its count started afresh for each test."""
    module_listener.accepted = 0
    return module_listener


@pytest.fixture(scope="module")
def site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def connects(monkeypatch):
    """Every socket.connect the code under test tries, wherever to."""
    tried = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self, address):
        tried.append(address)
        return real_connect(self, address)

    def connect_ex(self, address):
        tried.append(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    return tried


class Resolver:
    """A resolver with fixed answers (127.0.0.1 for any name not given), counting its calls."""

    def __init__(self, answers=None):
        self.answers = answers or {}
        self.calls = []

    def __call__(self, host, port):
        self.calls.append(host)
        answer = self.answers.get(host, ["127.0.0.1"])
        if isinstance(answer, Exception):
            raise answer
        return answer


def inward_fetcher(listener, **kwargs):
    return Fetcher(ports=(80, 443, listener.port), resolver=kwargs.pop("resolver", Resolver()), **kwargs)


INWARD = [
    # loopback, all of 127/8, in any case of scheme
    ("http://127.0.0.1:{port}/", "address_not_public"),
    ("http://127.0.0.2:{port}/", "address_not_public"),
    ("http://127.255.255.254:{port}/", "address_not_public"),
    ("HTTP://127.0.0.1:{port}/", "address_not_public"),
    ("http://[::1]:{port}/", "address_not_public"),
    ("http://[0:0:0:0:0:0:0:1]:{port}/", "address_not_public"),
    # unspecified and "this network" (0.0.0.0 reaches this machine on Linux)
    ("http://0.0.0.0:{port}/", "address_not_public"),
    ("http://0.1.2.3:{port}/", "address_not_public"),
    ("http://[::]:{port}/", "address_not_public"),
    # private (RFC 1918)
    ("http://10.0.0.1:{port}/", "address_not_public"),
    ("http://10.255.255.254:{port}/", "address_not_public"),
    ("http://172.16.0.1:{port}/", "address_not_public"),
    ("http://172.31.255.254:{port}/", "address_not_public"),
    ("http://192.168.0.1:{port}/", "address_not_public"),
    ("http://192.168.255.254:{port}/", "address_not_public"),
    # link-local and the cloud metadata services
    ("http://169.254.169.254/latest/meta-data/", "address_not_public"),
    ("http://169.254.169.254:{port}/", "address_not_public"),
    ("http://169.254.0.1:{port}/", "address_not_public"),
    ("http://100.100.100.200/latest/meta-data/", "address_not_public"),
    ("http://168.63.129.16/machine", "address_not_public"),
    ("http://192.0.0.192/opc/v2/instance/", "address_not_public"),
    ("http://[fd00:ec2::254]/latest/meta-data/", "address_not_public"),
    ("http://[fe80::1]:{port}/", "address_not_public"),
    # carrier-grade NAT
    ("http://100.64.0.1:{port}/", "address_not_public"),
    ("http://100.127.255.254:{port}/", "address_not_public"),
    # multicast, reserved, broadcast, documentation, benchmarking, protocol assignments
    ("http://224.0.0.1:{port}/", "address_not_public"),
    ("http://239.255.255.250:{port}/", "address_not_public"),
    ("http://240.0.0.1:{port}/", "address_not_public"),
    ("http://255.255.255.255:{port}/", "address_not_public"),
    ("http://192.0.2.1:{port}/", "address_not_public"),
    ("http://203.0.113.9:{port}/", "address_not_public"),
    ("http://198.18.0.1:{port}/", "address_not_public"),
    ("http://192.0.0.8:{port}/", "address_not_public"),
    # IPv6 ranges that are not global
    ("http://[fc00::1]:{port}/", "address_not_public"),
    ("http://[fd12:3456::1]:{port}/", "address_not_public"),
    ("http://[fec0::1]:{port}/", "address_not_public"),
    ("http://[ff02::1]:{port}/", "address_not_public"),
    ("http://[2001:db8::1]:{port}/", "address_not_public"),
    ("http://[100::1]:{port}/", "address_not_public"),
    # inward IPv4 carried in IPv6: mapped, compatible, NAT64, 6to4, Teredo
    ("http://[::ffff:127.0.0.1]:{port}/", "address_not_public"),
    ("http://[::ffff:7f00:1]:{port}/", "address_not_public"),
    ("http://[::ffff:169.254.169.254]/", "address_not_public"),
    ("http://[::ffff:a00:1]:{port}/", "address_not_public"),
    ("http://[::127.0.0.1]:{port}/", "address_not_public"),
    ("http://[::7f00:1]:{port}/", "address_not_public"),
    ("http://[64:ff9b::7f00:1]:{port}/", "address_not_public"),
    ("http://[64:ff9b::a00:1]:{port}/", "address_not_public"),
    ("http://[64:ff9b::a9fe:a9fe]/", "address_not_public"),
    ("http://[64:ff9b:1::808:808]:{port}/", "address_not_public"),
    ("http://[2002:7f00:1::]:{port}/", "address_not_public"),
    ("http://[2002:a9fe:a9fe::]/", "address_not_public"),
    ("http://[2002:c0a8:101::1]:{port}/", "address_not_public"),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{port}/", "address_not_public"),
    # odd spellings of addresses
    ("http://2130706433:{port}/", "odd_spelling"),
    ("http://0177.0.0.1:{port}/", "odd_spelling"),
    ("http://017700000001:{port}/", "odd_spelling"),
    ("http://0x7f000001:{port}/", "odd_spelling"),
    ("http://0x7f.0.0.1:{port}/", "odd_spelling"),
    ("http://0X7F.0.0.1:{port}/", "odd_spelling"),
    ("http://0x7f.1:{port}/", "odd_spelling"),
    ("http://127.1:{port}/", "odd_spelling"),
    ("http://127.0.1:{port}/", "odd_spelling"),
    ("http://127.000.000.001:{port}/", "odd_spelling"),
    ("http://127.0.0.01:{port}/", "odd_spelling"),
    ("http://0:{port}/", "odd_spelling"),
    ("http://127.0.0.1.:{port}/", "odd_spelling"),
    ("http://1.2.3.4.5:{port}/", "odd_spelling"),
    ("http://shop.0x7f:{port}/", "odd_spelling"),
    ("http://%31%32%37.0.0.1:{port}/", "odd_spelling"),
    ("http://[fe80::1%25eth0]:{port}/", "odd_spelling"),
    ("http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11:{port}/", "address_not_public"),  # fullwidth
    # names of this machine
    ("http://localhost:{port}/", "address_not_public"),
    ("http://LocalHost:{port}/", "address_not_public"),
    ("http://localhost.:{port}/", "address_not_public"),
    ("http://admin.localhost:{port}/", "address_not_public"),
    # credentials in the URL
    ("http://user:pass@shop.example/", "credentials_in_url"),
    ("http://user@127.0.0.1:{port}/", "credentials_in_url"),
    ("http://shop.example@127.0.0.1:{port}/", "credentials_in_url"),
    ("http://127.0.0.1:{port}\\@shop.example/", "credentials_in_url"),
    # other services' ports
    ("http://shop.example:22/", "bad_port"),
    ("http://shop.example:8080/", "bad_port"),
    ("http://shop.example:6379/", "bad_port"),
    ("https://shop.example:8443/", "bad_port"),
    ("http://shop.example:0/", "bad_port"),
    # other schemes
    ("file:///etc/passwd", "bad_scheme"),
    ("ftp://127.0.0.1:{port}/", "bad_scheme"),
    ("gopher://127.0.0.1:{port}/_INFO", "bad_scheme"),
    ("dict://127.0.0.1:{port}/info", "bad_scheme"),
    ("data:text/html,<p>hi</p>", "bad_scheme"),
    ("javascript:alert(1)", "bad_scheme"),
    ("ws://127.0.0.1:{port}/", "bad_scheme"),
    ("//127.0.0.1:{port}/", "bad_scheme"),
    # malformed
    ("http://127.0.0.1:{port}/\r\nX-Injected: 1", "bad_url"),
    ("http:///etc/passwd", "bad_url"),
    ("http://127.0.0.1:99999/", "bad_url"),
    ("http://shop example/", "bad_url"),
    ("http://[::ffff:0177.0.0.1]:{port}/", "bad_url"),  # brackets holding no IPv6 address: unparseable
    ("http://[127.0.0.1]:{port}/", "bad_url"),
]


@pytest.mark.parametrize(("template", "reason"), INWARD, ids=[template for template, _ in INWARD])
def test_an_inward_url_is_refused_before_any_connection(template, reason, listener, connects):
    fetcher = inward_fetcher(listener)
    url = template.format(port=listener.port)
    with pytest.raises(FetchRefused) as refused:
        fetcher.get(url)
    assert refused.value.reason == reason
    assert fetcher.status_of(url) is None
    assert connects == [] and listener.accepted == 0


def test_the_corpus_is_wide():
    assert len(INWARD) >= 40
    assert {reason for _, reason in INWARD} < set(REFUSALS)
    assert {reason for _, reason in INWARD} == {"address_not_public", "odd_spelling", "credentials_in_url",
                                                "bad_port", "bad_scheme", "bad_url"}


def test_a_refusal_never_repeats_the_password_of_the_url(listener):
    with pytest.raises(FetchRefused) as refused:
        inward_fetcher(listener).get("http://user:hunter2@shop.example/")
    assert "hunter2" not in str(refused.value) and "hunter2" not in refused.value.url


@pytest.mark.parametrize("answers", [
    ["127.0.0.1"],
    ["10.0.0.5"],
    ["::ffff:127.0.0.1"],
    ["93.184.215.14", "127.0.0.1"],
    ["2606:4700:4700::1111", "fd00:ec2::254"],
    ["93.184.215.14", "169.254.169.254"],
])
def test_a_name_answering_any_inward_address_is_refused(answers, listener, connects):
    resolver = Resolver({"shop.example": answers})
    with pytest.raises(FetchRefused) as refused:
        inward_fetcher(listener, resolver=resolver).get(f"http://shop.example:{listener.port}/")
    assert refused.value.reason == "address_not_public"
    assert resolver.calls == ["shop.example"]
    assert connects == [] and listener.accepted == 0


@pytest.mark.parametrize("answer", [[], socket.gaierror(-2, "Name or service not known"), ["not-an-address"]])
def test_a_name_that_does_not_resolve_is_refused(answer, listener, connects):
    with pytest.raises(FetchRefused) as refused:
        inward_fetcher(listener, resolver=Resolver({"gone.example": answer})).get("http://gone.example/")
    assert refused.value.reason == "unresolvable"
    assert connects == []


def test_the_connection_goes_to_the_checked_address_without_a_second_lookup(site, monkeypatch):
    port = int(site.split(":")[1])
    looked_up = []
    real_getaddrinfo = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: looked_up.append(host) or
                        real_getaddrinfo(host, *a, **k))
    resolver = Resolver({"shop.test": ["127.0.0.1"]})
    fetcher = Fetcher(allow_hosts=(f"shop.test:{port}",), resolver=resolver)
    response = fetcher.get(f"http://shop.test:{port}/echo")
    assert response.status == 200
    assert json.loads(response.body)["Host"] == f"shop.test:{port}"
    assert resolver.calls == ["shop.test"]
    assert set(looked_up) <= {"127.0.0.1"}  # only the checked address, which no resolver is asked about


INWARD_REDIRECTS = [
    ("http://127.0.0.1:{port}/", "address_not_public"),  # the allowed host, but on another port
    ("http://localhost:{port}/", "address_not_public"),
    ("http://[::1]:{port}/", "address_not_public"),
    ("http://0.0.0.0:{port}/", "address_not_public"),
    ("http://2130706433:{port}/", "odd_spelling"),
    ("http://[::ffff:127.0.0.1]:{port}/", "address_not_public"),
    ("http://169.254.169.254/latest/meta-data/iam/", "address_not_public"),
    ("http://shop.example:{port}/", "address_not_public"),  # a name that resolves inward
    ("http://127.0.0.1:22/", "bad_port"),
    ("file:///etc/passwd", "bad_scheme"),
    ("gopher://127.0.0.1:{port}/_INFO", "bad_scheme"),
]


@pytest.mark.parametrize(("template", "reason"), INWARD_REDIRECTS, ids=[t for t, _ in INWARD_REDIRECTS])
def test_a_redirect_from_an_allowed_site_to_an_inward_url_is_refused(template, reason, site, listener):
    fetcher = inward_fetcher(listener, allow_hosts=(site,))
    inward = template.format(port=listener.port)
    with pytest.raises(FetchRefused) as refused:
        fetcher.get(f"http://{site}/to?u={inward}")
    assert refused.value.reason == reason and refused.value.url == inward
    assert listener.accepted == 0


def test_redirects_within_the_allowed_site_are_followed_and_listed(site):
    fetcher = Fetcher(allow_hosts=(site,))
    with pytest.raises(FetchRefused) as refused:
        fetcher.get(f"http://{site}/loop/0")
    assert refused.value.reason == "too_many_redirects"
    followed = fetcher.get(f"http://{site}/to?u=/page")
    assert (followed.status, followed.url, followed.redirects) == (200, f"http://{site}/page",
                                                                    (f"http://{site}/to?u=/page",))
    assert b"<title>Shop</title>" in followed.body


def test_at_most_max_redirects_are_followed(site):
    hops = Fetcher(allow_hosts=(site,), max_redirects=2)
    with pytest.raises(FetchRefused) as refused:
        hops.get(f"http://{site}/loop/0")
    assert refused.value.reason == "too_many_redirects" and refused.value.url == f"http://{site}/loop/2"


def test_no_cookie_authorization_or_referer_is_ever_sent(site):
    Site.seen.clear()
    response = Fetcher(allow_hosts=(site,)).get(f"http://{site}/set-cookie")
    assert response.redirects == (f"http://{site}/set-cookie",)
    assert response.headers["content-length"] and "set-cookie" not in response.headers
    for _, headers in Site.seen:
        assert not {"cookie", "authorization", "referer", "proxy-authorization"} & set(headers)
        assert headers["user-agent"] == USER_AGENT == "SourcingStorefrontFix/1 (+store audit)"


def test_a_server_trickling_the_body_is_cut_at_the_deadline(site):
    started = time.monotonic()
    with pytest.raises(FetchFailed) as failed:
        Fetcher(allow_hosts=(site,), timeout=1).get(f"http://{site}/trickle")
    assert failed.value.reason == "timeout"
    assert time.monotonic() - started < 2


def test_a_server_trickling_its_headers_is_cut_at_the_deadline(site):
    started = time.monotonic()
    assert Fetcher(allow_hosts=(site,), timeout=1).status_of(f"http://{site}/trickle-headers") is None
    with pytest.raises(FetchFailed) as failed:
        Fetcher(allow_hosts=(site,), timeout=1).get(f"http://{site}/trickle-headers")
    assert failed.value.reason == "timeout"
    assert time.monotonic() - started < 4


def test_a_body_over_the_cap_is_too_large(site):
    small = Fetcher(allow_hosts=(site,), max_bytes=10_000)
    for path in ("/big", "/big-unknown"):
        with pytest.raises(FetchFailed) as failed:
            small.get(f"http://{site}{path}")
        assert failed.value.reason == "too_large"
    assert len(small.get(f"http://{site}/exact").body) == 10_000


def test_a_content_length_over_the_cap_is_refused_before_reading(site):
    started = time.monotonic()
    with pytest.raises(FetchFailed) as failed:
        Fetcher(allow_hosts=(site,)).get(f"http://{site}/liar")
    assert failed.value.reason == "too_large"
    assert time.monotonic() - started < 1  # the server sends nothing after its headers for 3 s


def test_a_gzip_bomb_is_cut_at_the_cap_without_being_inflated(site):
    fetcher = Fetcher(allow_hosts=(site,), max_bytes=64 * 1024)
    _bomb()
    tracemalloc.start()
    try:
        with pytest.raises(FetchFailed) as failed:
            fetcher.get(f"http://{site}/bomb")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert failed.value.reason == "too_large"
    assert peak < 4 * 1024 * 1024  # the bomb is 32 MiB inflated


def test_gzip_and_deflate_bodies_are_decoded(site):
    fetcher = Fetcher(allow_hosts=(site,))
    assert fetcher.get(f"http://{site}/gzip").body == b"<p>zipped</p>"
    assert fetcher.get(f"http://{site}/deflate").body == b"<p>deflated</p>"
    assert fetcher.get(f"http://{site}/deflate?raw=1").body == b"<p>deflated</p>"


def test_status_of_asks_head_then_get_when_head_is_refused(site, listener):
    fetcher = Fetcher(allow_hosts=(site,))
    assert fetcher.status_of(f"http://{site}/page") == 200
    assert fetcher.status_of(f"http://{site}/missing") == 404
    assert fetcher.status_of(f"http://{site}/head-refused") == 200
    assert fetcher.status_of(f"http://{site}/liar") == 200  # a link check reads no body
    assert fetcher.status_of(f"http://127.0.0.1:{listener.port}/") is None


def test_a_server_that_is_not_there_fails_to_connect():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
    with pytest.raises(FetchFailed) as failed:
        Fetcher(allow_hosts=(f"127.0.0.1:{port}",)).get(f"http://127.0.0.1:{port}/")
    assert failed.value.reason == "connection_failed"


def test_the_exemption_is_for_the_host_and_port_named_and_nothing_else(site, listener, connects):
    port = int(site.split(":")[1])
    by_name = Fetcher(allow_hosts=("Shop.Test",), resolver=Resolver({"shop.test": ["127.0.0.1"]}))
    assert by_name.get(f"http://shop.test:{port}/page").status == 200
    fetcher = Fetcher(allow_hosts=(site, f"2130706433:{port}"))
    for url, reason in [(f"http://user@{site}/page", "credentials_in_url"),
                        (f"ftp://{site}/page", "bad_scheme"),
                        (f"http://2130706433:{port}/page", "odd_spelling"),
                        (f"http://127.0.0.1:{listener.port}/", "bad_port"),
                        (f"http://localhost:{port}/page", "bad_port")]:
        with pytest.raises(FetchRefused) as refused:
            fetcher.get(url)
        assert refused.value.reason == reason, url
    assert listener.accepted == 0


def test_fix_allow_hosts_is_read_from_the_environment_into_the_fetcher():
    assert Settings().fix_allow_hosts == ()
    assert load_settings({"SECRET_KEY": "x" * 32}).fix_allow_hosts == ()
    settings = load_settings({"SECRET_KEY": "x" * 32, "FIX_ALLOW_HOSTS": " 127.0.0.1:8001, ,Shop.Test ,[::1]:9000,"})
    assert settings.fix_allow_hosts == ("127.0.0.1:8001", "Shop.Test", "[::1]:9000")
    assert fetcher_for(settings).allow_hosts == ("127.0.0.1:8001", "shop.test", "[::1]:9000")
    for bad in ("http://shop.test", "shop test", "user@shop.test", "shop.test:port"):
        with pytest.raises(SettingsError, match="FIX_ALLOW_HOSTS"):
            load_settings({"SECRET_KEY": "x" * 32, "FIX_ALLOW_HOSTS": bad})


def test_fetcher_for_the_settings_reaches_an_allowed_test_site_and_nothing_else(site):
    assert fetcher_for(Settings(fix_allow_hosts=(site,))).get(f"http://{site}/page").status == 200
    with pytest.raises(FetchRefused) as refused:
        fetcher_for(Settings()).get(f"http://{site}/page")
    assert refused.value.reason == "bad_port"


def test_the_default_fetcher_refuses_other_ports_than_80_and_443(connects):
    fetcher = Fetcher()
    assert (fetcher.ports, fetcher.timeout, fetcher.max_bytes, fetcher.max_redirects) == ((80, 443), 10.0,
                                                                                         2 * 1024 * 1024, 5)
    for url in ("http://shop.example:8080/", "https://shop.example:8443/", "http://shop.example:25/"):
        with pytest.raises(FetchRefused) as refused:
            fetcher.get(url)
        assert refused.value.reason == "bad_port"
    assert connects == []


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "9.9.9.9", "2606:4700:4700::1111",
                                     "2001:4860:4860::8888", "64:ff9b::808:808", "2002:808:808::1"])
def test_public_addresses_are_public(address):
    assert public_address(ipaddress.ip_address(address)) is True


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "100.64.0.1", "224.0.0.1", "169.254.169.254",
                                     "168.63.129.16", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1",
                                     "64:ff9b::7f00:1", "64:ff9b:1::808:808", "2002:7f00:1::", "fe80::1%eth0",
                                     "fd00:ec2::254", "fec0::1", "2001:0:4136:e378:8000:63bf:80ff:fffe"])
def test_inward_addresses_are_not_public(address):
    assert public_address(ipaddress.ip_address(address)) is False


def test_literal_host_reads_canonical_addresses_and_refuses_other_spellings():
    assert literal_host("93.184.215.14") == ipaddress.IPv4Address("93.184.215.14")
    assert literal_host("[2606:4700:4700::1111]") == ipaddress.IPv6Address("2606:4700:4700::1111")
    assert literal_host("2606:4700:4700::1111") == ipaddress.IPv6Address("2606:4700:4700::1111")
    assert literal_host("shop.example") is None and literal_host("1e100.net") is None
    for odd in ("2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1", "127.000.000.001", "fe80::1%eth0", "[::1%lo]"):
        with pytest.raises(FetchRefused) as refused:
            literal_host(odd)
        assert refused.value.reason == "odd_spelling"


def test_https_to_a_server_that_does_not_speak_tls_is_tls_failed(site):
    with pytest.raises(FetchFailed) as failed:
        Fetcher(allow_hosts=(site,)).get(f"https://{site}/page")
    assert failed.value.reason == "tls_failed"


def test_a_tls_handshake_that_never_finishes_is_cut_at_the_deadline():
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts (the backlog does) and never answers
        port = silent.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(FetchFailed) as failed:
            Fetcher(allow_hosts=(f"127.0.0.1:{port}",), timeout=1).get(f"https://127.0.0.1:{port}/")
    assert failed.value.reason == "timeout"
    assert time.monotonic() - started < 2


def test_the_seam_raises_only_its_own_reasons():
    assert FetchRefused("odd_spelling", "http://0x7f.1/").reason == "odd_spelling"
    assert FetchFailed("timeout").url == ""
    with pytest.raises(ValueError):
        FetchRefused("timeout")
    with pytest.raises(ValueError):
        FetchFailed("no_such_reason")
    assert not set(REFUSALS) & set(FAILURES)


def test_check_without_resolving_refuses_what_the_url_itself_shows(connects):
    resolver = Resolver()
    fetcher = Fetcher(resolver=resolver)
    for url, reason in [("http://127.0.0.1/", "address_not_public"), ("http://[::ffff:10.0.0.1]/", "address_not_public"),
                        ("http://localhost/", "address_not_public"), ("http://0x7f.1/", "odd_spelling"),
                        ("http://shop.example:8080/", "bad_port"), ("ftp://shop.example/", "bad_scheme")]:
        with pytest.raises(FetchRefused) as refused:
            fetcher.check(url, resolve=False)
        assert refused.value.reason == reason, url
    hop = fetcher.check(" https://Shop.Example/a b?q=1 2#top ", resolve=False)
    assert (hop.host, hop.port, hop.address, hop.path, hop.host_header) == ("shop.example", 443, None,
                                                                              "/a%20b?q=1%202", "shop.example")
    assert resolver.calls == [] and connects == []
    assert fetcher.check("http://93.184.215.14:80/", resolve=False).address == "93.184.215.14"


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory):
    """The test site over TLS, with a certificate for shop.test only (its own authority)."""
    # .ci/run installs openssl: without it this test fails rather than quietly not running.
    assert shutil.which("openssl"), "openssl is needed to make a test certificate (apt-get install openssl)"
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-subj", "/CN=shop.test", "-addext", "subjectAltName=DNS:shop.test", "-addext",
                    "basicConstraints=critical,CA:TRUE", "-days", "2", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.server_address[1], cert
    server.shutdown()
    server.server_close()


def test_https_connects_to_the_checked_address_and_checks_the_certificate_against_the_name(tls_site, monkeypatch):
    port, cert = tls_site
    # The test certificate stands in for the system's trusted authorities.
    monkeypatch.setattr(ssl.SSLContext, "load_default_certs", lambda context, *a: context.load_verify_locations(cert))
    resolver = Resolver({"shop.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    fetcher = Fetcher(allow_hosts=(f"shop.test:{port}", f"other.test:{port}"), resolver=resolver)
    response = fetcher.get(f"https://shop.test:{port}/echo")
    assert response.status == 200 and json.loads(response.body)["Host"] == f"shop.test:{port}"
    with pytest.raises(FetchFailed) as failed:  # same address, but the certificate does not name other.test
        fetcher.get(f"https://other.test:{port}/echo")
    assert failed.value.reason == "tls_failed"
    assert resolver.calls == ["shop.test", "other.test"]
