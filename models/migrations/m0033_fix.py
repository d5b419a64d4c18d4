"""Fix runs, their corrected pages and their events (issue 26)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

        class Meta:
            table_name = "product"

    class FixRun(Base):
        id = pw.BigAutoField()
        token = pw.CharField(max_length=64, unique=True)
        url = pw.TextField()
        email = pw.CharField(max_length=254, null=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        stage = pw.CharField(max_length=12, default="queued")
        reason = pw.CharField(max_length=40, null=True)
        pages = pw.TextField(default="[]")
        findings = pw.TextField(default="[]")
        score_before = pw.IntegerField(null=True)
        score_after = pw.IntegerField(null=True)
        product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id")
        store_version = pw.IntegerField(null=True)
        follow_up = pw.BooleanField(default=True)
        report_mailed_at = pw.DateTimeField(null=True)
        followed_up_at = pw.DateTimeField(null=True)
        created_at = pw.DateTimeField()
        finished_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "fix_run"

    class FixPage(Base):
        id = pw.BigAutoField()
        run = pw.ForeignKeyField(FixRun, on_delete="CASCADE")
        position = pw.IntegerField()
        url = pw.TextField()
        html = pw.TextField()

        class Meta:
            table_name = "fix_page"
            indexes = ((("run", "position"), True),)

    class FixEvent(Base):
        id = pw.BigAutoField()
        run = pw.ForeignKeyField(FixRun, on_delete="CASCADE", index=True)
        event = pw.CharField(max_length=20)
        detail = pw.TextField(null=True)
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "fix_event"

    db.create_tables([FixRun, FixPage, FixEvent])
