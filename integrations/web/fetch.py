"""The fetcher: GET a page, or ask a link's status, from a URL a stranger gave.

Every hop (the URL, then each redirect) is parsed and checked before anything is connected:
scheme, credentials, port, the spelling of the host, then one resolution whose every answer
must be a public address. The connection is made to that checked address through urllib3
(`HTTPConnectionPool(ip, port)`, or `HTTPSConnectionPool(ip, port, server_hostname=host,
assert_hostname=host)` so the certificate is still checked against the name) with the name in
a `Host` header: no second lookup happens anywhere, so a DNS answer that changes between the
check and the connection (DNS rebinding) cannot turn the fetch inward. urllib3 reads no proxy
settings from the environment, so nothing reroutes the connection either.

One deadline covers a whole call (every hop's connection, TLS handshake, headers and body):
a watchdog shuts the sockets down when it passes, because per-read timeouts alone let a
server that trickles a byte a second hold a worker forever. The body is counted as it is
decoded, so a small gzip bomb is cut off at the cap without being inflated first.
"""
from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

import idna
import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection

from integrations.web import FetchFailed, FetchRefused
from integrations.web.addresses import literal_host, public_address

__all__ = ["USER_AGENT", "FetchFailed", "FetchRefused", "Fetcher", "Response", "fetcher_for", "system_resolver"]

USER_AGENT = "SourcingStorefrontFix/1 (+store audit)"
DEFAULT_PORTS = {"http": 80, "https": 443}
REDIRECTS = (301, 302, 303, 307, 308)
MAX_URL = 8192
_CHUNK = 16 * 1024

# Control characters are refused rather than stripped: urlsplit silently drops tabs and
# newlines, and a check that reads a different URL than the one given checks nothing. (A space
# is refused in the host by its spelling, and sent percent-encoded in a path.)
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")
_AUTHORITY = re.compile(r"(?P<host>\[[^\[\]]*\]|[^\[\]:]*)(?::(?P<port>[0-9]*))?")
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")

Resolver = Callable[[str, int], list[str]]


@dataclass(frozen=True)
class Response:
    url: str            # the final URL, after redirects
    status: int
    headers: dict       # lower-case names -> value (the last one wins)
    body: bytes         # at most max_bytes, decoded from gzip/deflate
    redirects: tuple    # the URLs redirected through, in order (without the final one)


