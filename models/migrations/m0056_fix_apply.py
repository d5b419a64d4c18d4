"""Fix applies repairs when its owner asks (issue 48.2): a run no longer writes into a store
built here. fix_run.audited_version is the store version a run of a store built here read;
applied_at is when its owner applied the repairs (store_version is then the version written);
a fresh check of that new version is a run of its own, fix_run.recheck_of naming the run it
checks for and fix_run.recheck_id the check a run's apply started; after_measured is true once
that check measured the new version (score_after is then its score). Runs before this kept the
versions their owner's runs wrote: their after scores were measured on those versions."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("fix_run", "audited_version", pw.IntegerField(null=True)),
            migrator.add_column("fix_run", "applied_at", pw.DateTimeField(null=True)),
            migrator.add_column("fix_run", "recheck_of", pw.BigIntegerField(null=True)),
            migrator.add_column("fix_run", "recheck_id", pw.BigIntegerField(null=True)),
            migrator.add_column("fix_run", "after_measured", pw.BooleanField(default=False)))
    db.execute_sql("UPDATE fix_run SET after_measured = (store_version IS NOT NULL AND score_after IS NOT NULL)")
