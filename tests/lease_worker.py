"""A separate worker process for tests/test_job_leases.py, which kills it mid-job.

`python -m tests.lease_worker` (DATABASE_URL, REDIS_URL and SECRET_KEY in the environment)
runs a real Dramatiq worker on the Redis broker that takes `lease_test_killed` jobs from
the PROBE_QUEUE queue only, so the test decides which process starts the job; the test
process declares the same job kind on the default queue, where the reaper's resend goes.
"""
import os
import time

PROBE_QUEUE = "lease_probe"
KILLED = "lease_test_killed"
LEASE_SECONDS = 1


def counter(name: str, job_id: str) -> str:
    return f"lease-test:{name}:{job_id}"


def killed_body(ctx):
    """Counts its starts and finishes in Redis (both processes see them). Attempt 1 records
    its stage and then works until the test kills its process; a later attempt finishes."""
    from config import get_settings
    from integrations.redis_client import get_redis

    redis = get_redis(get_settings().redis_url)
    redis.incr(counter("starts", ctx.job_id))
    if ctx.attempt == 1:
        ctx.stage("working")
        time.sleep(60)
    ctx.stage("finishing")
    redis.incr(counter("finished", ctx.job_id))
    return {"by": ctx.attempt, "pid": os.getpid()}


def main() -> None:
    import dramatiq

    import jobs  # noqa: F401  (sets the broker from the environment and declares the service's actors)
    from jobs.runner import job_actor
    from workers.broker import broker

    job_actor(KILLED, queue=PROBE_QUEUE, lease_seconds=LEASE_SECONDS)(killed_body)
    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=50, queues={PROBE_QUEUE})
    worker.start()
    print("ready", flush=True)
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
