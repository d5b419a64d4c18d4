"""Background jobs: the row is the truth; the queue only carries the job id."""
import peewee as pw

from models.clock import utcnow
from models.db import BaseModel, JSONField


class Job(BaseModel):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    ACTIVE = (QUEUED, RUNNING)
    FINISHED = (DONE, FAILED)

    id = pw.CharField(max_length=32, primary_key=True)
    kind = pw.CharField(max_length=60)  # the actor name
    subject = pw.CharField(max_length=200)  # what the job is about; one active job per kind and subject
    status = pw.CharField(max_length=16, default=QUEUED)
    stage = pw.CharField(max_length=40, null=True)
    # Incremented by each start; every write of a run is conditional on it (the fence).
    attempt = pw.IntegerField(default=0)
    max_attempts = pw.IntegerField(default=3)
    payload = JSONField(default=dict)
    result = JSONField(null=True)
    error = pw.TextField(null=True)
    created_at = pw.DateTimeField(default=utcnow)
    updated_at = pw.DateTimeField(default=utcnow)
    started_at = pw.DateTimeField(null=True)
    finished_at = pw.DateTimeField(null=True)
    lease_until = pw.DateTimeField(null=True)

    class Meta:
        indexes = ((("status", "updated_at"), False),)


# At most one queued-or-running job per (kind, subject): the database settles send races.
Job.add_index(Job.index(Job.kind, Job.subject, unique=True, name="job_one_active").where(Job.status.in_(Job.ACTIVE)))
# A subject's latest job of a kind (a founder's discovery runs, polled) without walking the table.
Job.add_index(Job.index(Job.kind, Job.subject, Job.created_at, name="job_subject_latest"))


class WorkerBeat(BaseModel):
    """When each worker process (named host:pid) was last heard from, and which inbound mail
    it reads (services/health.py: health tells when several hosts read folders of their own)."""

    worker = pw.CharField(max_length=200, primary_key=True)
    seen_at = pw.DateTimeField(default=utcnow)
    mail_source = pw.TextField(null=True)