@dataclass(frozen=True)
class _Target:
    """One hop, checked: where to connect, and what to ask for there."""
    url: str
    scheme: str
    host: str       # the name (ASCII, lower case, no brackets): Host header, SNI, certificate check
    port: int
    address: str | None  # the checked address the connection goes to (None: not resolved)
    path: str       # the request target: path and query

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system resolver answers for a name, in its order, each once."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class Fetcher:
    """Fetches public http(s) pages; see the module docstring for the rules every hop passes."""

    def __init__(self, *, allow_hosts=(), resolver: Resolver | None = None, timeout: float = 10.0,
                 max_bytes: int = 2 * 1024 * 1024, max_redirects: int = 5, ports=(80, 443)):
        self.allow_hosts = tuple(entry.strip().lower() for entry in allow_hosts if entry.strip())
        self._allowed = frozenset(_allow_entry(entry) for entry in self.allow_hosts)
        self.resolver = resolver or system_resolver
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.ports = tuple(ports)

    def get(self, url: str) -> Response:
        """Fetches the page, following redirects; each hop is checked again."""
        return self._follow("GET", url, read_body=True)

    def status_of(self, url: str) -> int | None:
        """The status a link answers (HEAD, then GET when HEAD is refused); None when refused or failed."""
        try:
            status = self._follow("HEAD", url, read_body=False).status
            if status in (405, 501):
                status = self._follow("GET", url, read_body=False).status
            return status
        except (FetchRefused, FetchFailed):
            return None

    def _follow(self, method: str, url: str, *, read_body: bool) -> Response:
        deadline = _Deadline(self.timeout)
        try:
            current, passed = url, []
            while True:
                target = self.check(current)
                status, headers, body = self._exchange(method, target, deadline, read_body=read_body)
                location = headers.get("location", "").strip() if status in REDIRECTS else ""
                if not location:
                    return Response(url=current, status=status, headers=headers, body=body, redirects=tuple(passed))
                # Redirects are followed by hand so the next hop goes through check() like the first:
                # a public page that answers "302 Location: http://169.254.169.254/" gets nothing.
                if len(passed) >= self.max_redirects:
                    raise FetchRefused("too_many_redirects", current)
                passed.append(current)
                current = urljoin(current, location)
        finally:
            deadline.close()

    def check(self, url: str, *, resolve: bool = True) -> _Target:
        """Applies every rule that comes before a connection and answers the checked hop; raises
        FetchRefused. With resolve=False a name is not looked up (nor its addresses judged), for an
        answer at once on what the URL itself shows; the address it answers is then None."""
        if not isinstance(url, str) or len(url) > MAX_URL or _UNSAFE.search(url):
            raise FetchRefused("bad_url", _shown(url))
        url = url.strip(" ")
        try:
            parts = urlsplit(url)
        except ValueError:
            raise FetchRefused("bad_url", _shown(url)) from None
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS:
            # file:, gopher:, dict:, ftp:, data: and the like reach things that are not web pages.
            raise FetchRefused("bad_scheme", _shown(url))
        if "@" in parts.netloc:
            # Credentials are never sent, and user@host is a classic way to make a URL read as
            # one host to a person and as another to a parser.
            raise FetchRefused("credentials_in_url", _shown(url))
        authority = _AUTHORITY.fullmatch(parts.netloc)
        if not authority or not authority["host"] or not authority["host"].strip("[]"):
            raise FetchRefused("bad_url", url)
        written = authority["host"].lower()
        port = int(authority["port"]) if authority["port"] else DEFAULT_PORTS[scheme]
        if port > 65535:
            raise FetchRefused("bad_url", url)
        host = _ascii_host(written, url)
        exempt = (written.strip("[]"), port) in self._allowed or (written.strip("[]"), None) in self._allowed
        if port not in self.ports and not exempt:
            # Only the web's own ports: 22, 25, 6379, 5432 and the like are other services'
            # doors, which an HTTP request can still knock on.
            raise FetchRefused("bad_port", url)
        try:
            literal = literal_host(host)
        except FetchRefused as exc:
            raise FetchRefused(exc.reason, url) from None
        name = host.strip("[]").rstrip(".")
        if literal is not None:
            addresses = [literal]
        elif not exempt and (name == "localhost" or name.endswith(".localhost")):
            # localhost names the machine itself whatever a resolver says (RFC 6761).
            raise FetchRefused("address_not_public", url)
        elif not resolve:
            addresses = []
        else:
            addresses = self._resolve(name, port, url)
        # Every answer must be public, not just the first: a name answering one public and one
        # inward address would otherwise reach inward on whichever one a connection picks.
        if not exempt and not all(public_address(address) for address in addresses):
            raise FetchRefused("address_not_public", url)
        path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~") + (
            "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?") if parts.query else "")
        address = str(addresses[0]) if addresses else None
        return _Target(url=url, scheme=scheme, host=name, port=port, address=address, path=path)

    def _resolve(self, name: str, port: int, url: str) -> list:
        """Resolves the name once; the answers are the only addresses this hop may connect to."""
        try:
            answers = [ipaddress.ip_address(answer) for answer in self.resolver(name, port)]
        except (OSError, UnicodeError, ValueError):
            raise FetchRefused("unresolvable", url) from None
        if not answers:
            raise FetchRefused("unresolvable", url)
        return answers

    def _exchange(self, method: str, target: _Target, deadline: _Deadline, *, read_body: bool):
        """Sends one request to the checked address; answers (status, headers, body)."""
        remaining = deadline.remaining()
        if remaining <= 0:
            raise FetchFailed("timeout", target.url)
        timeout = urllib3.Timeout(connect=remaining, read=remaining)
        if target.scheme == "https":
            pool = _HTTPSPool(target.address, target.port, timeout=timeout, retries=False, maxsize=1,
                              server_hostname=target.host, assert_hostname=target.host,
                              cert_reqs="CERT_REQUIRED", deadline=deadline)
        else:
            pool = _HTTPPool(target.address, target.port, timeout=timeout, retries=False, maxsize=1,
                             deadline=deadline)
        # No Cookie, Authorization or Referer, ever: a store's answer must not learn anything of ours,
        # and cookies a page sets are not kept (there is no jar), so none goes back on a redirect.
        headers = {"Host": target.host_header, "User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate",
                   "Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Connection": "close"}
        response = None
        try:
            response = pool.urlopen(method, target.path, headers=headers, retries=False, redirect=False,
                                    assert_same_host=False, preload_content=False, decode_content=False,
                                    release_conn=False)
            answered = {name.lower(): value for name, value in response.headers.iteritems()}
            body = b""
            if read_body and not (response.status in REDIRECTS and answered.get("location", "").strip()):
                body = self._read_body(response, answered, target.url)
            if deadline.expired:
                # A body cut by the watchdog can end like a complete one (a close with no length).
                raise FetchFailed("timeout", target.url)
            return response.status, answered, body
        except (FetchFailed, FetchRefused):
            raise
        except Exception as exc:  # every way an exchange can break becomes one of the seam's reasons
            raise FetchFailed(_failure(exc, deadline), target.url) from exc
        finally:
            if response is not None:
                response.close()
            pool.close()

    def _read_body(self, response, headers: dict, url: str) -> bytes:
        """Reads at most max_bytes of decoded body; more is `too_large`."""
        length = headers.get("content-length", "").strip()
        if length.isdigit() and int(length) > self.max_bytes:
            raise FetchFailed("too_large", url)  # refused before a byte of it is read
        decoder = _decoder(headers.get("content-encoding", ""), url)
        body = bytearray()
        while chunk := response.read(_CHUNK, decode_content=False):
            # Decoded output is asked for one byte past what is left, so a bomb inflates no
            # further than the cap before it is cut off.
            body += decoder(chunk, self.max_bytes - len(body) + 1) if decoder else chunk
            if len(body) > self.max_bytes:
                raise FetchFailed("too_large", url)
        return bytes(body)


