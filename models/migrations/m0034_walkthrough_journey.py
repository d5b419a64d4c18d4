"""The walkthrough's position per founder and the journey carriers (issue 27)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class Walkthrough(Base):
        owner = pw.CharField(max_length=40, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        position = pw.IntegerField(default=0)
        dismissed = pw.BooleanField(default=False)
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "walkthrough"

    class JourneyCarrier(Base):
        id_hash = pw.CharField(max_length=64, primary_key=True)
        route = pw.CharField(max_length=300)
        data = pw.TextField(null=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        created_at = pw.DateTimeField()
        expires_at = pw.DateTimeField(index=True)
        consumed_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "journey_carrier"

    db.create_tables([Walkthrough, JourneyCarrier])
