"""Migrations: the migrated schema is the models' schema, upgrading is repeatable, and a
migration that moves data moves it right."""
import importlib
import json
from datetime import datetime
from urllib.parse import unquote, urlsplit

import peewee as pw
import pytest

from models import ALL_MODELS
from models.db import db, is_sqlite
from models.migrate import applied_names, migration_names, upgrade
from models.migrations._frozen import frozen_base
from tests.conftest import SETTINGS
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


@pytest.fixture
def scratch_database(tmp_path):
    """An empty database of the suite's kind, apart from the suite's own: a file for SQLite,
    a schema of its own on PostgreSQL."""
    if is_sqlite():
        scratch = pw.SqliteDatabase(str(tmp_path / "scratch.db"), pragmas={"foreign_keys": 1})
        yield scratch
        scratch.close()
        return
    parts = urlsplit(SETTINGS.database_url)
    db.execute_sql("DROP SCHEMA IF EXISTS migration_scratch CASCADE")
    db.execute_sql("CREATE SCHEMA migration_scratch")
    scratch = pw.PostgresqlDatabase(parts.path.lstrip("/"), host=parts.hostname or "127.0.0.1", port=parts.port or 5432,
                                    user=unquote(parts.username) if parts.username else None,
                                    password=unquote(parts.password) if parts.password else None,
                                    options="-c search_path=migration_scratch")
    yield scratch
    scratch.close()
    db.execute_sql("DROP SCHEMA IF EXISTS migration_scratch CASCADE")


def test_m0023_moves_the_refund_marks_out_of_error(scratch_database):
    """Refund marks that lived in `error` become refund_state; other errors stay where they are."""
    def apply(name):
        with scratch_database.atomic():
            importlib.import_module(f"models.migrations.{name}").upgrade(scratch_database)

    for name in [n for n in migration_names() if n < "m0023"]:
        apply(name)

    class OldPayment(frozen_base(scratch_database)):
        id = pw.CharField(max_length=32, primary_key=True)
        purpose, subject = pw.CharField(), pw.CharField()
        amount_minor, currency, provider, state = pw.BigIntegerField(), pw.CharField(), pw.CharField(), pw.CharField()
        error = pw.CharField(null=True)
        created_at, paid_at = pw.DateTimeField(), pw.DateTimeField(null=True)

        class Meta:
            table_name = "payment"

    created, paid = datetime(2026, 5, 1, 9), datetime(2026, 5, 1, 10)
    marks = {"p_due": "refund_due", "p_refunding": "refunding", "p_refunded": "refunded",
             "p_mismatch": "amount_mismatch", "p_clean": None}
    for payment_id, error in marks.items():
        OldPayment.create(id=payment_id, purpose="domain", subject="s", amount_minor=100, currency="USD",
                          provider="sandbox", state="paid", error=error, created_at=created, paid_at=paid)

    apply("m0023_refund_state")

    rows = {row[0]: row[1:] for row in scratch_database.execute_sql(
        "SELECT id, error, refund_state, refund_attempt, refund_requested_at, refund_updated_at IS NOT NULL, "
        "refund_ref, refund_error, refund_retry_at FROM payment").fetchall()}
    moved = {payment_id: (row[0], row[1], row[2]) for payment_id, row in rows.items()}
    assert moved == {"p_due": (None, "due", 1), "p_refunding": (None, "refunding", 1),
                     "p_refunded": (None, "refunded", 1), "p_mismatch": ("amount_mismatch", None, 0),
                     "p_clean": (None, None, 0)}
    for payment_id in ("p_due", "p_refunding", "p_refunded"):
        requested_at, updated, ref, refund_error, retry_at = rows[payment_id][3:]
        assert str(requested_at).startswith("2026-05-01 10:00:00") and updated
        assert (ref, refund_error, retry_at) == (None, None, None)
    assert "payment_refund_open" in {index.name for index in scratch_database.get_indexes("payment")}
    assert scratch_database.table_exists("sandbox_refund")


