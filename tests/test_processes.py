"""The runtime contract, as operators use it: `make run` serves web and an in-process
worker; the Procfile's web, worker and clock share work through Redis; gunicorn keeps an idle
connection open for longer than the browser app's longest poll."""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest

from config import ROOT
from tests.conftest import TEST_DATABASE_URL, TEST_REDIS_URL

VENV_BIN = ROOT / ".venv" / "bin"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, json.loads(response.read()), response.headers


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except OSError as exc:
            last = exc
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def _metrics(url: str) -> "_Figures":
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.status == 200 and response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    return _Figures((sample.name, sample.labels, sample.value)
                    for family in text_string_to_metric_families(text) for sample in family.samples)


class _Figures(dict):
    """Samples by (name, labels); `(name, labels) in figures` matches a subset of labels."""

    def __init__(self, samples):
        super().__init__(((name, tuple(sorted(labels.items()))), value) for name, labels, value in samples)

    def _find(self, key):
        name, labels = key
        return [v for (n, found), v in self.items() if n == name and set(labels.items()) <= set(found)]

    def __contains__(self, key):
        return bool(self._find(key))

    def __getitem__(self, key):
        (found,) = self._find(key)
        return found


def _stop(process, timeout=30):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise AssertionError("process did not stop on SIGTERM")


def _base_env(tmp_path, port):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_"))}
    env.update(PORT=str(port), DATABASE_URL=f"sqlite:///{tmp_path / 'run.db'}", OUTBOX_DIR=str(tmp_path / "outbox"),
               SECRET_KEY="process-test-secret-key", HEARTBEAT_SECONDS="1", PYTHONUNBUFFERED="1")
    return env


