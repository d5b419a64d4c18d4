"""Several hosts, stated and checked (issue 45, point 7).

- Inbound mail: each worker's beat records its host and the mail it reads; GET /api/health
  names the mail source (IMAP, or the folder and whether it is declared shared), and warns
  (a field, and a log line naming the hosts) when workers on several hosts read folders
  local to their host: mail delivered on one host would be filed only by that host's workers.
- The worker metrics port: two deployments on one host that share WORKER_METRICS_PORT
  collided, and the one that could not bind claimed another process served its figures.
  Now it logs an error naming the port, and the true claim only when a worker of its own
  checkout holds the port. These run `serve_worker_metrics` in processes of their own, as
  worker processes do (it switches prometheus-client into multiprocess mode).
"""
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import services.health
from config import ROOT
from models.clock import clock
from models.job import WorkerBeat
from services.health import record_worker_beat
from tests.conftest import SETTINGS
from tests.helpers import wait_for
from tests.redis_server import free_port
from workers.metrics import worker_metrics_dir


@pytest.fixture
def fresh_mail_warning(monkeypatch):
    """The several-hosts log line as if this process had never written it."""
    monkeypatch.setattr(services.health, "_mail_warned", {"hosts": (), "at": 0.0})


def mail_of(client) -> dict:
    response = client.get("/api/health")
    assert response.status_code == 200
    return response.get_json()["mail"]


def test_health_names_the_mail_source_imap_or_the_folder(client, settings_with):
    WorkerBeat.delete().execute()
    settings_with(imap_url="imaps://desk:hunter2@mail.example.com/INBOX")
    response = client.get("/api/health")
    assert response.get_json()["mail"] == {"source": "imap", "folder": None, "folder_shared": False,
                                           "local_folder_hosts": 0, "warning": None}
    assert "hunter2" not in response.get_data(as_text=True) and "mail.example.com" not in response.get_data(as_text=True)
    settings_with(inbound_dir_shared=True)
    assert mail_of(client) == {"source": "folder", "folder": SETTINGS.inbound_maildir, "folder_shared": True,
                               "local_folder_hosts": 0, "warning": None}
    settings_with()
    assert mail_of(client)["folder_shared"] is False


def test_a_beat_records_the_mail_its_worker_reads():
    record_worker_beat("host-a:101", SETTINGS)
    assert WorkerBeat.get_by_id("host-a:101").mail_source == f"local:{SETTINGS.inbound_maildir}"
    record_worker_beat("host-a:101", SETTINGS.but(inbound_dir_shared=True))
    assert WorkerBeat.get_by_id("host-a:101").mail_source == f"shared:{SETTINGS.inbound_maildir}"
    record_worker_beat("host-a:101", SETTINGS.but(imap_url="imaps://desk:hunter2@mail.example.com/INBOX"))
    assert WorkerBeat.get_by_id("host-a:101").mail_source == "imap"


def test_workers_on_two_hosts_reading_local_folders_are_warned_about(client, caplog, fresh_mail_warning):
    WorkerBeat.delete().execute()
    record_worker_beat("host-a:101", SETTINGS)
    record_worker_beat("host-a:102", SETTINGS)  # two workers, one host: its folder serves them both
    assert mail_of(client)["local_folder_hosts"] == 1 and mail_of(client)["warning"] is None

    record_worker_beat("host-b:201", SETTINGS)
    with caplog.at_level(logging.WARNING, logger="services.health"):
        response = client.get("/api/health")
    mail = response.get_json()["mail"]
    assert mail["local_folder_hosts"] == 2
    assert "IMAP_URL" in mail["warning"] and "INBOUND_DIR_SHARED=1" in mail["warning"]
    assert response.get_json()["status"] == "ok"  # the database, broker and workers answer
    # The hosts are named in the log, not in the public answer.
    lines = [r for r in caplog.records if r.name == "services.health" and r.levelno == logging.WARNING]
    assert len(lines) == 1 and lines[0].fields["hosts"] == ["host-a", "host-b"]
    assert "host-a" not in response.get_data(as_text=True)
    with caplog.at_level(logging.WARNING, logger="services.health"):
        mail_of(client)
    assert len([r for r in caplog.records if r.name == "services.health"]) == 1  # not once per probe

    # Both hosts' workers now read one folder every host mounts: nothing to warn about.
    for worker in ("host-a:101", "host-a:102", "host-b:201"):
        record_worker_beat(worker, SETTINGS.but(inbound_dir_shared=True))
    assert mail_of(client)["local_folder_hosts"] == 0 and mail_of(client)["warning"] is None
    # Or IMAP on one host, a local folder on the other: one host reads a local folder.
    record_worker_beat("host-a:101", SETTINGS)
    record_worker_beat("host-b:201", SETTINGS.but(imap_url="imaps://desk:pw@mail.example.com/INBOX"))
    assert mail_of(client)["local_folder_hosts"] == 1 and mail_of(client)["warning"] is None


