"""A worker process for tests/test_build_once.py: the real `python -m workers.worker`, which
can stop dead at one moment of a store build, for the test to kill it there with SIGKILL.

`python -m tests.once_worker` (DATABASE_URL, REDIS_URL and SECRET_KEY in the environment).
STOP_AT names the moment (none: the worker never stops):
- `answered`: the model has answered the build's store copy; nothing is written yet;
- `committed`: the transaction that wrote the store version has just committed;
- `sending`: the ad job's message is about to be sent;
- `sent`: the ad job's message has been sent, before anything else happens.
There the job's thread writes the moment's name to the file STOPPED_AT and sleeps; the rest
of the process (its beats) goes on until the test kills it. Each store copy the model is
asked for adds a line to the file AI_CALLS (every worker process of a test writes to one).

The moments are found from outside the service's code (its AI seam, its version writer, the
database's commit and the job sender), so they are the same moments whatever the order in
which the build commits and sends. tests/test_build_once.py watches the same moments in its
own process for the in-process variant.
"""
import importlib
import os
import threading
import time

STORE_COPY = "store_copy"  # the AI kind of a store build's copy


def stop_dead(moment: str) -> None:
    if os.environ.get("STOP_AT") == moment:
        with open(os.environ["STOPPED_AT"], "w") as note:
            note.write(moment)
        while True:
            time.sleep(60)


def note_the_ask() -> None:
    with open(os.environ["AI_CALLS"], "a") as calls:
        calls.write(f"{os.getpid()}\n")


def watch(reached, asked, put=setattr) -> None:
    """Calls `reached(moment)` at each moment of a store build and `asked()` each time the
    model is asked for a store's copy; `put` replaces the functions watched (a test passes
    monkeypatch.setattr, to have them back afterwards)."""
    from models.db import db
    from services import ai_tasks
    from services.growth.ads import AD_BUILD
    from services.store import builds

    ask = ai_tasks.write

    def write(task):
        if task.kind == STORE_COPY:
            asked()
        answer = ask(task)
        if task.kind == STORE_COPY:
            reached("answered")
        return answer

    # After the commit of the transaction in which this thread wrote a store version.
    wrote = threading.local()
    write_version, database = builds.write_version, db.obj
    commit, rollback = database.commit, database.rollback

    def writing(*args, **kwargs):
        wrote.version = True
        return write_version(*args, **kwargs)

    def committing():
        done = commit()
        if getattr(wrote, "version", False):
            wrote.version = False
            reached("committed")
        return done

    def rolling_back():
        wrote.version = False
        return rollback()

    sending = importlib.import_module("jobs.send")  # the module (jobs/__init__.py exports a function by its name)
    send = sending.send

    def sending_ad(job, **options):
        if job.kind == AD_BUILD:
            reached("sending")
        sent = send(job, **options)
        if job.kind == AD_BUILD:
            reached("sent")
        return sent

    put(ai_tasks, "write", write)
    put(builds, "write_version", writing)
    put(database, "commit", committing)
    put(database, "rollback", rolling_back)
    put(sending, "send", sending_ad)


def main() -> int:
    import workers.broker  # noqa: F401  (sets the settings, the database and the broker first)
    from workers import worker

    watch(stop_dead, note_the_ask)
    return worker.main()


if __name__ == "__main__":
    raise SystemExit(main())
