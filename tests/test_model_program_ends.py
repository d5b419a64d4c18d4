"""A model program ends with the job that asked for it (issue 45, point 8).

The AI seam's `command` backend runs AI_COMMAND as a child process. Its answer is thrown
away once its job is stopped, so the program must not run on: it is killed when the worker
process that started it dies (even by SIGKILL: Linux's parent-death signal), when the job's
time limit stops the job (dramatiq raises in the job's thread, which lives on), and when a
stopping worker hands the job back. The program here sleeps, then writes a file: the file
never appears, and the process is gone at once.
"""
import ctypes
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from types import SimpleNamespace

import dramatiq
import pytest
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import TimeLimitExceeded

from config import ROOT
from integrations.ai.command import CommandBackend
from integrations.ai.errors import AIError
from integrations.ai.prompts import Prompt
from tests.conftest import SETTINGS
from tests.helpers import wait_for
from tests.topology import alive
from workers.worker import WorkerPool

SLEEP_SECONDS = 3.0

PROGRAM = """
import os, sys, time
folder = sys.argv[1]
with open(os.path.join(folder, "started"), "w") as started:
    started.write(str(os.getpid()))
sys.stdin.read()
time.sleep(float(sys.argv[2]))
with open(os.path.join(folder, "finished"), "w") as finished:
    finished.write("the answer nobody reads")
print('{"answer": "late"}')
"""

# A process that asks the model as a worker's job does, and is then killed.
CALLER = """
import sys
from types import SimpleNamespace
from integrations.ai.command import CommandBackend
from integrations.ai.prompts import Prompt
CommandBackend(SimpleNamespace(ai_command=sys.argv[1], ai_timeout_seconds=60)).ask(
    Prompt(system="", user="", request={"task": "probe"}))
"""

PROMPT = Prompt(system="", user="", request={"task": "probe"})


@pytest.fixture
def model(tmp_path):
    """The program's command line, and what it left in its folder."""
    script = tmp_path / "model.py"
    script.write_text(textwrap.dedent(PROGRAM))
    return SimpleNamespace(command=f"{sys.executable} {script} {tmp_path} {SLEEP_SECONDS}",
                           started=tmp_path / "started", finished=tmp_path / "finished")


def program_pid(model) -> int:
    return int(wait_for(lambda: model.started.exists() and model.started.read_text(), 20, "the model program"))


def never_finishes(model, pid: int) -> None:
    """The program is gone now, and no answer appears past the time it would have taken."""
    wait_for(lambda: not alive(pid), 2, "the model program to end")
    time.sleep(SLEEP_SECONDS + 0.5)
    assert not model.finished.exists()


def test_killing_the_process_that_asked_ends_the_model_program(model):
    caller = subprocess.Popen([sys.executable, "-c", CALLER, model.command], cwd=ROOT)
    try:
        pid = program_pid(model)
        os.kill(caller.pid, signal.SIGKILL)
        assert caller.wait(timeout=10) == -signal.SIGKILL
        never_finishes(model, pid)
    finally:
        if caller.poll() is None:
            caller.kill()
            caller.wait()


def test_a_job_stopped_by_its_time_limit_ends_its_model_program(model):
    """Dramatiq stops a job past its time limit by raising TimeLimitExceeded in the job's
    thread; the thread then goes on to the next message, so the program must end with the job."""
    raised, done = [], threading.Event()

    def job_thread():
        try:
            CommandBackend(SimpleNamespace(ai_command=model.command, ai_timeout_seconds=60)).ask(PROMPT)
        except TimeLimitExceeded as exc:
            raised.append(exc)
        done.wait(30)  # a worker thread lives on after its job

    thread = threading.Thread(target=job_thread, daemon=True)
    thread.start()
    try:
        pid = program_pid(model)
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(TimeLimitExceeded))
        wait_for(lambda: raised, 5, "the time limit to stop the job")
        never_finishes(model, pid)
    finally:
        done.set()
        thread.join(10)


def test_a_worker_handing_its_job_back_at_a_stop_ends_the_model_program(model):
    """A stopping worker waits WORKER_SHUTDOWN_SECONDS, then hands the running job back (it
    runs again elsewhere from the start): the program that job started is killed then, not
    left to finish an answer nobody reads."""
    broker = StubBroker()
    failures = []

    def ask_the_model():
        try:
            CommandBackend(SimpleNamespace(ai_command=model.command, ai_timeout_seconds=60)).ask(PROMPT)
        except AIError as exc:
            failures.append(exc)

    actor = dramatiq.actor(ask_the_model, broker=broker, actor_name="test_model_program_handed_back", max_retries=0)
    pool = WorkerPool(broker, SETTINGS, threads=1).start()
    try:
        actor.send()
        pid = program_pid(model)
        pool.stop(timeout_seconds=0.5)
        assert not alive(pid)  # at once: the stop ended it
        assert "stopped by signal 9" in str(failures[0])
        never_finishes(model, pid)
    finally:
        if pool.worker is not None:
            pool.stop(timeout_seconds=0)
        broker.close()


def test_a_run_that_loses_its_job_to_another_ends_its_model_program(model):
    """The reaper gave the job to a newer attempt (this run stalled past its lease, as a
    partitioned worker does): this run's next heartbeat finds the row moved on, and the model
    program it is waiting on is killed then, not left to run to its timeout for an answer
    the fenced writes would refuse."""
    from jobs.runner import run_job
    from models.db import transaction
    from models.job import Job
    from services import jobs as job_rows

    failures = []

    def body(ctx):
        Job.update(attempt=ctx.attempt + 1).where(Job.id == ctx.job_id).execute()  # the newer attempt
        try:
            CommandBackend(SimpleNamespace(ai_command=model.command, ai_timeout_seconds=60)).ask(PROMPT)
        except AIError as exc:
            failures.append(exc)
        ctx.stage("after the answer")  # refused: the job is the newer attempt's

    with transaction():
        job, _ = job_rows.create_job(kind="model_program_lease_lost", subject="store:lease-lost")
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(
        run_job(job.id, body, lease_seconds=1.5, retry_delays=(0,))), daemon=True)
    thread.start()
    try:
        pid = program_pid(model)
        wait_for(lambda: not alive(pid), 2, "the lost lease to end the model program")
        never_finishes(model, pid)
    finally:
        thread.join(30)
    assert outcome == ["superseded"]
    assert "stopped by signal 9" in str(failures[0])
