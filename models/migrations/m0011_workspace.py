"""The research workspace: an account's notes, shortlisted products and saved queries
(unique per account and product, and per account and query); and an index that finds a
subject's latest job of a kind (the discovery runs a founder polls) without walking the
job table."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Account(Base):
        id = pw.BigAutoField()

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class ResearchNote(Base):
        id = pw.BigAutoField()
        account = pw.ForeignKeyField(Account, on_delete="CASCADE", index=True)
        text = pw.TextField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "research_note"

    class ShortlistEntry(Base):
        id = pw.BigAutoField()
        account = pw.ForeignKeyField(Account, on_delete="CASCADE")
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", index=True)
        added_at = pw.DateTimeField()

        class Meta:
            table_name = "research_shortlist"
            indexes = ((("account", "product"), True),)

    class SavedQuery(Base):
        id = pw.BigAutoField()
        account = pw.ForeignKeyField(Account, on_delete="CASCADE")
        query = pw.TextField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "research_saved_query"
            indexes = ((("account", "query"), True),)

    db.create_tables([ResearchNote, ShortlistEntry, SavedQuery])

    class Job(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        kind = pw.CharField(max_length=60)
        subject = pw.CharField(max_length=200)
        created_at = pw.DateTimeField()

    db.execute(Job.index(Job.kind, Job.subject, Job.created_at, name="job_subject_latest"))