def test_a_host_whose_workers_went_silent_no_longer_counts(client):
    WorkerBeat.delete().execute()
    record_worker_beat("host-a:101", SETTINGS)
    record_worker_beat("host-b:201", SETTINGS)
    assert mail_of(client)["warning"] is not None
    clock.advance(SETTINGS.worker_stale_seconds + 1)
    record_worker_beat("host-b:201", SETTINGS)  # host-a's workers were moved away
    assert mail_of(client)["local_folder_hosts"] == 1 and mail_of(client)["warning"] is None


# --- The worker metrics port ---------------------------------------------------------------------

SERVE = """
import sys, threading
from config import configure_logging, settings_or_exit
from workers.metrics import serve_worker_metrics
settings = settings_or_exit()
configure_logging(settings)
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
serve_worker_metrics(settings, stop=stop)
"""


@pytest.fixture
def figures_servers(tmp_path):
    """Starts processes running serve_worker_metrics on a port (`start(port)`, each with its
    log in a file); `stop(process)` ends one and answers its workers.metrics log lines."""
    started = []

    def start(port: int) -> subprocess.Popen:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_"))}
        env.update(WORKER_METRICS_PORT=str(port), SECRET_KEY=SETTINGS.secret_key, BUILD_ID="test",
                   DATABASE_URL=f"sqlite:///{tmp_path / 'unused.db'}", PYTHONUNBUFFERED="1")
        log_path = tmp_path / f"figures-{len(started) + 1}.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen([sys.executable, "-c", SERVE], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                       stderr=log)
        process.log_path, process.port = log_path, port
        started.append(process)
        return process

    def stop(process) -> list[dict]:
        process.stdin.close()  # the process stops serving, or trying to
        assert process.wait(timeout=30) == 0
        return said(process)

    yield start, stop
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        shutil.rmtree(worker_metrics_dir(SETTINGS.but(worker_metrics_port=process.port)), ignore_errors=True)


def said(process) -> list[dict]:
    """The process's log lines from the figures server (each one JSON object)."""
    lines = [json.loads(line) for line in process.log_path.read_text().splitlines() if line.strip()]
    return [line for line in lines if line.get("logger") == "workers.metrics"]


class _OtherProgram(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"another deployment's figures\n")

    def log_message(self, format, *args):  # noqa: A002  (the stdlib's name)
        pass


def _figures(port: int) -> bytes:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        return answer.read()


def test_a_port_another_program_holds_is_an_error_naming_it_never_a_claim(figures_servers):
    start, stop = figures_servers
    port = free_port()
    other = ThreadingHTTPServer(("127.0.0.1", port), _OtherProgram)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        process = start(port)
        wait_for(lambda: said(process), 20, "the figures server to try the port")
        lines = stop(process)
    finally:
        other.shutdown()
        other.server_close()
    errors = [line for line in lines if line["level"] == "error"]
    assert len(errors) == 1, lines
    assert f"WORKER_METRICS_PORT {port} could not be bound" in errors[0]["msg"]
    assert "not served" in errors[0]["msg"]
    assert not [line for line in lines if "served by" in line["msg"]], lines


def test_a_port_a_worker_of_this_checkout_holds_is_said_so(figures_servers):
    start, stop = figures_servers
    port = free_port()
    first = start(port)
    wait_for(lambda: _figures(port) is not None, 20, "the first process to serve", tolerate=(OSError,))
    second = start(port)
    wait_for(lambda: said(second), 20, "the second process to try the port")
    lines = stop(second)
    assert [line["level"] for line in lines] == ["info"], lines
    assert f"served by another worker process of this checkout on port {port}" in lines[0]["msg"]
    assert any("served on" in line["msg"] for line in stop(first))
