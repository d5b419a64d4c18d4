"""models/db.KeptSQL: a statement's SQL text is written by peewee once per shape, and each run
sends only its values (on whichever backend the suite runs)."""
from models.catalog import Product
from models.db import KeptSQL, param
from tests.factories import catalog


def test_the_text_is_written_once_per_shape_and_each_run_answers_for_its_own_values():
    catalog(5)
    built = []

    def build(limit):
        built.append(limit)
        return (Product.select(Product.product_id).where(Product.product_id >= param("from_id"))
                .order_by(Product.product_id).limit(limit))

    statement = KeptSQL(build)
    assert [r for (r,) in statement.run(2, from_id="p01").fetchall()] == ["p01", "p02"]
    assert [r for (r,) in statement.run(2, from_id="p03").fetchall()] == ["p03", "p04"]
    assert built == [2]  # the second run reused the text
    assert [r for (r,) in statement.run(1, from_id="p00").fetchall()] == ["p00"]
    assert built == [2, 1]  # another shape, another text
    sql, params = statement.sql(2, from_id="p02")
    assert "p02" not in sql and "p02" in params  # values travel as parameters, never in the text


def test_a_hostile_value_is_a_value():
    catalog(3)
    statement = KeptSQL(lambda: Product.select(Product.product_id).where(Product.product_id == param("pid")))
    assert statement.run(pid="p00' OR '1'='1").fetchall() == []
    assert statement.run(pid="p00").fetchall() == [("p00",)]
