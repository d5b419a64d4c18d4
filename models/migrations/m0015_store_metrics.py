"""Store metrics: the funnel events of published stores' visitors, and each session's last screen."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class Session(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "session"

    class FunnelEvent(Base):
        id = pw.BigAutoField()
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        visitor_session = pw.CharField(max_length=64)
        event = pw.CharField(max_length=16)
        day = pw.DateField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "funnel_event"
            indexes = (
                (("product", "visitor_session", "event", "day"), True),
                (("product", "event", "day"), False),
            )

    class Presence(Base):
        session = pw.ForeignKeyField(Session, primary_key=True, on_delete="CASCADE", column_name="session_id")
        area = pw.CharField(max_length=40)
        screen = pw.CharField(max_length=40)
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "session_presence"

    db.create_tables([FunnelEvent, Presence])
