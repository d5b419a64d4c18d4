"""The figures read at scrape time: jobs from the job table, workers from their beats, and
the queues from the broker. They describe the whole deployment (every web process reads
the same rows), so a dashboard takes max(), not sum(), across web processes.
"""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta

import peewee as pw
from prometheus_client.core import GaugeHistogramMetricFamily, GaugeMetricFamily

from config import get_settings
from integrations.metrics import exposition, observe_request  # noqa: F401  (the web edge records requests here)
from models.clock import utcnow
from models.db import UNAVAILABLE, close_connection, read_moment
from models.job import Job, WorkerBeat
from models.retention import RetentionBacklog
from services.health import alive_seconds

log = logging.getLogger("services.metrics")

# Durations are those of the jobs that finished within this window: a figure of now that
# histogram_quantile() reads directly (a gauge histogram), not a count since start.
DURATION_WINDOW = timedelta(minutes=15)
DURATION_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
QUEUE_STATES = ("ready", "delayed", "in_flight")


# `status IN ('queued', 'running')` written out, as the partial index job_one_active says it:
# SQLite walks that index only when the query names the same constants (bound parameters
# leave it unable to prove the match, and it then walks every row kept). Constants of the
# model, never input.
_ACTIVE_LITERALLY = pw.NodeList((Job.status, pw.SQL("IN"), pw.EnclosedNodeList(
    [pw.SQL(f"'{status}'") for status in Job.ACTIVE])))


class DeploymentFigures:
    """A prometheus-client collector: jobs by kind and status, job durations by kind, the
    oldest queued job's age, workers alive, and queue depth per queue."""

    def __init__(self, *, worker_stale_seconds: int, queue_depths: Callable[[], dict[str, dict[str, int]]]):
        self.worker_stale_seconds = worker_stale_seconds
        self.queue_depths = queue_depths

    def describe(self):
        return []  # nothing to check ahead; collect() reads the database and the broker

    def collect(self):
        yield from self._database_figures()
        yield from self._queue_figures()

    def _database_figures(self):
        up = GaugeMetricFamily("ff_database_up", "1 when the database answered this scrape's queries, else 0.")
        try:
            figures = list(self._read_database(utcnow()))
        except UNAVAILABLE:
            close_connection()
            log.warning("metrics: database unavailable; job and worker figures left out")
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from figures

    def _read_database(self, now: datetime):
        yield self._jobs(now)

        oldest = read_moment(Job.select(pw.fn.MIN(Job.created_at)).where(Job.status == Job.QUEUED).scalar())
        yield GaugeMetricFamily("ff_job_oldest_queued_age_seconds", "Age of the oldest job still queued (0 when none): "
                                "growing while workers are busy means more workers are needed.",
                                value=max(0.0, (now - oldest).total_seconds()) if oldest else 0.0)

        durations = GaugeHistogramMetricFamily(
            "ff_job_duration_seconds", "Run time (started to finished) of the jobs that finished in the last "
            f"{int(DURATION_WINDOW.total_seconds() // 60)} minutes, by kind.", labels=["kind"])
        finished = (Job.select(Job.kind, Job.started_at, Job.finished_at)
                    .where(Job.status.in_(Job.FINISHED), Job.updated_at >= now - DURATION_WINDOW,
                           Job.finished_at >= now - DURATION_WINDOW, Job.started_at.is_null(False))
                    .tuples())
        by_kind: dict[str, list[float]] = {}
        for kind, started, ended in finished:
            by_kind.setdefault(kind, []).append(max(0.0, (ended - started).total_seconds()))
        for kind, seconds in sorted(by_kind.items()):
            buckets = [(str(bound), sum(1 for s in seconds if s <= bound)) for bound in DURATION_BUCKETS]
            durations.add_metric([kind], buckets + [("+Inf", len(seconds))], gsum_value=sum(seconds))
        yield durations

        # A worker beats every HEARTBEAT_SECONDS from a thread of its own (busy or not), and a
        # clean stop removes its row: one killed stops counting two heartbeats after its last
        # beat, so a worker that crashes and restarts over and over shows as missing.
        window = alive_seconds(stale_seconds=self.worker_stale_seconds,
                               heartbeat_seconds=get_settings().heartbeat_seconds)
        alive = WorkerBeat.select().where(WorkerBeat.seen_at >= now - timedelta(seconds=window)).count()
        yield GaugeMetricFamily("ff_workers_alive", "Worker processes running now: each beat within two "
                                "HEARTBEAT_SECONDS (at most WORKER_STALE_SECONDS).", value=alive)

        left = GaugeMetricFamily("ff_retention_left", "Rows still past their retention when the last hourly prune "
                                 "stopped, by kind (0 when it caught up; growing from run to run means the prune "
                                 "falls behind the write rate: raise RETENTION_BUDGET_SECONDS).", labels=["kind"])
        for kind, count in RetentionBacklog.select(RetentionBacklog.kind, RetentionBacklog.left).tuples():
            left.add_metric([kind], count)
        yield left

    @staticmethod
    def _jobs(now: datetime) -> GaugeMetricFamily:
        """Jobs queued or running, and jobs finished within the duration window, by kind and
        status. Both read the (status, updated_at) index: a scrape never counts the finished
        rows the table keeps for JOB_RETENTION_DAYS (services/retention.py)."""
        jobs = GaugeMetricFamily("ff_jobs", "Jobs queued or running now, and jobs done or failed in the last "
                                 f"{int(DURATION_WINDOW.total_seconds() // 60)} minutes, by kind (the actor) and "
                                 "status.", labels=["kind", "status"])
        active = (Job.select(Job.kind, Job.status, pw.fn.COUNT(Job.id)).where(_ACTIVE_LITERALLY)
                  .group_by(Job.kind, Job.status).tuples())
        # The window's few rows are counted here, not grouped in SQL: with a GROUP BY, SQLite
        # prefers walking the (kind, subject, created_at) index, which reads every row kept.
        finished = Counter(Job.select(Job.kind, Job.status)
                           .where(Job.status.in_(Job.FINISHED), Job.updated_at >= now - DURATION_WINDOW).tuples())
        for kind, status, count in [*active, *((kind, status, n) for (kind, status), n in sorted(finished.items()))]:
            jobs.add_metric([kind, status], count)
        return jobs

    def _queue_figures(self):
        up = GaugeMetricFamily("ff_broker_up", "1 when the broker answered this scrape, else 0.")
        try:
            depths = self.queue_depths()
        except Exception:  # any failure to reach the broker leaves the queue figures out
            log.warning("metrics: broker unavailable; queue figures left out", exc_info=True)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        depth = GaugeMetricFamily("ff_queue_depth", "Messages per queue: ready (waiting for a worker), delayed "
                                  "(waiting for their time: retries), in_flight (taken by a worker, running or "
                                  "prefetched, not yet acknowledged).", labels=["queue", "state"])
        for queue, states in sorted(depths.items()):
            for state in QUEUE_STATES:
                depth.add_metric([queue, state], states.get(state, 0))
        yield depth


def scrape(*, worker_stale_seconds: int, queue_depths: Callable[[], dict[str, dict[str, int]]]) -> tuple[bytes, str]:
    """The text GET /metrics serves, and its content type: this process's (or, under
    gunicorn, every web process's) HTTP figures and the deployment's figures read now."""
    return exposition([DeploymentFigures(worker_stale_seconds=worker_stale_seconds, queue_depths=queue_depths)])
