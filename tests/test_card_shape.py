"""GET /api/find and GET /api/feed send their cards as services/discovery/cards.py built them,
without a dump through CardSchema (api/discovery.as_built). That is right only while every
card form the service builds is exactly what CardSchema dumps it to: the same fields in the
same order, each value of the same JSON type (30 is not 30.0), the trends as TrendSchema
and TrendPointSchema dump them. Each form is built here by the service itself (the feed's
own held card and its free cards, find's held card, a pass's next card, the claimed card of
GET /api/claims and of find at the allowance) and compared with its dump; and the fields
each form carries are compared with the schemas' own, so a field added to the builder and
not to the schema, or to the schema and not to the builder, fails here."""
from __future__ import annotations

import json

import pytest

from api.discovery import CardSchema
from api.json_out import plain
from api.research import TrendPointSchema, TrendSchema
from services import discovery
from services.discovery import allowance
from tests.factories import TODAY, catalog, claim, item, load, session_of

pytestmark = pytest.mark.usefixtures("frozen_clock")

CARD_FIELDS = list(CardSchema().fields)
OWN_FORM = {"held": "held_until", "claimed": "claimed"}  # what a founder's own card adds


def _evidence(pid):
    """Two sources, a rank (lower is better) and a count, values whole and not."""
    rows = [{"date": TODAY.replace(day=d).isoformat(), "source": source, "metric": metric, "value": value, "note": ""}
            for d, (source, metric, value) in enumerate([("amazon", "bestseller_rank", 1200), ("amazon",
                                                          "bestseller_rank", 950.5), ("google_trends",
                                                          "interest_index", 50), ("google_trends",
                                                          "interest_index", 61)] * 2, start=1)]
    return item(pid, rank=2000) | {"evidence": item(pid)["evidence"] + rows}


def _form(card: dict) -> str:
    if not card["yours"]:
        return "free"
    return "claimed" if card.get("claimed") else "held"


def assert_dumps_to_itself(card: dict) -> None:
    dumped = CardSchema().dump(card)
    assert json.dumps(dumped) == json.dumps(card), (card, dumped)
    form = _form(card)
    expected = [f for f in CARD_FIELDS if f not in OWN_FORM.values() or OWN_FORM.get(form) == f]
    assert list(card) == expected, f"a {form} card's fields are not CardSchema's: {list(card)} != {expected}"
    assert card["trends"], "the card's product has evidence: its trends must be drawn"
    for trend in card["trends"]:
        assert list(trend) == list(TrendSchema().fields)
        for point in trend["points"]:
            assert list(point) == list(TrendPointSchema().fields)


def test_every_card_form_the_service_builds_is_what_card_schema_dumps_it_to(founder):
    load(_evidence("a00"))
    catalog(6)
    browser = founder()
    browser.get("/api/usage")  # the session
    session = session_of(browser)
    cards = discovery.feed(session=session)[0]  # the cards a feed sends
    assert [_form(c) for c in cards][:2] == ["held", "free"] and len(cards) > 2
    found, _jobs = discovery.find(session=session)
    passed, _jobs = discovery.pass_on(session=session, product_id=None)
    assert claim(browser, passed["next"]["product_id"]).get_json()["status"] == "claimed"
    claimed = allowance.claims(session=session)["claimed"]
    forms = [*cards, found, passed["next"], *claimed]
    assert {_form(c) for c in forms} == {"free", "held", "claimed"}
    for card in forms:
        assert_dumps_to_itself(card)
    multi = next(c for c in forms if c["product_id"] == "a00")
    assert {t["lower_is_better"] for t in multi["trends"]} == {True, False}


def test_a_claimed_card_served_by_find_at_the_allowance_is_what_card_schema_dumps_it_to(founder):
    load(_evidence("a00"))
    catalog(8)
    browser = founder()
    while True:  # claim until the allowance is spent: find then serves the claimed card
        answer = claim(browser, browser.get("/api/find").get_json()["product_id"]).get_json()
        if answer.get("finds_remaining", 1) == 0:
            break
    found, _jobs = discovery.find(session=session_of(browser))
    assert found["claimed"] is True
    assert_dumps_to_itself(found)


def test_the_answer_on_the_wire_is_the_cards_as_built(founder):
    load(_evidence("a00"))
    catalog(3)
    browser = founder()
    response = browser.get("/api/feed")
    assert response.status_code == 200 and response.content_type == "application/json"
    sent = response.get_json()
    assert json.dumps(CardSchema(many=True).dump(sent)) == json.dumps(sent)
    # The feed is written by the app's JSON provider, as every answer is, on a first feed (cards
    # built) and a repeat (cards kept).
    assert response.data == plain(sent) + b"\n"
    again = browser.get("/api/feed")
    assert again.data == plain(again.get_json()) + b"\n" and again.get_json()[1:] == sent[1:]
