"""Statements built once (models/compiled.py): they read back exactly what the same peewee
query reads, per shape, and on PostgreSQL survive the loss of their prepared form."""
import json
from datetime import datetime, timedelta
from decimal import Decimal

import peewee as pw

from models.catalog import Product
from models.compiled import Param, Statement
from models.db import db, is_sqlite, transaction
from models.discovery import Hold
from models.session import Session

NOW = datetime(2026, 11, 22, 12, 0, 0)


def _products(count):
    with transaction():
        Product.insert_many([{"product_id": f"c{n:02d}", "name": f"P{n}", "description": "d", "category": "c",
                              "price": Decimal("19.99") + n, "cost": Decimal("5.50"), "currency": "USD",
                              "images": [f"/i/{n}.svg"], "rank": float(100 - n), "extra": {},
                              "created_at": NOW, "updated_at": NOW} for n in range(count)]).execute()


def _cheaper_than(limit):
    return (Product.select(Product.product_id.alias("product_id"), Product.price.alias("price"),
                           Product.images.alias("images"), Product.rank.alias("rank"),
                           Product.created_at.alias("created_at"))
            .where(Product.price < Param("price")).order_by(Product.rank.desc()).limit(limit))


CHEAPER = Statement("test_cheaper", _cheaper_than)


def test_a_statement_reads_back_what_peewee_reads():
    _products(6)
    for limit in (2, 5):  # shapes that differ only by a number written into the text
        compiled = CHEAPER.rows(limit, price=Decimal("23"))
        plain = list(Product.select(Product.product_id, Product.price, Product.images, Product.rank,
                                    Product.created_at)
                     .where(Product.price < Decimal("23")).order_by(Product.rank.desc()).limit(limit).dicts())
        assert [row._asdict() for row in compiled] == plain
        assert len(compiled) == min(limit, 4)
        assert isinstance(compiled[0].price, Decimal) and compiled[0].images == ["/i/0.svg"]
        assert isinstance(compiled[0].created_at, datetime)


def test_a_derived_column_and_a_scalar_subquery_read_back_as_their_fields():
    _products(1)
    session = Session.create(token_hash="h" * 64)
    Hold.create(product="c00", session=session.id, expires_at=NOW + timedelta(minutes=5), created_at=NOW)
    held = Hold.select(Hold.product, Hold.expires_at).where(Hold.session == Param("session")).alias("h")
    statement = Statement("test_derived", lambda: pw.Select(from_list=[held], columns=[
        held.c.expires_at.alias("until"),
        Product.select(Product.created_at).where(Product.product_id == held.c.product_id).alias("made")]))
    row = statement.first(session=session.id)
    assert row.until == NOW + timedelta(minutes=5) and row.made == NOW


def test_a_prepared_statement_the_server_lost_is_prepared_again():
    _products(3)
    assert len(CHEAPER.rows(5, price=Decimal("100"))) == 3
    if not is_sqlite():
        db.execute_sql("DEALLOCATE ALL")  # as a reset of the server session would
    assert len(CHEAPER.rows(5, price=Decimal("100"))) == 3


def test_the_text_is_built_once_per_shape():
    calls = []

    def build(limit):
        calls.append(limit)
        return _cheaper_than(limit)

    statement = Statement("test_once", build)
    for _ in range(3):
        statement.rows(3, price=Decimal("1"))
        statement.rows(4, price=Decimal("1"))
    assert calls == [3, 4]
    assert json.dumps(statement.sql(3))  # readable text, for tests and people


def _priced_between():
    """`price` twice against the same field, `low` against the rank (a float): on PostgreSQL
    the repeated value is one parameter, and a value met by fields converting differently
    (a decimal of two places, a float) stays one parameter per conversion."""
    return (Product.select(Product.product_id.alias("product_id"))
            .where((Product.price <= Param("price")) & (Product.cost < Param("price")) & (Product.rank >= Param("low"))
                   & (Product.cost >= Param("low")))
            .order_by(Product.product_id))


def test_a_value_named_in_several_places_travels_once_per_conversion():
    _products(4)
    statement = Statement("test_shared", _priced_between)
    rows = statement.rows(price=Decimal("21.99"), low=Decimal("5.5"))
    assert [row.product_id for row in rows] == ["c00", "c01", "c02"]
    if not is_sqlite():
        text = statement.text()
        # price (twice, both decimals of two places), low as a float and low as a decimal.
        assert [slot.name for slot in text.execute_slots] == ["price", "low", "low"]
        assert text.prepare_sql.count("$1") == 2 and "$4" not in text.prepare_sql
