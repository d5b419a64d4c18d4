"""Discovery jobs: running the discovery script for POST /api/discover, and mailing the
notice of a watch that closed.

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
from dataclasses import dataclass
from urllib.parse import quote

from config import ROOT, get_settings
from integrations.mail import MailRejected, MailUnavailable, Message, get_mailer
from integrations.mail.render import render
from jobs.runner import TransientError, job_actor
from services import watches
from services.discovery import DISCOVER, DISCOVER_SCRIPT

OUTPUT_CAP = 256 * 1024  # bytes kept of each of stdout and stderr


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


_TIMEOUT = get_settings().discover_timeout_seconds


@job_actor(DISCOVER, lease_seconds=_TIMEOUT + 120, time_limit_ms=(_TIMEOUT + 90) * 1000)
def discover(ctx):
    """Runs scripts/discover.py for a discovery run and records what it printed."""
    settings = get_settings()
    ctx.stage("running")
    try:
        run = run_capped(script_argv(ctx.payload), env=script_env(settings), timeout=settings.discover_timeout_seconds)
    except OSError as exc:  # the interpreter could not be started at all
        return {"exit_code": 127, "log": [], "stderr": [], "error": f"could not start the script ({exc.strerror})"}
    result = {"exit_code": run.exit_code, "log": run.stdout, "stderr": run.stderr}
    if run.timed_out:
        result["timed_out"] = True
    if run.truncated:
        result["truncated"] = True
    return result


@job_actor(watches.WATCH_NOTICE, lease_seconds=60, retry_delays=(5, 30, 120))
def watch_notice(ctx):
    """Mails a watcher that the product they watched is available again (once)."""
    watch_id = ctx.payload["watch_id"]
    notice = watches.notice(watch_id)
    if notice is None:
        return {"sent": False}
    settings = get_settings()
    link = f"{settings.base_url}/?view=find&product={quote(notice['product_id'], safe='')}"
    subject, text, html = render("watch_available", product_name=notice["product_name"], link=link,
                                 email=notice["email"])
    try:
        get_mailer(settings).send(Message(to=notice["email"], subject=subject, text=text, html=html))
    except MailUnavailable:
        raise TransientError("mailer unavailable") from None
    except MailRejected:
        return {"sent": False, "why": "rejected"}
    watches.mark_notified(watch_id)
    return {"sent": True}
