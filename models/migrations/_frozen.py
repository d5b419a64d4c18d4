"""What every migration's frozen table copies are built on (not a migration itself: the
runner applies only modules named mNNNN_*)."""
import peewee as pw


def frozen_base(db):
    """The base class of a migration's own copies of the tables it touches."""

    class Base(pw.Model):
        class Meta:
            database = db
            legacy_table_names = False

    return Base
