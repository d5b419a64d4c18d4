"""Bearer values in paths (issue 44): a journey carrier's id, a reply's rating token and a
sandbox checkout's id never reach the log, whatever the request's method or answer; and a
checkout id alone never reads the customer's address from the sandbox provider."""
from __future__ import annotations

import logging

import pytest

from logformat import CUT, logged_path
from services.desk import satisfaction
from tests.factories import ADDRESS, choose, path_of, payment_of, started

BEARER_ARGUMENTS = {"carrier_id", "token", "checkout_id"}


def logged(caplog) -> str:
    """Everything the test's log records say: messages and fields."""
    return "\n".join(f"{r.getMessage()} {getattr(r, 'fields', '')}" for r in caplog.records)


def request_paths(caplog) -> list[str]:
    return [r.fields["path"] for r in caplog.records if r.name == "api.request" and r.getMessage() == "request"]


def test_a_journey_carrier_id_is_cut_from_every_logged_path(founder, caplog, monkeypatch):
    caplog.set_level(logging.INFO)
    phone, laptop = founder(), founder()
    carrier = phone.post("/api/journey", json={"route": "#/app/home"}).get_json()["id"]
    assert laptop.post(f"/api/journey/{carrier}/consume").status_code == 200
    assert laptop.post(f"/api/journey/{carrier}/consume").status_code == 409
    assert laptop.get(f"/api/journey/{carrier}/consume").status_code == 405  # no route matched: cut still
    assert laptop.post(f"/api/journey/{carrier}/consume/more").status_code == 404

    from services import journey

    def broken(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(journey, "consume", broken)
    assert laptop.post(f"/api/journey/{carrier}/consume").status_code == 500
    assert carrier not in logged(caplog)
    consume = f"/api/journey/{CUT}/consume"
    assert request_paths(caplog)[-5:] == [consume, consume, consume, f"{consume}/more", consume]
    [uncaught] = [r for r in caplog.records if r.getMessage() == "uncaught exception"]
    assert uncaught.fields["path"] == f"/api/journey/{CUT}/consume"


def test_a_rating_token_is_cut_from_the_logged_path(client, caplog):
    caplog.set_level(logging.INFO)
    token = satisfaction.token_for(41)
    client.get(f"/rate/{token}")
    client.post(f"/rate/{token}", data={"score": "5"})
    assert token not in logged(caplog) and request_paths(caplog) == [f"/rate/{CUT}"] * 2


def test_sandbox_checkout_ids_are_cut_from_the_logged_paths(shop, founder, caplog):
    caplog.set_level(logging.INFO)
    customer = founder()
    order = started(customer)
    checkout_id = payment_of(order["order_id"]).provider_ref
    choose(customer, order["checkout_url"], "pay")
    customer.get(f"/pay/sandbox/v1/checkouts/{checkout_id}")
    assert checkout_id not in logged(caplog)
    # The sandbox's notification of the payment (/pay/notify) is delivered beside these, in its own time.
    sandbox = [path for path in request_paths(caplog) if path.startswith("/pay/sandbox/")]
    assert sandbox[-3:] == [f"/pay/sandbox/checkout/{CUT}", f"/pay/sandbox/checkout/{CUT}",
                            f"/pay/sandbox/v1/checkouts/{CUT}"]


def test_every_route_with_a_bearer_value_in_its_path_is_cut(app):
    """A route added later with a carrier id, token or checkout id in its path is cut too, or
    this test names it."""
    rules = [rule for rule in app.url_map.iter_rules() if set(rule.arguments) & BEARER_ARGUMENTS]
    assert {rule.rule for rule in rules} >= {"/api/journey/<carrier_id>/consume", "/rate/<token>",
                                             "/pay/sandbox/checkout/<checkout_id>",
                                             "/pay/sandbox/v1/checkouts/<checkout_id>"}
    for rule in rules:
        secret = "s3cr3tbearervalue"
        path = rule.rule
        for argument in rule.arguments:
            path = path.replace(f"<{argument}>", secret)
        assert secret not in logged_path(path), rule.rule
    assert logged_path("/api/journey") == "/api/journey" and logged_path("/store/shop/") == "/store/shop/"


# --- The sandbox state API and hosted page: the address to the checkout's own session only -----

def test_only_the_session_that_started_a_checkout_reads_its_address(shop, founder):
    customer = founder()
    order = started(customer)
    checkout_id = payment_of(order["order_id"]).provider_ref
    choose(customer, order["checkout_url"], "pay")
    mine = customer.get(f"/pay/sandbox/v1/checkouts/{checkout_id}").get_json()
    assert mine["state"] == "paid" and mine["shipping"]["line1"] == ADDRESS["line1"]
    assert ADDRESS["line1"] in customer.get(path_of(order["checkout_url"])).get_data(as_text=True)

    for stranger in (founder(), shop):  # a browser holding the id; the store's own founder
        theirs = stranger.get(f"/pay/sandbox/v1/checkouts/{checkout_id}").get_json()
        assert theirs["state"] == "paid" and theirs["shipping"] is None
        assert {k: v for k, v in theirs.items() if k != "shipping"} == {k: v for k, v in mine.items()
                                                                          if k != "shipping"}
        page = stranger.get(path_of(order["checkout_url"])).get_data(as_text=True)
        assert ADDRESS["line1"] not in page and ADDRESS["postal_code"] not in page
    anonymous = shop.application.test_client(use_cookies=False)
    assert anonymous.get(f"/pay/sandbox/v1/checkouts/{checkout_id}").get_json()["shipping"] is None


@pytest.mark.parametrize("path", ["/api/journey/{id}/consume", "/rate/{id}", "/pay/sandbox/checkout/{id}",
                                  "/pay/sandbox/v1/checkouts/{id}"])
def test_what_the_log_keeps_of_a_bearer_path(path):
    assert logged_path(path.format(id="abc.123_x")) == path.format(id=CUT)