def test_make_run_serves_health_with_an_in_process_worker_and_stops_on_sigterm(tmp_path):
    port = _free_port()
    log = open(tmp_path / "run.log", "w")
    process = subprocess.Popen(["make", "--no-print-directory", "run"], cwd=ROOT, env=_base_env(tmp_path, port),
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/api/health"
        status, body, headers = _wait_for(lambda: _get_json(url), 120, "GET /api/health")
        assert status == 200 and body["status"] == "ok"
        assert body["database"] == {"backend": "sqlite", "ok": True}
        assert body["broker"] == {"backend": "embedded", "ok": True}
        assert "ff_session=" in headers["Set-Cookie"]
        # The in-process worker beats on boot, and runs the clock's heartbeat jobs.
        _wait_for(lambda: _get_json(url)[1]["worker"]["heard_from"], 30, "the in-process worker")
        with sqlite3.connect(tmp_path / "run.db") as conn:
            assert conn.execute("SELECT COUNT(*) FROM product").fetchone()[0] >= 60
        # GET /metrics from loopback: gunicorn's workers share their figures through the
        # multiprocess folder gunicorn.conf.py made.
        figures = _metrics(f"http://127.0.0.1:{port}/metrics")
        assert ("ff_http_requests_total", {"route": "/api/health", "method": "GET", "status": "200"}) in figures
        assert figures[("ff_broker_up", {})] == 1
    finally:
        code = _stop(process)
        log.close()
    output = (tmp_path / "run.log").read_text()
    assert "Traceback" not in output, output[-3000:]
    assert code in (0, -signal.SIGTERM, 2), output[-2000:]
    with pytest.raises(OSError):
        _get_json(f"http://127.0.0.1:{port}/api/health")


@pytest.mark.skipif(not TEST_REDIS_URL, reason="needs Redis (TEST_REDIS_URL): runs in CI's PostgreSQL and Redis pass")
def test_procfile_processes_share_work_through_redis(tmp_path):
    """web, worker and clock as separate processes: a job sent by web (a sign-in mail) is
    run by the worker process; the clock's heartbeat goes through Redis to the worker."""
    port = _free_port()
    env = _base_env(tmp_path, port)
    # Its own database, never the suite's (whose worker would otherwise take the processes' jobs).
    base, _, suite_db = TEST_REDIS_URL.rpartition("/")
    env["REDIS_URL"] = f"{base}/{13 if suite_db == '14' else 14}"
    env["WORKER_METRICS_PORT"] = str(_free_port())
    if TEST_DATABASE_URL:
        # Named after the suite's own database, so suites of several checkouts never drop each other's.
        env["DATABASE_URL"] = TEST_DATABASE_URL + "_procs"
        _recreate_database(env["DATABASE_URL"])
    env["PATH"] = f"{VENV_BIN}:{env.get('PATH', '')}"
    subprocess.run([str(VENV_BIN / "flask"), "--app", "api", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    commands = {
        "web": [str(VENV_BIN / "gunicorn"), "-c", "gunicorn.conf.py", "api:create_app()"],
        "worker": [str(VENV_BIN / "dramatiq"), "workers.broker", "jobs", "--processes", "1", "--threads", "2"],
        # A second worker command on the same host and WORKER_METRICS_PORT: no clash, one
        # exposition server serves both.
        "worker2": [str(VENV_BIN / "dramatiq"), "workers.broker", "jobs", "--processes", "1", "--threads", "1"],
        "clock": [sys.executable, "-m", "workers.clock"],
    }
    processes = {}
    try:
        for name, command in commands.items():
            processes[name] = subprocess.Popen(command, cwd=ROOT, env=env, stdout=open(tmp_path / f"{name}.log", "w"),
                                               stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}/api/health"
        _, body, _ = _wait_for(lambda: _get_json(url), 60, "the web process")
        assert body["broker"] == {"backend": "redis", "ok": True}
        worker = _wait_for(lambda: _get_json(url)[1]["worker"]["heard_from"] and _get_json(url)[1]["worker"], 60,
                           "the worker process")
        first_seen = worker["last_seen"]
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/account", method="POST",
                                         data=json.dumps({"email": "procs@x.com"}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["status"] == "account_saved"
        outbox = tmp_path / "outbox"
        mailed = _wait_for(lambda: list(outbox.glob("*.eml")), 30, "the worker process to mail the link")
        assert "procs@x.com" in mailed[0].read_text()
        # Beats keep coming from the clock through Redis to the worker.
        _wait_for(lambda: _get_json(url)[1]["worker"]["last_seen"] != first_seen, 30, "a later heartbeat")
        # The web process reads jobs from the job table; the workers' own figures come from
        # dramatiq's middleware on WORKER_METRICS_PORT.
        web = _wait_for(lambda: (f := _metrics(f"http://127.0.0.1:{port}/metrics"))
                        and ("ff_jobs", {"kind": "sign_in_mail", "status": "done"}) in f and f, 30, "the job figures")
        assert web[("ff_workers_alive", {})] >= 1
        worker_url = f"http://127.0.0.1:{env['WORKER_METRICS_PORT']}/metrics"
        figures = _wait_for(lambda: _metrics(worker_url), 30, "the workers' exposition server")
        assert ("dramatiq_messages_total", {"actor_name": "sign_in_mail", "queue_name": "default"}) in figures
    finally:
        for process in processes.values():
            _stop(process)
        # The workers' figures folder outlives them by design (one per host and port); not this test's.
        from workers.metrics import worker_metrics_dir
        from tests.conftest import SETTINGS

        shutil.rmtree(worker_metrics_dir(SETTINGS.but(worker_metrics_port=int(env["WORKER_METRICS_PORT"]))),
                      ignore_errors=True)
    for name in commands:
        assert "Traceback" not in (tmp_path / f"{name}.log").read_text(), name


def _recreate_database(url):
    import psycopg2
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username, dbname="postgres")
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {parts.path.lstrip('/')}")
        cur.execute(f"CREATE DATABASE {parts.path.lstrip('/')}")
    conn.close()


# --- Keep-alive longer than a poll (issue 19, point 8) -----------------------------------------

APP_JS = ROOT / "api" / "static" / "app"


def _poll_intervals_ms() -> dict[str, int]:
    """Every poll pause the browser app can take, read from its JavaScript: the `every`
    option of poll() (its default in poll.js and each caller's), and any screen pausing
    itself with a literal `wait(<ms>)`."""
    found = {}
    for path in sorted(APP_JS.rglob("*.js")):
        for match in re.finditer(r"\bevery\s*[:=]\s*(\d+)|\bwait\(\s*(\d+)\s*\)", path.read_text()):
            found[f"{path.relative_to(APP_JS)}:{match.start()}"] = int(match.group(1) or match.group(2))
    return found


def test_the_keepalive_outlasts_the_longest_poll_of_the_app():
    from config import Settings

    intervals = _poll_intervals_ms()
    # The parse reads the real constants: poll.js's default and the store screen's publish poll.
    assert any(name.startswith("poll.js:") and ms == 1200 for name, ms in intervals.items()), intervals
    assert any(name.startswith("screens/") for name in intervals), intervals
    longest = max(intervals.values()) / 1000
    assert Settings.web_keepalive_seconds > longest, (Settings.web_keepalive_seconds, intervals)
    assert re.search(r"^keepalive = _settings\.web_keepalive_seconds$", (ROOT / "gunicorn.conf.py").read_text(), re.M)


def _reuse_after(port: int, pause: float) -> str:
    """Two GETs on one HTTP/1.1 connection with `pause` seconds between them: `kept` when
    the second is answered on the same connection, `dropped` when the server had closed it."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/static/app/poll.js")
        first = connection.getresponse()
        first.read()
        assert first.status == 200 and not first.will_close
        local = connection.sock.getsockname()
        time.sleep(pause)
        try:
            connection.request("GET", "/static/app/poll.js")
            second = connection.getresponse()
            second.read()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            return "dropped"
        assert second.status == 200 and connection.sock.getsockname() == local
        return "kept"
    finally:
        connection.close()


@pytest.mark.parametrize("keepalive, outcome", [(None, "kept"), ("1", "dropped")])
def test_a_connection_idle_for_longer_than_a_poll_is_still_open(tmp_path, keepalive, outcome):
    """gunicorn as the Procfile runs it: a connection reused after a pause longer than the
    app's longest poll is answered (WEB_KEEPALIVE_SECONDS at its default); with a keep-alive
    shorter than the pause (1 s) the same reuse is dropped, so the check can tell them apart."""
    port = _free_port()
    env = _base_env(tmp_path, port)
    env.pop("WEB_KEEPALIVE_SECONDS", None)
    if keepalive is not None:
        env["WEB_KEEPALIVE_SECONDS"] = keepalive
    log = open(tmp_path / "web.log", "w")
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "api:create_app()"],
                               cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/static/app/poll.js"
        _wait_for(lambda: urllib.request.urlopen(url, timeout=5).status == 200, 60, "gunicorn")
        pause = max(_poll_intervals_ms().values()) / 1000 + 1
        assert _reuse_after(port, pause) == outcome
    finally:
        _stop(process)
        log.close()
    assert "Traceback" not in (tmp_path / "web.log").read_text()
