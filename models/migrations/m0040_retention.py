"""Funnel events are found by day: the hourly retention prune (services/retention.py) walks
this index to the days past their window instead of reading the whole table. (The job
prune and the ff_jobs figure use the (status, updated_at) index the job table has.)"""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class FunnelEvent(Base):
        id = pw.BigAutoField()
        day = pw.DateField()

        class Meta:
            table_name = "funnel_event"

    db.execute(FunnelEvent.index(FunnelEvent.day, FunnelEvent.id, name="funnel_event_day"))
