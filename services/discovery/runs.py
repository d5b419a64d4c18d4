"""Discovery runs (POST /api/discover): the run's job, waiting for it, its answer, and
running the discovery script for it (the `discover` actor calls `run_script`).

The script runs as a child process (never through a shell: an argument list, the query
passed as `--query=<q>` so it can never read as an option), under a wall-clock limit
(DISCOVER_TIMEOUT_SECONDS, after which its whole process group is killed) and with its
output capped (OUTPUT_CAP bytes kept per stream; the rest is read and dropped so the child
never blocks on a full pipe). The job stores the exit code and the non-blank lines of
stdout and stderr exactly as the script wrote them.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from config import ROOT, get_settings
from models.clock import utcnow
from models.db import close_connection, transaction
from models.job import Job
from models.session import Session
from services.errors import Refused
from services.jobs import create_job, get_job

DISCOVER = "discover"  # the job kind of a discovery run
DISCOVER_SCRIPT = "scripts/discover.py"
RUNNING = "running"
OUTPUT_CAP = 256 * 1024  # bytes kept of each of stdout and stderr


# --- The run's job and its answer -----------------------------------------------------------

def start_discovery(*, session: Session, query: str | None, mode: str | None, use_research_brief: bool) -> tuple[Job, bool]:
    """Creates the discovery run job for the session (one at a time per session); returns
    (job, created). A session with a run in progress gets that run."""
    query = (query or "").strip() or None
    payload = {"query": query, "mode": mode, "use_research_brief": bool(use_research_brief),
               "today": utcnow().date().isoformat()}
    with transaction():
        return create_job(kind=DISCOVER, subject=f"discover:{session.id}", payload=payload, max_attempts=2)


def wait_for_run(job_id: str, *, seconds: float, no_worker_grace: float = 1.0) -> Job:
    """Waits (real time) until the run's job has finished or `seconds` have passed; returns
    the job row as last read. Gives up early when the job is still queued after
    `no_worker_grace` seconds and no worker has been heard from: nothing would run it."""
    from services.health import worker_status

    started = time.monotonic()
    while True:
        job = get_job(job_id)
        close_connection()  # the wait holds no pooled connection between polls
        waited = time.monotonic() - started
        if job is None or job.status in Job.FINISHED or waited >= seconds:
            return job
        if job.status == Job.QUEUED and waited >= no_worker_grace:
            settings = get_settings()
            if not worker_status(stale_seconds=settings.worker_stale_seconds)["heard_from"]:
                close_connection()
                return job
        time.sleep(0.05 if waited < 2 else 0.2)


def run_answer(job: Job | None) -> dict:
    """The POST /api/discover answer for a run's job (finished or not)."""
    if job is None:
        raise Refused("not_found", "That discovery run no longer exists.")
    payload = job.payload or {}
    query = payload.get("query")
    body = {"status": "refused", "query": query, "ran": None if query else DISCOVER_SCRIPT,
            "exit_code": None, "log": [], "stderr": [], "job_id": job.id}
    if job.status not in Job.FINISHED:
        body["status"] = RUNNING
        return body
    result = job.result or {}
    body.update(exit_code=result.get("exit_code"), log=result.get("log", []), stderr=result.get("stderr", []))
    if body["exit_code"] is None:
        body["exit_code"] = -1  # the script never ran to an exit (the job failed)
        body["error"] = job.error or "internal_error"
    if result.get("error"):
        body["error"] = result["error"]
    for flag in ("timed_out", "truncated"):
        if result.get(flag):
            body[flag] = True
    body["status"] = "ok" if body["exit_code"] == 0 else "refused"
    return body


def run_of(*, session: Session, job_id: str | None) -> Job:
    """The session's discovery run with that id (its latest when None)."""
    query = Job.select().where(Job.kind == DISCOVER, Job.subject == f"discover:{session.id}")
    if job_id is not None:
        query = query.where(Job.id == job_id)
    job = query.order_by(Job.created_at.desc()).first()
    if job is None:
        raise Refused("not_found", "This session has no discovery run with that id.")
    return job


