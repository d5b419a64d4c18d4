"""A response schema's compiled dump (api/dumping.py) answers what marshmallow's own dump of
the same schema answers: the same keys in the same order and every value of the same type
(1 is not 1.0 nor True), for every kind of field and value it compiles, and for the answers
of the routes that use it (GET /api/dashboard in each of its states, GET /api/usage with and
without an account). A schema it does not compile is dumped by marshmallow itself."""
from __future__ import annotations

from collections import namedtuple
from decimal import Decimal
from types import SimpleNamespace

from marshmallow import Schema, fields, post_dump

from api.dumping import dumper
from api.research import DashboardAnswer
from api.usage import UsageSchema
from services.meter import usage
from services.research import answers
from tests.factories import catalog, claim, find, item, load, session_of


def typed(value):
    """The value with every scalar's type beside it, key order kept."""
    if isinstance(value, dict):
        return ["dict", [(k, typed(v)) for k, v in value.items()]]
    if isinstance(value, list):
        return ["list", [typed(v) for v in value]]
    return [type(value).__name__, value]


def same(schema, obj):
    assert typed(dumper(schema)(obj)) == typed(schema.dump(obj)), obj


class Point(Schema):
    x = fields.Float(required=True)
    label = fields.String()


class Everything(Schema):
    name = fields.String()
    price = fields.Float(allow_none=True)
    count = fields.Integer()
    flag = fields.Boolean()
    raw = fields.Raw()
    mapping = fields.Dict()
    point = fields.Nested(Point, allow_none=True)
    points = fields.List(fields.Nested(Point))
    many = fields.Nested(Point, many=True)
    words = fields.List(fields.String())
    renamed = fields.String(data_key="shown_as")
    read_from = fields.Integer(attribute="other_key")


PointRow = namedtuple("PointRow", "x label")


def test_every_kind_of_value_dumps_as_marshmallow_dumps_it():
    schema = Everything()
    for obj in [
        {"name": "n", "price": 30.0, "count": 3, "flag": True, "raw": {"a": [1, 2.5]}, "mapping": {"k": 1},
         "point": {"x": 1.5, "label": "p", "extra": "left out"}, "points": [{"x": 2}, {"x": 2.5, "label": None}],
         "many": [{"x": Decimal("1.10")}], "words": ["a", 5, None], "shown_as": "not read", "renamed": "r",
         "other_key": 7, "not_declared": 1},
        {"name": 5, "price": 30, "count": 2.0, "flag": 1, "raw": Decimal("2.5"), "point": PointRow(3, "row"),
         "points": [PointRow(4.0, None), {"x": True}], "words": []},
        {"price": Decimal("19.99"), "count": True, "flag": 0, "point": None, "points": None, "words": None,
         "many": None, "renamed": None},
        {"name": None, "price": None, "count": None, "flag": None, "raw": None},
        {},
    ]:
        same(schema, obj)
    same(Everything(many=True), [{"name": "a", "price": 1}, {"count": 2.0}, SimpleNamespace(name="o", price=2)])
    same(Everything(only=("name", "point")), {"name": "n", "point": {"x": 1}, "count": 3})


def test_a_schema_it_does_not_compile_is_dumped_by_marshmallow():
    class Hooked(Schema):
        name = fields.String()

        @post_dump
        def shout(self, data, **kwargs):
            return {k: v.upper() for k, v in data.items()}

    class Dated(Schema):
        when = fields.DateTime()

    class Defaulted(Schema):
        name = fields.String(dump_default="anonymous")

    class Method(Schema):
        items = fields.String()  # a dict's method name: marshmallow would read the method of a dict lacking it

    for schema in (Hooked(), Dated(), Defaulted(), Method()):
        assert dumper(schema) == schema.dump
    assert typed(dumper(Hooked())({"name": "a"})) == typed({"name": "A"})


def test_the_dashboard_in_each_state_dumps_as_marshmallow_dumps_it(founder, run_jobs, held_worker):
    schema = DashboardAnswer()
    catalog(2)
    nobody = founder()
    nobody.get("/api/usage")
    body, _jobs = answers.dashboard(session=session_of(nobody))
    assert body["status"] == "not_claimed"
    same(schema, body)

    load(item("strong", price=34.99, cost=11.2, rank=5000))
    owner = founder()
    assert find(owner).get_json()["product_id"] == "strong"
    assert claim(owner).get_json()["status"] == "claimed"
    body, _jobs = answers.dashboard(session=session_of(owner))
    assert body["status"] == "not_yet_researched"
    same(schema, body)

    held_worker.resume()
    run_jobs()
    verdict, _jobs = answers.dashboard(session=session_of(owner))
    body = verdict.build()
    assert body["status"] == "ok" and body["facts"] and body["sources"] and body["trends"]
    same(schema, body)
    sent = owner.get("/api/dashboard").get_json()
    assert typed(sent) == typed(schema.dump(body))


def test_usage_with_and_without_an_account_dumps_as_marshmallow_dumps_it(founder):
    from models.account import Account
    from models.session import Session

    schema = UsageSchema()
    catalog(2)
    same(schema, usage(None))
    account = Account.create(email="usage@example.com", verified=True, tier="pro")
    browser = founder()
    browser.get("/api/usage")
    Session.update(account_id=account.id).where(Session.id == session_of(browser).id).execute()
    browser.get("/api/find")
    body = usage(account.id)
    assert body["features"] and any(f["used_5h"] for f in body["features"])
    same(schema, body)
