"""The buffering front of the production topology (deploy/front.conf, README "The front"):
nginx reads whole requests before gunicorn sees them, so slow and silent clients cost the
front a socket each and the app nothing.

One topology for the module (tests/topology.py: supervisord with deploy/supervisord.conf, as
`make procs` runs it; the front on the public port, gunicorn on loopback behind it). A
founder (a cookie jar) has claimed, built and published a store; an attacker holds 200
connections that trickle their headers a byte at a time and 200 that say nothing, opening
new ones as the front closes them; the founder's feed and the store's page keep answering
within a second. Aimed at gunicorn's own port instead, the same attack stalls them.

Marked `faults`: PostgreSQL and Redis pass only (tests/conftest.py).
"""
from __future__ import annotations

import json
import re
import select
import socket
import threading
import time

import pytest
import requests

from logformat import BEARER_PATH_STARTS, CUT
from tests.conftest import TEST_DATABASE_URL
from tests.topology import ROOT, Founder, Topology, wait_built, wait_for

pytestmark = pytest.mark.faults

FRONT_CONF = (ROOT / "deploy" / "front.conf").read_text()
HEADER_SECONDS = int(re.search(r"^\s*client_header_timeout (\d+)s;", FRONT_CONF, re.M)[1])
PER_CLIENT = int(re.search(r"^\s*limit_conn per_client (\d+);", FRONT_CONF, re.M)[1])


@pytest.fixture(scope="module")
def topo(tmp_path_factory):
    topology = Topology(tmp_path_factory.mktemp("front"), TEST_DATABASE_URL + "_front", worker_processes=1,
                        build_seconds=0.5)
    topology.start()
    yield topology
    topology.stop()
    topology.drop()
    for line in topology.output().splitlines():
        assert line.startswith("{") and json.loads(line), line  # the front's lines are JSON too


@pytest.fixture(scope="module")
def shop(topo):
    """A founder with a published store: (the founder, the store page's path)."""
    founder = Founder(topo.base_url).claim().build()
    wait_built([founder], 60)
    published = founder.http.post(topo.base_url + "/api/store/publish", timeout=10).json()
    assert published.get("status") == "published", published
    return founder, published["public_url"]


class Attacker:
    """Holds `slow` connections that send a request's headers a byte at a time and `silent`
    connections that send nothing, each opened again as soon as the server closes it."""

    HEAD = b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: "

    def __init__(self, port: int, slow: int, silent: int):
        self.port = port
        self.slow = [self._open(self.HEAD) for _ in range(slow)]
        self.silent = [self._open(b"") for _ in range(silent)]
        self.reopened = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="attacker", daemon=True)

    def _open(self, first: bytes) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        if first:
            sock.sendall(first)
        sock.setblocking(False)
        return sock

    def _keep(self, socks: list[socket.socket], first: bytes, trickle: bytes) -> None:
        for n, sock in enumerate(socks):
            try:
                if trickle:
                    sock.send(trickle)
                # Readable: closed, or answered (a 408 or 400), which ends the connection too.
                closed = bool(select.select([sock], [], [], 0)[0])
            except OSError:
                closed = True
            if closed:
                sock.close()
                socks[n] = self._open(first)
                self.reopened += 1

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self._keep(self.slow, self.HEAD, b"a")
            self._keep(self.silent, b"", b"")

    def __enter__(self) -> Attacker:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        for sock in self.slow + self.silent:
            sock.close()


def _timed(get, url: str) -> tuple[int | None, float]:
    started = time.monotonic()
    try:
        status = get(url, timeout=5).status_code
    except requests.RequestException:
        status = None
    return status, round(time.monotonic() - started, 3)


def test_slow_and_silent_connections_leave_the_feed_and_a_store_page_answering_within_a_second(topo, shop):
    founder, page = shop
    base = topo.base_url
    assert founder.http.get(base + "/api/feed", timeout=5).status_code == 200
    with Attacker(topo.port, slow=200, silent=200) as attacker:
        time.sleep(1)
        feed, store = [], []
        # Past the front's header time, so the attacker has had to open new connections too.
        deadline = time.monotonic() + HEADER_SECONDS + 3
        while time.monotonic() < deadline:
            feed.append(_timed(founder.http.get, base + "/api/feed"))
            store.append(_timed(requests.get, base + page))
            time.sleep(0.5)
        held = len(attacker.slow) + len(attacker.silent)
    print(f"\n400 held connections: feed {feed}\nstore page {store}\nreopened by the attacker: {attacker.reopened}")
    assert held == 400
    assert len(feed) >= 8
    assert all(status == 200 and seconds < 1 for status, seconds in feed), feed
    assert all(status == 200 and seconds < 1 for status, seconds in store), store
    # The front closed the connections that did not finish their headers in time.
    assert attacker.reopened >= 400, attacker.reopened


def _lines(topo: Topology, logger: str) -> list[dict]:
    """The output's JSON lines of one logger ("front": the front's own)."""
    found = []
    for line in topo.output().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("logger") == logger:
            found.append(event)
    return found


