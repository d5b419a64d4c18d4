"""A Redis server of the test's own, on a free port, that the test can stop and start again.

The fault tests take Redis away (stopped, flushed) without touching the suite's Redis
(TEST_REDIS_URL), which the suite's own workers and locks keep using. It keeps nothing on
disk, like the machine's Redis, so a restart comes back empty unless `keep=True` (then a
stop saves a dump the next start loads, as a Redis restarted by its operator would).
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_server_binary() -> str:
    found = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(found).exists():
        raise RuntimeError("redis-server is not installed (Debian package redis-server); the fault tests need one")
    return found


class RedisServer:
    def __init__(self, *, port: int | None = None, keep: bool = False):
        self.port = port or free_port()
        self.keep = keep
        self.dir = Path(tempfile.mkdtemp(prefix="ff-test-redis-"))
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self, timeout: float = 10) -> RedisServer:
        save = ["--save", "", "--dbfilename", "dump.rdb"] if self.keep else ["--save", ""]
        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--appendonly", "no",
             "--dir", str(self.dir), *save, "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode} on port {self.port}")
            if self.ping():
                return self
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer on port {self.port}")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Stops the server (saving first when `keep`); its port stays this server's to start again."""
        if self.process is None or self.process.poll() is not None:
            return
        if self.keep:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as conn:
                    conn.sendall(b"SAVE\r\n")
                    conn.recv(64)
            except OSError:
                pass
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def hang(self) -> None:
        """Freezes the server (SIGSTOP): connections are still accepted (by the kernel) and
        kept, requests are taken in, and nothing is answered, as with a Redis stuck on a slow
        disk or a network that drops packets."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def unhang(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
