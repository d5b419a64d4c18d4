"""A worker process for tests/test_worker_process.py: the real `python -m workers.worker`
(its signals, its drain, its beats), with one more job kind the test controls.

`python -m tests.probe_worker` (DATABASE_URL, REDIS_URL and SECRET_KEY in the environment)
declares `probe_slow` and then runs workers.worker.main(). A probe job works for
`payload["seconds"]`, moving a stage every 0.2 s (so a run handed back stops at its next
stage), and counts its starts and finishes in Redis, which the test reads.
"""
import os
import time

PROBE = "probe_slow"


def counter(name: str, job_id: str) -> str:
    return f"probe:{name}:{job_id}"


def slow_body(ctx):
    from config import get_settings
    from integrations.redis_client import get_redis

    redis = get_redis(get_settings().redis_url)
    redis.incr(counter("starts", ctx.job_id))
    ends = time.monotonic() + float(ctx.payload.get("seconds", 1))
    while time.monotonic() < ends:
        ctx.stage("working")
        time.sleep(0.2)
    with ctx.fenced():
        redis.incr(counter("finished", ctx.job_id))
    return {"by": ctx.attempt, "pid": os.getpid()}


def main() -> int:
    import workers.broker  # noqa: F401  (sets the broker before an actor is declared)
    from jobs.runner import job_actor
    from workers import worker

    job_actor(PROBE)(slow_body)
    return worker.main()


if __name__ == "__main__":
    raise SystemExit(main())
