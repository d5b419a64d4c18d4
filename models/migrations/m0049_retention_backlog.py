"""retention_backlog: what each kind's last hourly retention run left past its retention
(services/retention.py), which the metrics report as ff_retention_left{kind}. (Numbered
m0049 to leave m0042 to m0048 to work landing beside it.)"""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class RetentionBacklog(Base):
        kind = pw.CharField(max_length=40, primary_key=True)
        left = pw.BigIntegerField()
        removed = pw.BigIntegerField()
        ran_at = pw.DateTimeField()

        class Meta:
            table_name = "retention_backlog"

    db.create_tables([RetentionBacklog])
