"""Sessions, catalog, evidence, jobs and worker beats."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    # Frozen copies of the tables as this migration creates them.
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()
        token_hash = pw.CharField(max_length=64, unique=True)
        created_at = pw.DateTimeField()

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)
        name = pw.CharField(max_length=200)
        description = pw.TextField()
        category = pw.CharField(max_length=80, index=True)
        price = pw.DecimalField(max_digits=12, decimal_places=2)
        cost = pw.DecimalField(max_digits=12, decimal_places=2)
        currency = pw.CharField(max_length=3)
        images = pw.TextField()
        rank = pw.FloatField(index=True)
        extra = pw.TextField()
        created_at = pw.DateTimeField()
        updated_at = pw.DateTimeField()

    class Evidence(Base):
        id = pw.BigAutoField()
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        date = pw.DateField()
        source = pw.CharField(max_length=80)
        metric = pw.CharField(max_length=80)
        value = pw.FloatField()
        note = pw.TextField()

        class Meta:
            indexes = ((("product", "date"), False),)

    class Job(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        kind = pw.CharField(max_length=60)
        subject = pw.CharField(max_length=200)
        status = pw.CharField(max_length=16)
        stage = pw.CharField(max_length=40, null=True)
        attempt = pw.IntegerField()
        max_attempts = pw.IntegerField()
        payload = pw.TextField()
        result = pw.TextField(null=True)
        error = pw.TextField(null=True)
        created_at = pw.DateTimeField()
        updated_at = pw.DateTimeField()
        started_at = pw.DateTimeField(null=True)
        finished_at = pw.DateTimeField(null=True)
        lease_until = pw.DateTimeField(null=True)

        class Meta:
            indexes = ((("status", "updated_at"), False),)

    Job.add_index(Job.index(Job.kind, Job.subject, unique=True, name="job_one_active").where(Job.status.in_(("queued", "running"))))

    class WorkerBeat(Base):
        worker = pw.CharField(max_length=200, primary_key=True)
        seen_at = pw.DateTimeField()

    db.create_tables([Session, Product, Evidence, Job, WorkerBeat])
