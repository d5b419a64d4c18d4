"""The billing webhook (spec 5.17, 6, 7.2; decisions.md "Billing webhook"; reliability guide):
signed over the raw body within a 5-minute window, checked before the body is read, and
applied once per event id however often it is delivered."""
import hashlib
import hmac
import json
from collections import Counter
from datetime import datetime, timedelta

import pytest

from api import create_app
from config import use_settings
from models.account import Account, BillingEvent
from models.clock import clock
from services.plans import effective_tier
from tests.conftest import SETTINGS
from tests.helpers import in_threads

SECRET = "whsec_test"
WEBHOOK = "/api/billing/webhook"
NOW = datetime(2030, 1, 1, 12, 0, 0)


@pytest.fixture(scope="module")
def billing_app():
    app = create_app(SETTINGS.but(billing_webhook_secret=SECRET))
    use_settings(SETTINGS)
    return app


@pytest.fixture
def provider(billing_app):
    """A client standing in for the billing provider, talking to an app whose secret is set."""
    use_settings(SETTINGS.but(billing_webhook_secret=SECRET))
    clock.freeze(NOW)
    try:
        yield billing_app.test_client()
    finally:
        use_settings(SETTINGS)


@pytest.fixture
def unconfigured():
    """A client of an app built with BILLING_WEBHOOK_SECRET unset."""
    app = create_app(SETTINGS.but(billing_webhook_secret=None))
    try:
        yield app.test_client()
    finally:
        use_settings(SETTINGS)


@pytest.fixture
def account():
    return Account.create(email="founder@example.com")


def event(event_id="evt_1", *, tier="pro", email="founder@example.com", term_ends_at="2030-02-01T00:00:00Z",
          type="plan.changed"):
    return {"id": event_id, "type": type, "data": {"email": email, "tier": tier, "term_ends_at": term_ends_at}}


def signature(payload: bytes, *, secret=SECRET, at=None) -> str:
    """The documented scheme, computed here independently of the service's code."""
    t = int(clock.time()) if at is None else at
    digest = hmac.new(secret.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={t},v1={digest}"


def deliver(client, body, *, header="sign", raw=None, extra_headers=None):
    """POSTs an event as the provider does; header="sign" signs the exact bytes sent."""
    payload = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **(extra_headers or {})}
    if header == "sign":
        headers["Billing-Signature"] = signature(payload)
    elif header is not None:
        headers["Billing-Signature"] = header
    response = client.post(WEBHOOK, data=payload, headers=headers)
    assert response.mimetype == "application/json", response.get_data(as_text=True)
    return response


def refused(response, status, reason):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["reason"] == reason
    assert isinstance(body["explanation"], str) and body["explanation"]
    return body


def plan_of(account):
    row = Account.get_by_id(account.id)
    return row.tier, row.term_ends_at


# --- Signature ------------------------------------------------------------------------

def test_unsigned_callback_is_400_and_changes_nothing(provider, account):
    refused(deliver(provider, event(), header=None), 400, "unsigned_callback")
    assert plan_of(account) == ("free", None)
    assert BillingEvent.select().count() == 0


def test_signature_made_with_another_secret_is_403(provider, account):
    payload = json.dumps(event()).encode()
    refused(deliver(provider, None, raw=payload, header=signature(payload, secret="whsec_wrong")), 403, "bad_signature")
    assert plan_of(account) == ("free", None)
    assert BillingEvent.select().count() == 0


@pytest.mark.parametrize("header", [
    "",
    "  ",
    "junk",
    "v1=" + "a" * 64,  # no timestamp
    "t=1893499200",  # no signature
    "t=soon,v1=" + "a" * 64,
    "t=1893499200,t=1893499200,v1=" + "a" * 64,
    "t=1893499200,v1=not-hex",
    "t=1893499200,v1=" + "é" * 64,
])
def test_malformed_signature_header_is_403(provider, account, header):
    refused(deliver(provider, event(), header=header), 403, "bad_signature")
    assert plan_of(account) == ("free", None)