def test_a_client_past_its_connection_limit_is_refused_with_json_and_the_refusal_is_logged(topo, shop):
    """Requests whose bodies never finish, from one client (named by X-Forwarded-For, which the
    front trusts from a proxy on its host): the first PER_CLIENT are held, the rest answered
    429 at once with a JSON body and one JSON line each in the output; another client's feed
    still answers."""
    founder, _ = shop
    client = "203.0.113.7"
    head = (f"POST /api/account HTTP/1.1\r\nHost: 127.0.0.1:{topo.port}\r\nX-Forwarded-For: {client}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{").encode()
    extra = 5
    socks = []
    try:
        for _ in range(PER_CLIENT + extra):
            sock = socket.create_connection(("127.0.0.1", topo.port), timeout=5)
            sock.sendall(head)
            socks.append(sock)
        time.sleep(1)
        answers = []
        for sock in socks:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                answers.append(sock.recv(65536).decode())
        assert founder.http.get(topo.base_url + "/api/feed", timeout=5).status_code == 200
    finally:
        for sock in socks:
            sock.close()
    assert len(answers) == extra, answers
    for answer in answers:
        head_part, _, body = answer.partition("\r\n\r\n")
        assert head_part.startswith("HTTP/1.1 429 ") and "Content-Type: application/json" in head_part, answer
        refusal = json.loads(body)
        assert refusal["status"] == "refused" and refusal["reason"] == "too_many_open_requests" and refusal["explanation"], refusal
    logged = wait_for(lambda: len(lines := [e for e in _lines(topo, "front") if e["status"] == 429]) >= extra
                      and lines, 10, "the front's refusal lines")
    assert len(logged) == extra
    assert {(e["level"], e["client"], e["method"], e["path"]) for e in logged} == \
        {("warning", client, "POST", "/api/account")}


def test_the_front_passes_the_host_on_and_says_the_request_came_through_it(topo):
    """The app compares Origin with the Host it was sent (api/http.py): a Host the front
    rewrote would make this same-origin request cross-site. /metrics answers a loopback peer
    that no proxy relayed: straight to gunicorn it does, through the front never."""
    same_origin = requests.post(topo.base_url + "/api/account", json={"email": "front@example.com"}, timeout=10,
                                headers={"Host": "shop.example.test", "Origin": "http://shop.example.test"})
    assert same_origin.status_code == 200, same_origin.text
    assert requests.get(topo.web_url + "/metrics", timeout=10).status_code == 200
    through = requests.get(topo.base_url + "/metrics", timeout=10)
    assert through.status_code == 403 and through.json()["reason"] == "metrics_not_public"
    # Whatever a client writes there, the app is told the request came through the front.
    spoofed = requests.get(topo.base_url + "/metrics", headers={"X-Forwarded-For": "127.0.0.1"}, timeout=10)
    assert spoofed.status_code == 403
    # A body too big for the front's memory buffer is kept in its run folder, then passed on
    # whole: the app's own refusal of it comes back (MAX_BODY_BYTES), not the front's.
    big = requests.post(topo.base_url + "/api/account", data=b"x" * (2 * 1024 * 1024), timeout=10,
                        headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["reason"] == "payload_too_large"
    assert [e for e in _lines(topo, "api.request") if (e["status"], e["path"]) == (413, "/api/account")]


def test_a_refused_request_is_logged_without_its_bearer_value_or_query_string(topo):
    """A bearer value in a path (logformat.BEARER_PATH_STARTS: a journey carrier's id, a rating
    token, a checkout's id) and a query string (a sign-in token) stay out of the front's output
    and its error log: the front answers these requests itself (413, a body too large), so its
    own line is the only record, and it holds the route with the value cut as the app cuts it."""
    secrets = []
    for number, start in enumerate(BEARER_PATH_STARTS):
        value, token = f"bearer{number}x{time.time_ns()}", f"token{number}x{time.time_ns()}"
        secrets += [value, token]
        with socket.create_connection(("127.0.0.1", topo.port), timeout=5) as sock:
            sock.sendall((f"POST {start}{value}/tail?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{topo.port}\r\n"
                          f"Content-Type: application/json\r\nContent-Length: {10 ** 9}\r\n\r\n").encode())
            assert sock.recv(65536).decode().startswith("HTTP/1.1 413 ")
    logged = wait_for(lambda: len(lines := [e for e in _lines(topo, "front") if e["status"] == 413
                                            and e["path"].endswith("/tail")]) >= len(BEARER_PATH_STARTS) and lines,
                      10, "the front's 413 lines")
    assert sorted(e["path"] for e in logged) == sorted(f"{start}{CUT}/tail" for start in BEARER_PATH_STARTS)
    error_log = topo.run_dir / "front-error.log"
    written = topo.output() + (error_log.read_text() if error_log.exists() else "")
    assert not [secret for secret in secrets if secret in written]