# --- Running the script ---------------------------------------------------------------------

def run_script(payload: dict, *, settings=None) -> dict:
    """Runs scripts/discover.py for a run's payload and returns what the job records: the
    exit code, the lines of stdout (`log`) and stderr, and whether it timed out or was cut."""
    settings = settings or get_settings()
    try:
        run = run_capped(script_argv(payload), env=script_env(settings), timeout=settings.discover_timeout_seconds)
    except OSError as exc:  # the interpreter could not be started at all
        return {"exit_code": 127, "log": [], "stderr": [], "error": f"could not start the script ({exc.strerror})"}
    result = {"exit_code": run.exit_code, "log": run.stdout, "stderr": run.stderr}
    if run.timed_out:
        result["timed_out"] = True
    if run.truncated:
        result["truncated"] = True
    return result


@dataclass
class ScriptRun:
    exit_code: int
    stdout: list[str]
    stderr: list[str]
    timed_out: bool = False
    truncated: bool = False


def script_argv(payload: dict) -> list[str]:
    """The discovery script's command line for a run's payload."""
    argv = [sys.executable, str(ROOT / DISCOVER_SCRIPT)]
    if payload.get("today"):
        argv.append(f"--today={payload['today']}")
    if payload.get("query"):
        argv.append(f"--query={payload['query']}")
    if payload.get("mode"):
        argv.append(f"--mode={payload['mode']}")
    if payload.get("use_research_brief"):
        argv.append("--use-research-brief")
    return argv


def script_env(settings) -> dict:
    """The child's environment: the settings it needs to open the same database and apply
    the same gate, and nothing else of this process's environment (no Redis: it needs none)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "DATABASE_URL": settings.database_url,
        "DB_POOL_SIZE": "2",
        "BUILD_ID": settings.build,
        "LOG_LEVEL": settings.log_level,
        "EVIDENCE_MIN_ROWS": str(settings.evidence_min_rows),
        "EVIDENCE_MAX_AGE_DAYS": str(settings.evidence_max_age_days),
        "MIN_MARGIN_PCT": str(settings.min_margin_pct),
        "SUPPLIER_FEED": settings.supplier_feed,
        "DISCOVER_MAX_ADD": str(settings.discover_max_add),
        "DISCOVER_TIMEOUT_SECONDS": str(settings.discover_timeout_seconds),
    }
    if settings.secret_key:
        env["SECRET_KEY"] = settings.secret_key  # else the child would make one under var/
    return env


def run_capped(argv: list[str], *, env: dict, timeout: float, cap: int = OUTPUT_CAP, cwd=ROOT) -> ScriptRun:
    """Runs a command with a time limit and capped output; see the module docstring."""
    process = subprocess.Popen(argv, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    kept = {"stdout": bytearray(), "stderr": bytearray()}
    dropped = {"stdout": False, "stderr": False}

    def drain(name, pipe):
        with pipe:
            for chunk in iter(lambda: pipe.read(65536), b""):
                room = cap - len(kept[name])
                if room > 0:
                    kept[name] += chunk[:room]
                if len(chunk) > max(room, 0):
                    dropped[name] = True

    readers = [threading.Thread(target=drain, args=(name, pipe), daemon=True)
               for name, pipe in (("stdout", process.stdout), ("stderr", process.stderr))]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process)
        process.wait()
    for reader in readers:
        reader.join(timeout=10)
    return ScriptRun(exit_code=process.returncode, stdout=_lines(kept["stdout"]), stderr=_lines(kept["stderr"]),
                     timed_out=timed_out, truncated=dropped["stdout"] or dropped["stderr"])


def _kill_group(process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the script and anything it started
    except (ProcessLookupError, PermissionError):
        process.kill()


def _lines(raw: bytes) -> list[str]:
    """The non-blank lines, each as written (only its line ending removed)."""
    text = raw.decode("utf-8", errors="replace")
    lines = []
    for line in text.split("\n"):
        if line.endswith("\r"):
            line = line[:-1]
        if line.strip():
            lines.append(line)
    return lines