def test_body_tampered_after_signing_is_403(provider, account):
    signed = json.dumps(event(tier="pro")).encode()
    tampered = json.dumps(event(tier="max20")).encode()
    refused(deliver(provider, None, raw=tampered, header=signature(signed)), 403, "bad_signature")
    # Even a change that means the same JSON: the signature covers the raw bytes.
    spaced = json.dumps(event(tier="pro"), indent=1).encode()
    refused(deliver(provider, None, raw=spaced, header=signature(signed)), 403, "bad_signature")
    assert plan_of(account) == ("free", None)


@pytest.mark.parametrize("offset", [-301, 301, -86400, 86400])
def test_timestamp_outside_five_minutes_either_way_is_403(provider, account, offset):
    payload = json.dumps(event()).encode()
    at = int(clock.time()) + offset
    refused(deliver(provider, None, raw=payload, header=signature(payload, at=at)), 403, "bad_signature")
    assert plan_of(account) == ("free", None)


@pytest.mark.parametrize("offset", [-300, 300])
def test_timestamp_at_the_edge_of_the_window_is_accepted(provider, account, offset):
    payload = json.dumps(event()).encode()
    at = int(clock.time()) + offset
    assert deliver(provider, None, raw=payload, header=signature(payload, at=at)).get_json()["status"] == "applied"


def test_a_captured_message_replayed_after_the_window_is_403(provider, account):
    payload = json.dumps(event()).encode()
    header = signature(payload)
    clock.advance(301)
    refused(deliver(provider, None, raw=payload, header=header), 403, "bad_signature")
    assert plan_of(account) == ("free", None)


def test_several_signatures_let_the_secret_rotate(provider, account):
    payload = json.dumps(event()).encode()
    t = int(clock.time())
    old = signature(payload, secret="whsec_old").split("v1=")[1]
    new = signature(payload).split("v1=")[1]
    refused(deliver(provider, None, raw=payload, header=f"t={t},v1={old}"), 403, "bad_signature")
    response = deliver(provider, None, raw=payload, header=f"t={t},v1={old},v1={new.upper()},v0=ignored")
    assert response.status_code == 200
    assert response.get_json()["status"] == "applied"


def test_secret_unset_is_503_before_any_other_check(unconfigured, account):
    refused(deliver(unconfigured, event(), header=None), 503, "billing_unconfigured")
    refused(deliver(unconfigured, event()), 503, "billing_unconfigured")
    refused(deliver(unconfigured, None, raw=b"{not json", header=None), 503, "billing_unconfigured")
    assert plan_of(account) == ("free", None)


def test_the_signature_is_checked_before_the_body_is_read(provider, account):
    garbage = b"{not json"
    refused(deliver(provider, None, raw=garbage, header=None), 400, "unsigned_callback")
    refused(deliver(provider, None, raw=garbage, header=signature(b"{}")), 403, "bad_signature")
    refused(deliver(provider, None, raw=garbage), 400, "invalid_json")