def test_m0024_keeps_connections_and_samples_made_before_it_naming_no_line(scratch_database):
    """A connection and a sample order made before m0024 keep their supplier (and the sample
    its SKU); the line's name and product are unknown, so they read null."""
    def apply(name):
        with scratch_database.atomic():
            importlib.import_module(f"models.migrations.{name}").upgrade(scratch_database)

    for name in [n for n in migration_names() if n < "m0024"]:
        apply(name)
    made, mark = datetime(2026, 5, 1, 9), scratch_database.param  # ? on SQLite, %s on PostgreSQL
    scratch_database.execute_sql(f"INSERT INTO supplier_connection (owner, supplier, connected_at) "
                                 f"VALUES ({mark}, {mark}, {mark})", ("session:1", "Yiwu Bright Goods", made))
    scratch_database.execute_sql(
        "INSERT INTO sample_order (id, supplier, sku, quantity, unit_cost_minor, amount_minor, currency, state, "
        f"created_at) VALUES ({', '.join([mark] * 9)})",
        ("s1", "Yiwu Bright Goods", "YBG-1", 2, 500, 1000, "USD", "paid", made))

    apply("m0024_supplier_offer_line")

    assert scratch_database.execute_sql(
        "SELECT owner, supplier, sku, name, offers_product_id FROM supplier_connection").fetchall() == [
        ("session:1", "Yiwu Bright Goods", None, None, None)]
    assert scratch_database.execute_sql(
        "SELECT id, supplier, sku, name, offers_product_id FROM sample_order").fetchall() == [
        ("s1", "Yiwu Bright Goods", "YBG-1", None, None)]


def test_m0041_gives_the_gate_rows_there_before_one_evidence_version(scratch_database):
    """Rows computed before it get one token, so their cards are read afresh once, then kept."""
    for name in [n for n in migration_names() if n < "m0041"]:
        with scratch_database.atomic():
            importlib.import_module(f"models.migrations.{name}").upgrade(scratch_database)
    scratch_database.execute_sql("INSERT INTO product (product_id, name, description, category, price, cost, currency, "
                                 "images, rank, extra, created_at, updated_at) VALUES ('p1', 'P', 'D', 'C', 30, 10, "
                                 "'USD', '[]', 1, '{}', '2026-11-01', '2026-11-01')")
    scratch_database.execute_sql("INSERT INTO product_gate (product_id, rank, margin_pct, evidence_count) "
                                 "VALUES ('p1', 1, 66.67, 2)")
    with scratch_database.atomic():
        importlib.import_module("models.migrations.m0041_evidence_version").upgrade(scratch_database)
    (version,), = scratch_database.execute_sql("SELECT evidence_version FROM product_gate").fetchall()
    assert isinstance(version, str) and len(version) == 32 and int(version, 16) >= 0


def test_m0055_names_the_founder_changes_of_versions_written_before_it(scratch_database):
    """A store's versions from before: an edit and an applied intent name what they changed,
    a build started again from nothing, and the founder's product details kept their parent's."""
    def apply(name):
        with scratch_database.atomic():
            importlib.import_module(f"models.migrations.{name}").upgrade(scratch_database)

    for name in [n for n in migration_names() if n < "m0055"]:
        apply(name)
    mark, made = scratch_database.param, datetime(2026, 5, 1, 9)
    scratch_database.execute_sql(
        "INSERT INTO product (product_id, name, description, category, price, cost, currency, images, rank, extra, "
        f"created_at, updated_at) VALUES ({', '.join([mark] * 12)})",
        ("p00", "P", "D", "C", 30, 10, "USD", "[]", 1, "{}", made, made))
    scratch_database.execute_sql(f"INSERT INTO store (product_id, slug, version, created_at, updated_at) "
                                 f"VALUES ({', '.join([mark] * 5)})", ("p00", "p-1", 5, made, made))
    copy = {"headline": "Made", "returns": "Made"}
    versions = [(1, None, "Built from the product record, its evidence and the offer", copy, "hero"),
                (2, 1, "Edited: Change the headline to Mine", {**copy, "headline": "Mine"}, "hero"),
                (3, 2, "Applied: Show that it is trending (leads with the proof of demand)",
                 {**copy, "headline": "Mine"}, "evidence"),
                (4, 3, "Your own product details", {**copy, "headline": "Mine"}, "evidence"),
                (5, 4, "Built from the product record, its evidence and the offer", copy, "hero")]
    for number, parent, summary, text, lead in versions:
        scratch_database.execute_sql(
            "INSERT INTO store_version (product_id, number, document, patch, summary, dropped, parent, created_at) "
            f"VALUES ({', '.join([mark] * 8)})",
            ("p00", number, json.dumps({"copy": text, "lead": lead}), "[]", summary, "[]", parent, made))

    apply("m0055_store_founder_changes")

    rows = scratch_database.execute_sql("SELECT number, founder_changes FROM store_version ORDER BY number").fetchall()
    assert [(number, json.loads(changes)) for number, changes in rows] == [
        (1, []), (2, ["headline"]), (3, ["headline", "lead"]), (4, ["headline", "lead"]), (5, [])]