def fetcher_for(settings) -> Fetcher:
    """The service's fetcher: the defaults, with the settings' FIX_ALLOW_HOSTS exemptions."""
    return Fetcher(allow_hosts=settings.fix_allow_hosts)


def _allow_entry(entry: str) -> tuple[str, int | None]:
    """`host` or `host:port` (an IPv6 host in brackets) as (host, port or None)."""
    match = _AUTHORITY.fullmatch(entry)
    if not match or not match["host"].strip("[]"):
        raise ValueError(f"an allowed host must be host or host:port, got {entry!r}")
    return match["host"].strip("[]"), int(match["port"]) if match["port"] else None


def _ascii_host(written: str, url: str) -> str:
    """The host as the resolver and the Host header get it: ASCII (IDNA for Unicode names)."""
    if written.startswith("["):
        return written  # literal_host reads (or refuses) what is between the brackets
    if "%" in written:
        raise FetchRefused("odd_spelling", url)  # a percent-encoded host: see literal_host
    host = written
    if not written.isascii():
        try:
            host = idna.encode(written, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            raise FetchRefused("bad_url", url) from None
    if not _NAME.fullmatch(host):
        raise FetchRefused("bad_url", url)
    return host


def _shown(url) -> str:
    """The URL as an error may show it: without any user:password@."""
    if not isinstance(url, str):
        return ""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@", r"\1", url[:MAX_URL])


def _decoder(encoding: str, url: str):
    """A function (data, max_length) -> decoded bytes for the body's Content-Encoding, or None."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        inflater = _Deflate()
    else:
        raise FetchFailed("bad_response", url)  # only gzip and deflate are asked for

    def decode(data: bytes, max_length: int) -> bytes:
        try:
            return inflater.decompress(data, max_length)
        except zlib.error:
            raise FetchFailed("bad_response", url) from None
    return decode


class _Deflate:
    """HTTP's deflate is zlib-wrapped, but some servers send it raw: the first bytes tell which."""

    def __init__(self):
        self._inflater = None

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._inflater is None:
            wrapped = len(data) >= 2 and (data[0] & 0x0F) == 8 and (data[0] * 256 + data[1]) % 31 == 0
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        return self._inflater.decompress(data, max_length)


def _failure(exc: Exception, deadline: _Deadline) -> str:
    """The seam's reason for an exception raised while talking to the server."""
    if deadline.expired or deadline.remaining() <= 0:
        return "timeout"  # the watchdog cut the socket, whatever error that surfaced as
    if isinstance(exc, urllib3.exceptions.SSLError):
        return "tls_failed"
    if isinstance(exc, urllib3.exceptions.NewConnectionError):
        return "connection_failed"
    if isinstance(exc, (urllib3.exceptions.TimeoutError, socket.timeout)):
        return "timeout"
    if isinstance(exc, (urllib3.exceptions.ProtocolError, ConnectionError)):
        return "connection_failed"
    return "bad_response"


class _Deadline:
    """The whole call's clock. At the deadline every socket it watches is shut down, which wakes
    a read blocked on it: a per-read timeout alone restarts with every byte a server trickles."""

    def __init__(self, seconds: float):
        self._at = time.monotonic() + seconds
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer: threading.Timer | None = None

    def remaining(self) -> float:
        return self._at - time.monotonic()

    def watch(self, sock: socket.socket) -> None:
        # A duplicate of the socket is kept: wrapping it in TLS detaches the original object, and
        # shutting down the duplicate still stops the one connection both name.
        with self._lock:
            self._sockets.append(sock.dup())
            if self._timer is None:
                self._timer = threading.Timer(max(self.remaining(), 0), self._expire)
                self._timer.daemon = True
                self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already closed by the other side

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            for sock in self._sockets:
                sock.close()
            self._sockets = []


class _Watched:
    """Mixed into urllib3's connections: the socket is handed to the call's deadline as soon as
    it exists (for TLS, before the handshake, so the deadline covers that too)."""

    def __init__(self, *args, deadline: _Deadline, **kwargs):
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        self._deadline.watch(sock)
        return sock


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class _HTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _HTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection
