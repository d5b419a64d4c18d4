"""What the hourly retention run left behind (services/retention.py)."""
import peewee as pw

from models.db import BaseModel


class RetentionBacklog(BaseModel):
    """Per kind of row that retention prunes, what its last run deleted and how many rows
    were still past their retention when it stopped: the figure ff_retention_left reports,
    which grows from run to run when the prune falls behind the write rate."""

    kind = pw.CharField(max_length=40, primary_key=True)
    left = pw.BigIntegerField()
    removed = pw.BigIntegerField()
    ran_at = pw.DateTimeField()

    class Meta:
        table_name = "retention_backlog"
