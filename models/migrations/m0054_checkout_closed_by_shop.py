"""sandbox_checkout.closed_by_shop (issue 47): the sandbox provider records that the shop
closed a checkout before it was paid (its product was paused or retired), so its hosted page
says so rather than that the checkout ran out of time. Checkouts before this were never
closed by a shop."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrate(SchemaMigrator.from_database(db).add_column("sandbox_checkout", "closed_by_shop",
                                                         pw.BooleanField(default=False)))