def test_a_request_from_another_site_is_not_refused_as_cross_site(provider, account):
    response = deliver(provider, event(), extra_headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 200
    assert response.get_json()["status"] == "applied"
    # The signature, not the origin, is what it trusts.
    refused(deliver(provider, event("evt_2"), header=None, extra_headers={"Origin": "https://evil.example"}),
            400, "unsigned_callback")


# --- Applying plan changes ----------------------------------------------------------------

def test_a_signed_plan_change_sets_the_plan(provider, account):
    response = deliver(provider, event(tier="max5", email="Founder@Example.COM", term_ends_at="2030-02-01T00:00:00Z"))
    assert response.status_code == 200
    assert response.get_json() == {"status": "applied", "event_id": "evt_1", "tier": "max5",
                                   "term_ends_at": "2030-02-01T00:00:00Z"}
    assert plan_of(account) == ("max5", datetime(2030, 2, 1))
    assert effective_tier(Account.get_by_id(account.id)) == "max5"
    assert [(e.event_id, e.account_id, e.tier) for e in BillingEvent.select()] == [("evt_1", account.id, "max5")]


def test_a_term_end_with_an_offset_is_stored_in_utc(provider, account):
    deliver(provider, event(term_ends_at="2030-02-01T02:00:00+02:00"))
    assert plan_of(account) == ("pro", datetime(2030, 2, 1))


def test_an_expired_term_reads_as_free(provider, account):
    ends = NOW + timedelta(days=30)
    deliver(provider, event(tier="pro", term_ends_at=ends.isoformat() + "Z"))
    assert effective_tier(Account.get_by_id(account.id)) == "pro"
    clock.advance(days=30, seconds=-1)
    assert effective_tier(Account.get_by_id(account.id)) == "pro"
    clock.advance(1)
    assert effective_tier(Account.get_by_id(account.id)) == "free"
    assert Account.get_by_id(account.id).tier == "pro"  # stored as sent; it reads as free


def test_a_paid_plan_without_a_term_end_does_not_expire(provider, account):
    deliver(provider, event(tier="max20", term_ends_at=None))
    clock.advance(days=3650)
    assert effective_tier(Account.get_by_id(account.id)) == "max20"


def test_a_change_to_free_has_no_end_date(provider, account):
    deliver(provider, event("evt_1", tier="pro"))
    response = deliver(provider, event("evt_2", tier="free", term_ends_at="2030-03-01T00:00:00Z"))
    assert response.get_json()["term_ends_at"] is None
    assert plan_of(account) == ("free", None)


def test_a_replayed_event_applies_once(provider, account):
    assert deliver(provider, event("evt_1", tier="pro")).get_json()["status"] == "applied"
    assert deliver(provider, event("evt_2", tier="max5", term_ends_at=None)).get_json()["status"] == "applied"
    replay = deliver(provider, event("evt_1", tier="pro"))
    assert replay.status_code == 200
    assert replay.get_json() == {"status": "duplicate", "event_id": "evt_1"}
    assert plan_of(account) == ("max5", None)  # the replay changed nothing
    assert BillingEvent.select().count() == 2


def test_twenty_concurrent_deliveries_of_one_event_apply_once(provider, billing_app, account):
    payload = json.dumps(event("evt_race", tier="max20")).encode()
    header = signature(payload)

    def deliver_once(_i):
        response = deliver(billing_app.test_client(), None, raw=payload, header=header)
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()["status"]

    statuses = Counter(in_threads(20, deliver_once))
    assert statuses == {"applied": 1, "duplicate": 19}
    assert BillingEvent.select().where(BillingEvent.event_id == "evt_race").count() == 1
    assert plan_of(account) == ("max20", datetime(2030, 2, 1))


@pytest.mark.parametrize("tier", ["gold", "PRO", "", None, 5])
def test_unknown_tier_is_400_and_changes_nothing(provider, account, tier):
    refused(deliver(provider, event(tier=tier)), 400, "unknown_tier")
    assert plan_of(account) == ("free", None)
    assert BillingEvent.select().count() == 0


def test_an_event_refused_for_its_tier_can_be_sent_again_corrected(provider, account):
    refused(deliver(provider, event("evt_1", tier="gold")), 400, "unknown_tier")
    assert deliver(provider, event("evt_1", tier="pro")).get_json()["status"] == "applied"


@pytest.mark.parametrize("body, reason", [
    ({"type": "plan.changed", "data": {"email": "founder@example.com", "tier": "pro"}}, "invalid_request"),
    ({"id": "evt_1", "data": {"email": "founder@example.com", "tier": "pro"}}, "invalid_request"),
    ({"id": "x" * 201, "type": "plan.changed", "data": {"email": "founder@example.com", "tier": "pro"}}, "invalid_request"),
    ({"id": "evt_1", "type": "plan.changed", "data": ["founder@example.com"]}, "invalid_request"),
    ({"id": "evt_1", "type": "plan.changed", "data": {"tier": "pro"}}, "invalid_email"),
    ({"id": "evt_1", "type": "plan.changed", "data": {"email": "founder@example.com", "tier": "pro",
                                                        "term_ends_at": "next month"}}, "invalid_request"),
])
def test_a_signed_event_missing_a_field_is_400_and_changes_nothing(provider, account, body, reason):
    refused(deliver(provider, body), 400, reason)
    assert plan_of(account) == ("free", None)
    assert BillingEvent.select().count() == 0


def test_a_signed_body_that_is_not_a_json_object_is_400(provider, account):
    refused(deliver(provider, None, raw=b"[1, 2]"), 400, "invalid_json")
    assert plan_of(account) == ("free", None)


def test_an_unknown_event_type_is_acknowledged_and_ignored(provider, account):
    response = deliver(provider, {"id": "evt_9", "type": "invoice.paid", "data": {"amount": 100}})
    assert response.status_code == 200
    body = response.get_json()
    assert (body["status"], body["reason"], body["event_id"]) == ("ignored", "unknown_event_type", "evt_9")
    assert body["explanation"]
    assert plan_of(account) == ("free", None)
    assert BillingEvent.select().count() == 0


def test_an_event_for_an_unknown_address_is_acknowledged_and_applies_once_the_account_exists(provider):
    response = deliver(provider, event(email="nobody@example.com"))
    assert response.status_code == 200
    body = response.get_json()
    assert (body["status"], body["reason"]) == ("ignored", "unknown_account")
    assert BillingEvent.select().count() == 0
    latecomer = Account.create(email="nobody@example.com")
    assert deliver(provider, event(email="nobody@example.com")).get_json()["status"] == "applied"
    assert plan_of(latecomer)[0] == "pro"


# --- Published contract ----------------------------------------------------------------

def test_the_webhook_and_its_signature_scheme_are_published(provider):
    document = provider.get("/api/openapi.json").get_json()
    responses = document["paths"]["/api/billing/webhook"]["post"]["responses"]
    assert "unsigned_callback" in responses["400"]["content"]["application/json"]["schema"]["properties"]["reason"]["enum"]
    assert responses["403"]["content"]["application/json"]["schema"]["properties"]["reason"]["enum"] == ["bad_signature"]
    assert "billing_unconfigured" in responses["503"]["content"]["application/json"]["schema"]["properties"]["reason"]["enum"]
    decisions = " ".join(document["info"]["x-decisions"])
    assert "Billing-Signature: t=<unix seconds>,v1=<hex>" in decisions
    reasons = provider.get("/api/reasons").get_json()["reasons"]
    assert {"unknown_account", "unknown_event_type", "unsigned_callback", "bad_signature"} <= set(reasons)


# --- Ordering ---------------------------------------------------------------------------


def test_an_older_event_arriving_late_cannot_roll_a_newer_plan_back(provider, account):
    newer = {**event("evt_new", tier="max5"), "created": 2_000_000_000}
    older = {**event("evt_old", tier="pro"), "created": 1_999_999_000}
    assert deliver(provider, newer).get_json()["status"] == "applied"
    late = deliver(provider, older)
    assert late.status_code == 200
    assert late.get_json()["status"] == "stale" and late.get_json()["explanation"]
    assert plan_of(account)[0] == "max5"
    # The late event is recorded: its own retries are duplicates, not new attempts.
    assert deliver(provider, older).get_json()["status"] == "duplicate"


def test_events_in_order_each_apply(provider, account):
    assert deliver(provider, {**event("evt_a", tier="pro"), "created": 1_900_000_000}).get_json()["status"] == "applied"
    assert deliver(provider, {**event("evt_b", tier="max20"), "created": 1_900_000_100}).get_json()["status"] == "applied"
    assert plan_of(account)[0] == "max20"


def test_an_event_without_created_counts_as_made_on_arrival(provider, account):
    assert deliver(provider, event("evt_now", tier="max5")).get_json()["status"] == "applied"
    yesterday = int(clock.time()) - 86400
    stale = deliver(provider, {**event("evt_yesterday", tier="pro"), "created": yesterday})
    assert stale.get_json()["status"] == "stale" and plan_of(account)[0] == "max5"
