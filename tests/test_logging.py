"""Structured logs: one line per request and per job; never a cookie value or a token."""
import json

from config import JsonLogFormatter
from jobs import start
from jobs.runner import job_actor


@job_actor("test_log_line")
def log_line(ctx):
    return None


def _lines(caplog, message):
    return [r for r in caplog.records if r.getMessage() == message]


def test_one_structured_line_per_request(client, caplog):
    response = client.get("/api/health?utm_source=newsletter")
    [line] = _lines(caplog, "request")
    fields = line.fields
    assert fields["request_id"] == response.headers["X-Request-Id"]
    assert (fields["method"], fields["route"], fields["path"], fields["status"]) == ("GET", "/api/health", "/api/health", 200)
    assert fields["duration_ms"] >= 0
    parsed = json.loads(JsonLogFormatter().format(line))
    assert parsed["msg"] == "request" and parsed["status"] == 200


def test_cookie_values_and_query_strings_never_reach_the_logs(client, caplog):
    first = client.get("/api/health")
    cookie = first.headers["Set-Cookie"].split(";")[0].split("=")[1]
    client.get("/api/health?token=SECRETTOKENVALUE123")
    client.get("/login?token=SECRETTOKENVALUE123")
    client.post("/api/nothing", json={"token": "SECRETTOKENVALUE123"})
    formatter = JsonLogFormatter()
    everything = "\n".join(formatter.format(r) for r in caplog.records)
    assert everything.count('"msg": "request"') == 4
    assert cookie not in everything
    assert "SECRETTOKENVALUE123" not in everything


def test_one_structured_line_per_job(run_jobs, caplog):
    job = start(kind="test_log_line", subject="log:1")
    run_jobs()
    lines = [r for r in _lines(caplog, "job") if r.fields["job_id"] == job.id]
    assert len(lines) == 1
    assert {k: lines[0].fields[k] for k in ("actor", "attempt", "outcome")} == {"actor": "test_log_line", "attempt": 1, "outcome": "done"}
