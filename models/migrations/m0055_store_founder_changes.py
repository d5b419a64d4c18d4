"""What a rebuild keeps (issue 47.3): store_version.founder_changes names the parts of the
store (copy fields, and `lead`) the founder changed along the version's history, so a
rebuild puts them back on the new draft; store_intent.reverted_version names the version a
revert made, so the editor can tell which applied intents the draft still carries.

Versions written before carry their founder changes as their summaries said: a plain-language
edit, an applied intent, a leading section or a revert added the parts it changed to those
of the version it was made from; a build started again from nothing (it kept nothing then);
anything else kept its parent's. Reverts before have no version named: their intent reads
reverted on every line of versions, as it did."""
import json

import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.migrations._frozen import frozen_base

# The summaries builds, edits and intents wrote before this migration.
_BUILT = ("Built from", "Regenerated before publishing")
_BY_FOUNDER = ("Edited:", "Applied:", "Leads with", "Reverted:")


def _changed(before: dict, after: dict) -> set[str]:
    parts = {name for name in set(before.get("copy", {})) | set(after.get("copy", {}))
             if before.get("copy", {}).get(name) != after.get("copy", {}).get(name)}
    return parts | ({"lead"} if before.get("lead") != after.get("lead") else set())


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("store_version", "founder_changes", pw.TextField(null=True)),
            migrator.add_column("store_intent", "reverted_version", pw.IntegerField(null=True)))

    Base = frozen_base(db)

    class StoreVersion(Base):
        product_id = pw.CharField(max_length=64)
        number = pw.IntegerField()
        parent = pw.IntegerField(null=True)
        summary = pw.TextField()
        document = pw.TextField()
        founder_changes = pw.TextField(null=True)

        class Meta:
            table_name = "store_version"
            primary_key = pw.CompositeKey("product_id", "number")

    stores = [row.product_id for row in StoreVersion.select(StoreVersion.product_id).distinct()]
    for product_id in stores:
        rows = (StoreVersion.select(StoreVersion.number, StoreVersion.parent, StoreVersion.summary,
                                    StoreVersion.document)
                .where(StoreVersion.product_id == product_id).order_by(StoreVersion.number))
        documents, changes = {}, {}
        for row in rows:  # a parent always has a smaller number than its children
            document = json.loads(row.document)
            inherited = changes.get(row.parent, set())
            if row.summary.startswith(_BUILT):
                parts = set()
            elif row.summary.startswith(_BY_FOUNDER) and row.parent in documents:
                parts = inherited | _changed(documents[row.parent], document)
            else:
                parts = inherited
            documents[row.number], changes[row.number] = document, parts
            (StoreVersion.update(founder_changes=json.dumps(sorted(parts), separators=(",", ":")))
             .where(StoreVersion.product_id == product_id, StoreVersion.number == row.number).execute())
