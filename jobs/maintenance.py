"""Periodic housekeeping fired by the clock: the heartbeat and the stale-job reaper."""
import dramatiq

from config import get_settings
from jobs.send import send
from services.health import record_worker_beat, worker_name
from services.jobs import reclaim_stale


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=30_000)
def heartbeat():
    """Records that the worker running it is alive (GET /api/health reads it)."""
    record_worker_beat(worker_name())


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=60_000)
def requeue_stale_jobs():
    """Sends again the jobs that no worker is moving (lost messages, dead workers)."""
    for job in reclaim_stale(stale_seconds=get_settings().job_stale_seconds):
        send(job)
