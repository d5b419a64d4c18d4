"""Closed-loop HTTP load driver for the Flask service (standard library only).

Why threads + keep-alive
------------------------
We want to measure what the *server* costs per request: routing, the view,
the session, JSON encoding.  Opening a TCP connection for every request would
add connection setup (and TIME_WAIT churn on the loopback) to every sample
and drown the figure we care about.  So each of the C threads holds ONE
persistent HTTP/1.1 keep-alive connection (``http.client.HTTPConnection``)
for the whole run and sends its requests back to back: a closed loop with C
requests in flight at most.  Python threads are fine for this: a worker
spends its time blocked in socket I/O, which releases the GIL.

A connection that fails is dropped and the next request opens a new one.  A
request that fails on a *reused* connection before any response arrives
(the server closed an idle keep-alive socket) is retried once on a fresh
connection; only the retry is timed.

Cookies (``--cookie-jar``)
--------------------------
* ``per-user`` (default): each thread is one founder.  It remembers the
  ``ff_session`` value from the first Set-Cookie it receives and sends it
  back on every later request.
* ``shared``: one ``ff_session`` value shared by all threads.
* ``none``: no cookie is ever sent.

``run_load(cookies=[...])`` (per-user only) starts thread i with the session
value ``cookies[i % len(cookies)]`` instead of an empty jar: a founder the
caller prepared (a claim, a store, an account), so the run measures that
founder's answer, not a new visitor's.  ``new_sessions`` in the figures
counts responses that set an ``ff_session`` cookie: with prepared jars it
must stay 0 (a jar the server did not recognise gets a new session, and its
answers are a newcomer's).

Bodies (``--method``, ``--body``)
---------------------------------
``--body`` is sent as JSON with every request.  Each ``%unique%`` in it is
replaced, request by request, by an id no other request of the run (or of
another run) sends: 16 characters of [0-9a-f] (a store visitor's made-up
session id, say, so every POST /api/track records a new row).

Figures
-------
Latency is taken with ``time.perf_counter()`` around request + full body
read, for requests that got an HTTP response; ``rps`` is those responses
divided by the wall-clock time of the counted phase (failures fast or slow
do not inflate it).  Percentiles are nearest-rank
on the sorted latencies.  ``errors`` counts requests that got no HTTP
response at all (connection refused, reset, timeout, ...); HTTP error
statuses are reported in ``statuses``, not as errors.  The first W requests
(``--warmup``) are sent on the same connections but not counted.

Exit status is 0 unless every counted request failed, where "failed" means
no response or a status >= 400.

Only loopback targets (127.0.0.0/8, ::1, localhost) are accepted.

Usage::

    python bench/load.py http://127.0.0.1:8000/api/health -n 2000 -c 16
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import itertools
import json
import math
import secrets
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from urllib.parse import urlsplit

COOKIE_NAME = "ff_session"
COOKIE_MODES = ("per-user", "shared", "none")
DEFAULT_TIMEOUT = 30.0
UNIQUE = b"%unique%"  # in a --body: replaced by a new id in every request

# Failures that mean "the kept-alive socket was already dead": worth one retry.
STALE_CONNECTION_ERRORS = (
    http.client.RemoteDisconnected,
    http.client.BadStatusLine,
    ConnectionResetError,
    ConnectionAbortedError,
    BrokenPipeError,
)


# --------------------------------------------------------------------------
# Target
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    host: str
    port: int
    path: str  # path + query, as sent on the request line


def parse_target(url: str) -> Target:
    """Split URL into host/port/path; refuse anything but http on loopback."""
    parts = urlsplit(url)
    if parts.scheme != "http":
        raise ValueError(f"only http:// URLs are supported, got {url!r}")
    host = parts.hostname
    if not host or not is_loopback(host):
        raise ValueError(f"refusing non-loopback target {host!r}: "
                         "benchmarks may only hit 127.0.0.0/8, ::1 or localhost")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(host=host, port=parts.port or 80, path=path)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --------------------------------------------------------------------------
# Cookies
# --------------------------------------------------------------------------

class CookieJar:
    """Holds one ff_session value; remembers the first one it is offered."""

    def __init__(self, value: str | None = None) -> None:
        self._value: str | None = value
        self._lock = threading.Lock()

    def header(self) -> str | None:
        value = self._value
        return None if value is None else f"{COOKIE_NAME}={value}"

    def remember(self, response: http.client.HTTPResponse) -> None:
        if self._value is not None:
            return
        value = find_session_cookie(response.headers.get_all("Set-Cookie") or [])
        if value is None:
            return
        with self._lock:
            if self._value is None:
                self._value = value


def find_session_cookie(set_cookie_headers: list[str]) -> str | None:
    for raw in set_cookie_headers:
        try:
            cookie = SimpleCookie(raw)
        except CookieError:
            continue
        if COOKIE_NAME in cookie and cookie[COOKIE_NAME].value:
            return cookie[COOKIE_NAME].value
    return None


def make_jars(mode: str, count: int, cookies: list[str] | None = None) -> list[CookieJar | None]:
    """One jar per worker: its own (holding cookies[i % len] when given), one shared by all, or none."""
    if cookies and mode != "per-user":
        raise ValueError("prepared cookies need the per-user cookie jar")
    if mode == "per-user":
        return [CookieJar(cookies[i % len(cookies)] if cookies else None) for i in range(count)]
    if mode == "shared":
        shared = CookieJar()
        return [shared] * count
    if mode == "none":
        return [None] * count
    raise ValueError(f"unknown cookie-jar mode {mode!r}")


# --------------------------------------------------------------------------
# One worker = one keep-alive connection (+ its cookie jar)
# --------------------------------------------------------------------------

@dataclass
class Sample:
    latency: float | None  # seconds; None when no response arrived
    status: int | None
    error: str | None
    new_session: bool = False  # the response set an ff_session cookie
    answer: str | None = None  # what `classify` made of the response


class Bodies:
    """The body of each request: the same bytes, or with every %unique% replaced by a new
    id (a per-run random prefix and a counter, so no two requests of any run share one)."""

    def __init__(self, payload: bytes | None) -> None:
        self.payload = payload
        self.unique = payload is not None and UNIQUE in payload
        self._prefix = secrets.token_hex(4).encode()
        self._counter = itertools.count()  # next() is atomic under the GIL

    def next(self) -> bytes | None:
        if not self.unique:
            return self.payload
        return self.payload.replace(UNIQUE, self._prefix + b"%08x" % next(self._counter))


class Worker:
    """Sends requests over a single persistent HTTP/1.1 connection."""

    def __init__(self, target: Target, method: str, body: Bodies | bytes | None,
                 jar: CookieJar | None, timeout: float,
                 extra_headers: dict[str, str] | None = None,
                 classify: Callable[[int, bytes], str] | None = None) -> None:
        self.target = target
        self.extra_headers = extra_headers or {}
        self.method = method
        self.bodies = body if isinstance(body, Bodies) else Bodies(body)
        self.body = self.bodies.payload
        self.classify = classify
        self.jar = jar
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.used = 0  # requests completed on the current connection
        self.reused = False  # did the last attempt run on a used connection?

    def headers(self) -> dict[str, str]:
        headers = {"Connection": "keep-alive", "Accept": "application/json",
                   **self.extra_headers}
        if self.body is not None:
            headers["Content-Type"] = "application/json"
        cookie = self.jar.header() if self.jar else None
        if cookie:
            headers["Cookie"] = cookie
        return headers

    def send(self) -> Sample:
        """One request; one retry if a reused connection turned out dead."""
        try:
            return self._attempt()
        except STALE_CONNECTION_ERRORS as exc:
            if not self.reused:
                return self._failure(exc)
            self.close()  # dead keep-alive socket: retry once on a fresh one
        except (OSError, http.client.HTTPException) as exc:
            return self._failure(exc)
        try:
            return self._attempt()
        except (OSError, http.client.HTTPException) as exc:
            return self._failure(exc)

    def _attempt(self) -> Sample:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(
                self.target.host, self.target.port, timeout=self.timeout)
            self.used = 0
        self.reused = self.used > 0
        body = self.bodies.next()
        start = time.perf_counter()
        self.conn.request(self.method, self.target.path, body=body,
                          headers=self.headers())
        response = self.conn.getresponse()
        data = response.read()
        latency = time.perf_counter() - start
        self.used += 1
        set_cookie = response.getheader("Set-Cookie") or ""
        if self.jar is not None:
            self.jar.remember(response)
        if response.will_close:
            self.close()
        return Sample(latency=latency, status=response.status, error=None,
                      new_session=f"{COOKIE_NAME}=" in set_cookie,
                      answer=self.classify(response.status, data) if self.classify else None)

    def _failure(self, exc: BaseException) -> Sample:
        self.close()
        return Sample(latency=None, status=None, error=type(exc).__name__)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# --------------------------------------------------------------------------
# Running a phase
# --------------------------------------------------------------------------

class Tickets:
    """Hands out exactly `total` request slots across threads."""

    def __init__(self, total: int) -> None:
        self._left = total
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self._left <= 0:
                return False
            self._left -= 1
            return True


def run_phase(workers: list[Worker], total: int) -> tuple[list[Sample], float]:
    """Send `total` requests spread over the workers; return samples, seconds."""
    tickets = Tickets(total)
    per_thread: list[list[Sample]] = [[] for _ in workers]

    def loop(worker: Worker, out: list[Sample]) -> None:
        # Bounded: Tickets hands out exactly `total` slots in all.
        while tickets.take():
            out.append(worker.send())

    threads = [threading.Thread(target=loop, args=(w, out), daemon=True)
               for w, out in zip(workers, per_thread, strict=True)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    return [s for out in per_thread for s in out], elapsed


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------

def percentile(sorted_values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(pct / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def to_ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def summarize(url: str, concurrency: int, samples: list[Sample],
              seconds: float) -> dict:
    latencies = sorted(s.latency for s in samples if s.latency is not None)
    statuses = Counter(s.status for s in samples if s.status is not None)
    error_kinds = Counter(s.error for s in samples if s.error is not None)
    answers = Counter(s.answer for s in samples if s.answer is not None)
    return {
        "url": url,
        "requests": len(samples),
        "concurrency": concurrency,
        "seconds": round(seconds, 3),
        "rps": round(len(latencies) / seconds, 1) if seconds > 0 else None,
        "p50_ms": to_ms(percentile(latencies, 50)),
        "p95_ms": to_ms(percentile(latencies, 95)),
        "p99_ms": to_ms(percentile(latencies, 99)),
        "max_ms": to_ms(latencies[-1] if latencies else None),
        "statuses": {str(code): n for code, n in sorted(statuses.items())},
        "errors": sum(error_kinds.values()),
        "error_kinds": dict(error_kinds),
        "new_sessions": sum(1 for s in samples if s.new_session),
        "answers": dict(sorted(answers.items())),
    }


def all_failed(result: dict) -> bool:
    """True when no counted request got a response with a status below 400."""
    ok = sum(n for code, n in result["statuses"].items() if int(code) < 400)
    return result["requests"] > 0 and ok == 0


def format_summary(result: dict) -> str:
    def ms(key: str) -> str:
        value = result[key]
        return "-" if value is None else f"{value:.2f}"

    statuses = ", ".join(f"{code}: {n}" for code, n in result["statuses"].items())
    errors = str(result["errors"])
    if result.get("error_kinds"):
        kinds = ", ".join(f"{k}: {n}" for k, n in result["error_kinds"].items())
        errors += f" ({kinds})"
    rps = "-" if result["rps"] is None else f"{result['rps']:.1f}"
    lines = [
        f"url:         {result['url']}",
        f"requests:    {result['requests']}  concurrency: {result['concurrency']}",
        f"elapsed:     {result['seconds']:.3f} s",
        f"throughput:  {rps} req/s",
        f"latency ms:  p50 {ms('p50_ms')}  p95 {ms('p95_ms')}  "
        f"p99 {ms('p99_ms')}  max {ms('max_ms')}",
        f"statuses:    {statuses or '-'}",
        f"errors:      {errors}",
        f"new cookies: {result.get('new_sessions', 0)}",
    ]
    if result.get("answers"):
        lines.append("answers:     " + ", ".join(f"{k}: {n}" for k, n in result["answers"].items()))
    return "\n".join(lines)


def json_summary(result: dict) -> str:
    keys = ("url", "requests", "concurrency", "seconds", "rps", "p50_ms",
            "p95_ms", "p99_ms", "max_ms", "statuses", "errors", "new_sessions")
    return json.dumps({k: result[k] for k in keys})


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------

def run_load(url: str, requests: int = 2000, concurrency: int = 16,
             method: str = "GET", body: str | None = None,
             cookie_jar: str = "per-user", warmup: int = 50,
             timeout: float = DEFAULT_TIMEOUT,
             headers: dict[str, str] | None = None,
             cookies: list[str] | None = None,
             classify: Callable[[int, bytes], str] | None = None) -> dict:
    """Warm up, then drive `requests` requests at `concurrency`; return figures.
    `headers` are sent with every request (If-None-Match, say); `cookies` are the
    ff_session values the per-user jars start with (thread i: cookies[i % len]);
    `classify(status, body)` names each counted answer (figures' `answers`)."""
    if requests < 1 or concurrency < 1 or warmup < 0:
        raise ValueError("requests and concurrency must be >= 1, warmup >= 0")
    target = parse_target(url)
    payload = None
    if body is not None:
        try:
            json.loads(body)  # fail early on a malformed body (%unique% sits inside a string)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--body is not valid JSON: {exc}") from exc
        payload = body.encode("utf-8")
    bodies = Bodies(payload)  # one counter for every thread: ids stay unique
    workers = [Worker(target, method.upper(), bodies, jar, timeout, headers, classify)
               for jar in make_jars(cookie_jar, concurrency, cookies)]
    try:
        if warmup:
            run_phase(workers, warmup)
        samples, seconds = run_phase(workers, requests)
    finally:
        for worker in workers:
            worker.close()
    return summarize(url, concurrency, samples, seconds)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Keep-alive HTTP load driver (loopback targets only).")
    parser.add_argument("url", help="e.g. http://127.0.0.1:8000/api/health")
    parser.add_argument("-n", type=positive_int, default=2000,
                        help="requests to count (default 2000)")
    parser.add_argument("-c", type=positive_int, default=16,
                        help="concurrency = threads = connections (default 16)")
    parser.add_argument("--method", default="GET", help="HTTP method (default GET)")
    parser.add_argument("--body", default=None,
                        help="JSON request body; sent with Content-Type: application/json; "
                             "each %%unique%% in it becomes a new id per request")
    parser.add_argument("--cookie-jar", choices=COOKIE_MODES, default="per-user",
                        help="ff_session handling (default per-user)")
    parser.add_argument("--warmup", type=non_negative_int, default=50,
                        help="uncounted warmup requests (default 50)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"socket timeout in seconds (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object instead of the summary")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = run_load(args.url, requests=args.n, concurrency=args.c,
                          method=args.method, body=args.body,
                          cookie_jar=args.cookie_jar, warmup=args.warmup,
                          timeout=args.timeout)
    except ValueError as exc:
        print(f"load.py: {exc}", file=sys.stderr)
        return 2
    print(json_summary(result) if args.json else format_summary(result))
    return 1 if all_failed(result) else 0


if __name__ == "__main__":
    sys.exit(main())
