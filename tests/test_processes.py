"""The runtime contract, as operators use it: `make run` serves web and an in-process
worker; the Procfile's web, worker and clock share work through Redis; gunicorn keeps an idle
connection open for longer than the browser app's longest poll, prints JSON lines only, and
leaves no control socket for another instance to take."""
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
from tests.helpers import wait_for

VENV_BIN = ROOT / ".venv" / "bin"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, json.loads(response.read()), response.headers


def _wait_for(predicate, timeout: float, what: str):
    """A process starting refuses connections for a while: that is "not yet"."""
    return wait_for(predicate, timeout, what, every=0.3, tolerate=(OSError,))


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
        raise AssertionError("process did not stop on SIGTERM") from None


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


def procfile() -> dict[str, str]:
    """The Procfile's commands by process type."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    return {name.strip(): command.strip() for name, _, command in (line.partition(":") for line in lines) if command}


@pytest.mark.servers  # needs Redis (TEST_REDIS_URL): runs in CI's PostgreSQL and Redis pass
def test_procfile_processes_share_work_through_redis(tmp_path):
    """web, worker and clock as separate processes, each started from the Procfile's own
    command line as honcho runs it (`sh -c` in the checkout, the virtualenv not activated
    and not on PATH): a job sent by web (a sign-in mail) is run by a worker process; the
    clock's heartbeat goes through Redis to the workers."""
    port = _free_port()
    env = _base_env(tmp_path, port)
    # Its own database, never the suite's (whose worker would otherwise take the processes' jobs).
    base, _, suite_db = TEST_REDIS_URL.rpartition("/")
    env["REDIS_URL"] = f"{base}/{13 if suite_db == '14' else 14}"
    # Left over from an earlier run (say one whose clock still sent jobs that no longer exist): gone.
    import redis as redis_client

    redis_client.Redis.from_url(env["REDIS_URL"]).flushdb()
    env["WORKER_METRICS_PORT"] = str(_free_port())
    env["WORKER_THREADS"] = "2"
    if TEST_DATABASE_URL:
        # Named after the suite's own database, so suites of several checkouts never drop each other's.
        env["DATABASE_URL"] = TEST_DATABASE_URL + "_procs"
        _recreate_database(env["DATABASE_URL"])
    # The commands name the virtualenv's programs themselves (.venv/bin/...): nothing of it on PATH.
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and not p.startswith(str(VENV_BIN.parent)))
    env.pop("VIRTUAL_ENV", None)
    subprocess.run([str(VENV_BIN / "flask"), "--app", "api", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    commands = procfile()
    assert commands["worker"] == ".venv/bin/python -m workers.worker", commands
    # A second worker process on the same host and WORKER_METRICS_PORT (honcho's -c worker=2):
    # no clash, one of them serves the figures of both.
    commands = {"web": commands["web"], "worker": commands["worker"], "worker2": commands["worker"],
                "clock": commands["clock"]}
    processes = {}
    try:
        for name, command in commands.items():
            processes[name] = subprocess.Popen(["sh", "-c", "exec " + command], cwd=ROOT, env=env,
                                               stdout=open(tmp_path / f"{name}.log", "w"),
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
        from tests.conftest import SETTINGS
        from workers.metrics import worker_metrics_dir

        shutil.rmtree(worker_metrics_dir(SETTINGS.but(worker_metrics_port=int(env["WORKER_METRICS_PORT"]))),
                      ignore_errors=True)
    for name in commands:
        assert "Traceback" not in (tmp_path / f"{name}.log").read_text(), name


def _recreate_database(url):
    from urllib.parse import urlsplit

    import psycopg2

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


def _knock(port: int) -> str:
    """One GET /api/health on a new connection: "refused", "answered" within a second, or
    "unanswered" (the connection was taken and nothing came back within the second)."""
    try:
        connection = socket.create_connection(("127.0.0.1", port), timeout=1)
    except ConnectionRefusedError:
        return "refused"
    except TimeoutError:
        return "unanswered"
    try:
        connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return "answered" if connection.recv(12).startswith(b"HTTP/1.1 200") else "unanswered"
    except (TimeoutError, ConnectionResetError):
        return "unanswered"
    finally:
        connection.close()


def test_gunicorn_takes_connections_only_once_the_app_is_loaded(tmp_path):
    """After a whole-stack restart gunicorn took connections about 15 s before it could answer
    them (its workers loaded the app after it had bound its port), so a prober or the front
    waited on connections nobody read. gunicorn.conf.py loads the app in the master before it
    binds: while the app loads (4 s here) a connection is refused, which the front answers at
    once as `service_restarting`, and the first one taken is answered."""
    port = _free_port()
    env = _base_env(tmp_path, port) | {"PYTHONPATH": str(ROOT), "SLOW_LOAD_SECONDS": "4"}
    log = open(tmp_path / "web.log", "w")
    process = subprocess.Popen([str(VENV_BIN / "gunicorn"), "-c", "gunicorn.conf.py", "tests.slow_loading_app:create_app()"],
                               cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    knocks = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not knocks or knocks[-1] != "answered"):
            knocks.append(_knock(port))
            if knocks[-1] == "refused":
                time.sleep(0.2)
    finally:
        _stop(process)
        log.close()
    assert knocks[-1] == "answered", knocks
    assert "unanswered" not in knocks, knocks
    assert knocks.count("refused") >= 10, knocks  # it was loading for those 4 s, and said so at once


# --- gunicorn's own lines and its control socket (issue 21, point 6) ----------------------------


def _json_lines(text: str) -> list[dict]:
    """Every line of the output as a JSON object (an AssertionError names the first that is not)."""
    found = []
    for line in text.splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"not a JSON line: {line!r}") from None
        assert isinstance(found[-1], dict), line
    return found


def _sockets_under(*folders) -> list[str]:
    return [str(path) for folder in folders for path in folder.rglob("*") if path.is_socket()]


def test_two_gunicorn_instances_side_by_side_share_no_control_socket_and_print_json_lines_only(tmp_path):
    """gunicorn 25.1+ opens its control socket at one path per user ($XDG_RUNTIME_DIR/gunicorn.ctl
    or ~/.gunicorn/gunicorn.ctl), which a second instance takes over: gunicorn.conf.py turns it
    off. Two instances run side by side with one HOME and one XDG_RUNTIME_DIR and leave no socket
    there; the same settings with the socket on (the control) leave one, so the check can tell.
    Every line either prints at start and stop is one JSON object, and so is every line of an
    instance whose app fails to load (its traceback inside one)."""
    home, runtime = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    runtime.mkdir()
    control = tmp_path / "control.conf.py"
    control.write_text((ROOT / "gunicorn.conf.py").read_text().replace("control_socket_disable = True",
                                                                       "control_socket_disable = False"))

    def start(name, config="gunicorn.conf.py", app="api:create_app()"):
        port = _free_port()
        env = _base_env(tmp_path / name, port) | {"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime),
                                                  "PYTHONPATH": str(ROOT)}
        (tmp_path / name).mkdir()
        log = open(tmp_path / f"{name}.log", "w")
        process = subprocess.Popen([str(VENV_BIN / "gunicorn"), "-c", str(config), app], cwd=ROOT, env=env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return process, port, log

    instances = {name: start(name) for name in ("one", "two")}
    try:
        for _, port, _ in instances.values():
            _wait_for(lambda port=port: _get_json(f"http://127.0.0.1:{port}/api/health")[0] == 200, 60, "gunicorn")
        assert _sockets_under(home, runtime) == []
        checked = start("control", config=control)
        try:
            _wait_for(lambda: _sockets_under(home, runtime), 60, "the control instance's socket")
        finally:
            _stop(checked[0])
            checked[2].close()
    finally:
        for process, _, log in instances.values():
            _stop(process)
            log.close()
    for name in ("one", "two"):
        lines = _json_lines((tmp_path / f"{name}.log").read_text())
        said = [line["msg"] for line in lines if line["logger"] == "gunicorn.error"]
        assert any(m.startswith("Starting gunicorn") for m in said) and "Shutting down: Master" in said, said

    process, _, log = start("broken", app="tests.no_such_module:app")
    assert process.wait(timeout=60) != 0
    log.close()
    lines = _json_lines((tmp_path / "broken.log").read_text())
    assert any("No module named" in line.get("traceback", "") for line in lines), lines


def test_gunicorn_prints_no_access_line_so_no_query_string_reaches_the_log(tmp_path):
    """The sign-in link carries its token in the query string (GET /login?token=...). gunicorn
    turns its access log on whenever a logconfig_dict is given, accesslog = None or not, and
    that line prints the query string: gunicorn.conf.py's logger class turns it off. Only the
    app's own request line is printed, with the path alone."""
    port = _free_port()
    env = _base_env(tmp_path, port) | {"PYTHONPATH": str(ROOT)}
    secret = "tok" + os.urandom(12).hex()
    subprocess.run([str(VENV_BIN / "flask"), "--app", "api", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    with open(tmp_path / "web.log", "w") as log:
        process = subprocess.Popen([str(VENV_BIN / "gunicorn"), "-c", "gunicorn.conf.py", "api:create_app()"], cwd=ROOT,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            _wait_for(lambda: _get_json(f"http://127.0.0.1:{port}/api/health")[0] == 200, 60, "gunicorn")
            for path in (f"/login?token={secret}", f"/api/health?token={secret}"):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", path)
                status = connection.getresponse().status
                connection.close()
                assert status < 500, (path, status)
        finally:
            _stop(process)
    text = (tmp_path / "web.log").read_text()
    assert secret not in text
    lines = _json_lines(text)
    assert [line for line in lines if line["logger"] == "gunicorn.access"] == []
    requests = [(line["route"], line["path"]) for line in lines if line["logger"] == "api.request"]
    assert ("/login", "/login") in requests and ("/api/health", "/api/health") in requests, requests
