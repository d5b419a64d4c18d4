"""Discovery runs: a session's (POST /api/discover, which waits for it) and an account's
(/api/discovery-research, which does not): the run's job, waiting for it, its answers, and
running the discovery script for it (the `discover` actor calls `run_script`). Whose run
it is is the job's subject (`session_runs`, `account_runs`): one at a time per subject.

The script runs as a child process through the capped runner (integrations/processes.py:
never through a shell, an argument list, the query passed as `--query=<q>` so it can never
read as an option), under a wall-clock limit (DISCOVER_TIMEOUT_SECONDS, after which its
whole process group is killed) and with its output capped (OUTPUT_CAP bytes kept per
stream; the rest is read and dropped so the child never blocks on a full pipe). The job
stores the exit code and the non-blank lines of stdout and stderr exactly as the script
wrote them.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import peewee as pw

from config import ROOT, get_settings
from integrations import processes
from models.clock import iso, utcnow
from models.db import transaction
from models.job import Job
from models.session import Session
from services.errors import Refused
from services.jobs import create_job, wait_for_job

DISCOVER = "discover"  # the job kind of a discovery run
DISCOVER_SCRIPT = "scripts/discover.py"
RUNNING = "running"
STARTED = "started"  # a research run this request created (RUNNING: one it joined)
NEVER_RUN = "never_run"  # an account that has not started a research run yet
RUN_STATES = Job.ACTIVE + Job.FINISHED  # what GET /api/discovery-research reports as status
OUTPUT_CAP = 256 * 1024  # bytes kept of each of stdout and stderr
MAX_QUERY_CHARS = 200  # a discovery query (q), and a query saved in the research workspace


# --- The run's job and its answer -----------------------------------------------------------

def session_runs(session: Session) -> str:
    """The job subject of a session's discovery runs (POST /api/discover): one at a time
    per session, bound or not."""
    return f"{DISCOVER}:{session.id}"


def account_runs(account_id: int) -> str:
    """The job subject of an account's discovery research runs (/api/discovery-research):
    one at a time per account, so every session signed in to it sees and joins the same run."""
    return f"{DISCOVER}:account:{account_id}"


def start_discovery(*, subject: str, query: str | None, mode: str | None, use_research_brief: bool) -> tuple[Job, bool]:
    """Creates the discovery run job for a subject (`session_runs` or `account_runs`; one
    at a time per subject); returns (job, created). A subject with a run in progress gets
    that run, whatever this request asked."""
    query = (query or "").strip() or None
    payload = {"query": query, "mode": mode, "use_research_brief": bool(use_research_brief),
               "today": utcnow().date().isoformat()}
    with transaction():
        return create_job(kind=DISCOVER, subject=subject, payload=payload, max_attempts=2)


# How POST /api/discover waits for its run (the same wait serves every route that waits on a job).
wait_for_run = wait_for_job


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


def run_report(job: Job | None) -> dict:
    """The GET /api/discovery-research answer for a subject's latest run: status is the
    run's state (queued, running, done, failed), with its stage and times, and, once it
    has finished, its result (ok on exit code 0, else refused) with the exit code and output."""
    if job is None:
        return {"status": NEVER_RUN, "explanation": "You have not started a discovery research run yet. "
                                                   "Start one below with what to search the supplier feed for."}
    answer = run_answer(job)
    result = answer.pop("status")
    payload = job.payload or {}
    return {"status": job.status, "state": job.status, "stage": job.stage,
            "result": None if result == RUNNING else result,
            "mode": payload.get("mode"), "use_research_brief": bool(payload.get("use_research_brief")),
            **answer,
            "created_at": iso(job.created_at), "started_at": iso(job.started_at), "finished_at": iso(job.finished_at)}


def start_report(job: Job, *, created: bool) -> dict:
    """The POST /api/discovery-research answer, at once: started (this request created
    the run) or running (the subject's run in progress, which this request joined), with
    the run's report under that status."""
    return {**run_report(job), "status": STARTED if created else RUNNING}


def latest_run(*, subject: str) -> Job | None:
    """The subject's most recent discovery run, or None when it never started one. A run in
    progress is the latest whatever the clocks say: a subject starts one only when none is."""
    in_progress_first = pw.Case(None, [(Job.status.in_(Job.ACTIVE), 0)], 1)
    return (Job.select().where(Job.kind == DISCOVER, Job.subject == subject)
            .order_by(in_progress_first, Job.created_at.desc(), Job.id.desc()).first())


def run_of(*, subject: str, job_id: str | None) -> Job:
    """The subject's discovery run with that id (its latest when None)."""
    if job_id is None:
        job = latest_run(subject=subject)
    else:
        job = Job.get_or_none(Job.kind == DISCOVER, Job.subject == subject, Job.id == job_id)
    if job is None:
        raise Refused("not_found", "You have no discovery run with that id.")
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
    run = processes.run_capped(argv, env=env, timeout=timeout, cap=cap, cwd=cwd)
    return ScriptRun(exit_code=run.exit_code, stdout=_lines(run.stdout), stderr=_lines(run.stderr),
                     timed_out=run.timed_out, truncated=run.truncated)


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
