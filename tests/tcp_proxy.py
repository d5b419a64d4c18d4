"""A TCP proxy the test can cut: from a free local port to an upstream address (PostgreSQL on
127.0.0.1:5432), so a fault test takes the database away from the service's processes without
stopping the machine's PostgreSQL, which other tests and other checkouts use.

`cut()` closes every open connection (both ends, as a crashed server or a dropped network
would) and stops listening, so new connections are refused; `restore()` listens again on the
same port. `freeze()` is the other outage, a database that stops answering without a word
(a network that drops packets, a hung server): every connection stays open and new ones are
still accepted (the upstream hears of them only at the thaw), but nothing is passed on either
way until `thaw()`, which delivers what waited (as TCP would once the network came back). Threads, one pair per connection: a test's
few dozen connections need no more.
"""
from __future__ import annotations

import socket
import threading

from tests.redis_server import free_port


class TcpProxy:
    def __init__(self, upstream_host: str = "127.0.0.1", upstream_port: int = 5432, *, port: int | None = None):
        self.upstream = (upstream_host, upstream_port)
        self.port = port or free_port()
        self.accepted = 0  # connections taken over the proxy's life
        self.cuts = 0
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None
        self._flowing = threading.Event()
        self._flowing.set()

    # -- the switch --------------------------------------------------------------------------

    def start(self) -> TcpProxy:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # The port is this proxy's to listen on again after a cut (TIME_WAIT must not stop it).
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self._listener = listener
        self._acceptor = threading.Thread(target=self._accept, args=(listener,), name="tcp-proxy-accept", daemon=True)
        self._acceptor.start()
        return self

    def cut(self) -> int:
        """Refuses new connections and closes every open one; returns how many were open."""
        listener, self._listener = self._listener, None
        if listener is not None:
            _close(listener)
        if self._acceptor is not None:
            self._acceptor.join(timeout=5)
        with self._lock:
            doomed, self._open = self._open, set()
            self.cuts += 1
        for sock in doomed:
            _close(sock)
        return len(doomed) // 2

    def restore(self) -> None:
        self.start()

    def freeze(self) -> int:
        """Stops passing anything on, closing nothing; returns how many connections were open."""
        self._flowing.clear()
        return self.open_connections()

    def thaw(self) -> None:
        self._flowing.set()

    def open_connections(self) -> int:
        with self._lock:
            return len(self._open) // 2

    def close(self) -> None:
        self.thaw()  # let the pumps waiting on a freeze see the cut
        self.cut()

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the plumbing --------------------------------------------------------------------------

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # the listener was closed: a cut
                return
            threading.Thread(target=self._join, args=(listener, client), name="tcp-proxy-join", daemon=True).start()

    def _join(self, listener: socket.socket, client: socket.socket) -> None:
        """Connects a client to the upstream. During a freeze the upstream never hears of it
        until the thaw, as a server behind a network that drops packets does not: a frozen
        PostgreSQL gets no backend per attempt (which would fill its max_connections for the
        other tests on the machine)."""
        self._flowing.wait()
        try:
            server = socket.create_connection(self.upstream, timeout=5)
            server.settimeout(None)
        except OSError:
            _close(client)
            return
        with self._lock:
            if self._listener is not listener:  # cut while connecting
                _close(client)
                _close(server)
                return
            self._open.update((client, server))
            self.accepted += 1
        for source, target in ((client, server), (server, client)):
            threading.Thread(target=self._pump, args=(source, target), name="tcp-proxy-pump", daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self._flowing.wait()  # a freeze holds what arrived until the thaw
                target.sendall(data)
        except OSError:
            pass
        # One side ended: end both, so neither end waits on a half-open connection.
        with self._lock:
            self._open.discard(source)
            self._open.discard(target)
        _close(source)
        _close(target)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
