"""Visitors' questions on a published store (issue 44): the share of the founder's `support`
allowance they may use (business_settings.public_support_share, percent, 50 until set), the
answers kept so a question asked again costs nothing (public_answer), and how many were
answered and turned away each day (public_question_day)."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Store(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

        class Meta:
            table_name = "store"

    class PublicAnswer(Base):
        key = pw.CharField(max_length=64, primary_key=True)
        store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id", index=True)
        question = pw.TextField()
        answer = pw.TextField()
        cites = pw.TextField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "public_answer"

    class PublicQuestionDay(Base):
        store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id")
        day = pw.DateField()
        answered = pw.IntegerField(default=0)
        from_earlier = pw.IntegerField(default=0)
        turned_away = pw.IntegerField(default=0)

        class Meta:
            table_name = "public_question_day"
            primary_key = pw.CompositeKey("store", "day")

    db.create_tables([PublicAnswer, PublicQuestionDay])
    migrate(SchemaMigrator.from_database(db).add_column("business_settings", "public_support_share",
                                                        pw.IntegerField(default=50)))
