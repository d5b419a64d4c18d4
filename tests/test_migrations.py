"""Migrations: the migrated schema is the models' schema, and upgrading is repeatable."""
from models import ALL_MODELS
from models.db import db
from models.migrate import applied_names, migration_names, upgrade
from tests.helpers import in_threads


def test_every_migration_is_applied_and_a_second_upgrade_does_nothing():
    assert applied_names() == set(migration_names())
    assert upgrade() == []


def test_concurrent_upgrades_are_safe():
    assert in_threads(4, lambda i: upgrade()) == [[], [], [], []]


def test_migration_names_are_numbered_in_order():
    names = migration_names()
    numbers = [int(name[1:5]) for name in names]
    # Unique and ascending. A gap is allowed: parallel branches reserve numbers (m0005 is
    # another branch's while m0006 lands), and the runner applies names in sorted order.
    assert numbers == sorted(set(numbers)) and numbers[0] == 1


def test_the_migrated_schema_matches_the_models():
    for model in ALL_MODELS:
        table = model._meta.table_name
        assert db.table_exists(table), table
        columns = {c.name for c in db.get_columns(table)}
        assert columns == {f.column_name for f in model._meta.sorted_fields}, table


def test_one_active_job_per_kind_and_subject_is_a_database_index():
    indexes = {index.name: index for index in db.get_indexes("job")}
    assert indexes["job_one_active"].unique
