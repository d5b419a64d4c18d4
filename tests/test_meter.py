"""The credit meter (spec 8.1-8.5, 5.11): limits per tier and referrals, fixed windows, one
atomic check-and-spend, refunds, GET /api/usage and the 429 refusal."""
from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest

from api import create_app
from api.routing import Blueprint
from api.session import current_session
from models.account import Account, MeterUsage
from models.clock import clock, utcnow
from services import meter
from services.errors import Refused
from tests.conftest import SETTINGS
from tests.helpers import in_threads
from tests.metered_accounts import bind, make_account, row

FIVE_HOURS, WEEK = 18_000, 604_800
# A five-hour boundary that is not a week boundary (the week runs on across it).
B = FIVE_HOURS * 100_000
T0 = B + 3_600  # one hour into that five-hour window

NAMES = {"website_edit": "AI website editor", "growth_edit": "AI Growth ad editor", "find": "Product find engine",
         "ad": "Ad generation", "support": "Support agent"}
COSTS = {"website_edit": 50, "growth_edit": 20, "find": 5, "ad": 10, "support": 1}
# Spec 8.2 (five-hour), and the tier multiplier x the pro weekly figure (week).
LIMITS = {
    "free": {"website_edit": (100, 1000), "growth_edit": (50, 500), "find": (50, 500), "ad": (50, 500), "support": (50, 500)},
    "pro": {"website_edit": (1000, 10000), "growth_edit": (500, 5000), "find": (500, 5000), "ad": (500, 5000), "support": (500, 5000)},
    "max5": {"website_edit": (5000, 50000), "growth_edit": (2500, 25000), "find": (2500, 25000), "ad": (2500, 25000), "support": (2500, 25000)},
    "max20": {"website_edit": (20000, 200000), "growth_edit": (10000, 100000), "find": (10000, 100000), "ad": (10000, 100000), "support": (10000, 100000)},
}
LABELS = {"free": "Free", "pro": "Pro", "max5": "Max 5x", "max20": "Max 20x"}

def refused(account: Account, bucket: str = "find") -> Refused:
    with pytest.raises(Refused) as caught:
        meter.spend(account.id, bucket)
    return caught.value


def spend_times(account: Account, count: int, bucket: str = "find") -> list[meter.Charge]:
    return [meter.spend(account.id, bucket) for _ in range(count)]


def feature(body: dict, bucket: str) -> dict:
    return next(f for f in body["features"] if f["feature"] == bucket)


# --- GET /api/usage ----------------------------------------------------------------------

def test_usage_without_an_account_has_no_subject_and_no_features(client):
    response = client.get("/api/usage")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert response.get_json() == {"status": "ok", "account": False, "tier": "free", "tier_label": "Free",
                                   "multiplier": 0.1, "referral_multiplier": 1.0, "features": []}


@pytest.mark.parametrize("tier, multiplier", [("free", 0.1), ("pro", 1.0), ("max5", 5.0), ("max20", 20.0)])
def test_usage_lists_every_bucket_with_the_tiers_limits(client, tier, multiplier):
    clock.freeze(T0)
    bind(client, make_account(tier))
    body = client.get("/api/usage").get_json()
    assert {k: body[k] for k in ("status", "account", "tier", "tier_label", "multiplier", "referral_multiplier")} == {
        "status": "ok", "account": True, "tier": tier, "tier_label": LABELS[tier], "multiplier": multiplier,
        "referral_multiplier": 1.0}
    assert [f["feature"] for f in body["features"]] == ["website_edit", "growth_edit", "find", "ad", "support"]
    for bucket, (limit_5h, limit_week) in LIMITS[tier].items():
        assert feature(body, bucket) == {
            "feature": bucket, "name": NAMES[bucket], "cost": COSTS[bucket],
            "used_5h": 0, "limit_5h": limit_5h, "used_week": 0, "limit_week": limit_week,
            "resets_at_5h": B + FIVE_HOURS, "resets_at_week": (T0 // WEEK + 1) * WEEK,
            "allowed": True, "exhausted_window": None,
        }


def test_a_paid_tier_past_its_term_reads_as_free(client):
    clock.freeze(T0)
    bind(client, make_account("max5", term_ends_at=utcnow() - timedelta(seconds=1)))
    body = client.get("/api/usage").get_json()
    assert (body["tier"], body["tier_label"], body["multiplier"]) == ("free", "Free", 0.1)
    assert feature(body, "website_edit")["limit_5h"] == 100


def test_a_paid_tier_within_its_term_keeps_its_limits(client):
    clock.freeze(T0)
    bind(client, make_account("max5", term_ends_at=utcnow() + timedelta(days=3)))
    body = client.get("/api/usage").get_json()
    assert (body["tier"], body["multiplier"], feature(body, "find")["limit_week"]) == ("max5", 5.0, 25000)


@pytest.mark.parametrize("referrals, referral_multiplier", [(0, 1.0), (1, 2.0), (2, 2.5), (3, 3.0), (4, 3.5), (5, 4.0), (7, 4.0)])
def test_qualified_referrals_multiply_every_limit_up_to_the_cap(client, referrals, referral_multiplier):
    bind(client, make_account("free", referrals=referrals, unqualified=2))  # unqualified friends do not count
    body = client.get("/api/usage").get_json()
    assert body["referral_multiplier"] == referral_multiplier
    assert body["multiplier"] == {1.0: 0.1, 2.0: 0.2, 2.5: 0.25, 3.0: 0.3, 3.5: 0.35, 4.0: 0.4}[referral_multiplier]
    for bucket, (limit_5h, limit_week) in LIMITS["free"].items():
        assert feature(body, bucket)["limit_5h"] == round(limit_5h * referral_multiplier)
        assert feature(body, bucket)["limit_week"] == round(limit_week * referral_multiplier)


def test_multiplier_is_tier_times_referral(client):
    bind(client, make_account("max20", referrals=2))
    body = client.get("/api/usage").get_json()
    assert (body["multiplier"], body["referral_multiplier"]) == (50.0, 2.5)
    assert feature(body, "website_edit")["limit_5h"] == 50_000
    assert feature(body, "website_edit")["limit_week"] == 500_000


@pytest.mark.parametrize("tier", sorted(LIMITS))
def test_a_spend_is_checked_against_the_limits_usage_shows(tier):
    """The spend's UPDATE and GET /api/usage both take their limits from Plan.limits: the
    figures of spec 8 for every tier, referral step and bucket, and a paid tier past its term
    spends under the free limits."""
    from services.referrals import REFERRAL_MULTIPLIERS

    for referrals, step in enumerate(REFERRAL_MULTIPLIERS):
        for ended in (False, True):
            term_ends_at = utcnow() + (timedelta(days=-1) if ended else timedelta(days=30))
            plan = SimpleNamespace(id=7, tier=tier, term_ends_at=term_ends_at, referrals=referrals)
            read_as = "free" if ended and tier != "free" else tier
            for bucket, (limit_5h, limit_week) in LIMITS[read_as].items():
                values = meter.spend_values(plan, meter.BUCKETS[bucket], T0)
                assert (values["limit_5h"], values["limit_week"]) == (round(limit_5h * step), round(limit_week * step))
                assert (values["limit_5h"], values["limit_week"]) == \
                    meter._plan(plan, referrals).limits(meter.BUCKETS[bucket])


def test_checking_never_spends(client):
    clock.freeze(T0)
    account = make_account()
    bind(client, account)
    for _ in range(20):
        assert client.get("/api/usage").status_code == 200
    assert MeterUsage.select().count() == 0
    spend_times(account, 3)
    for _ in range(20):
        assert feature(client.get("/api/usage").get_json(), "find")["used_5h"] == 15
    assert (row(account).used_5h, row(account).used_week) == (15, 15)


def test_usage_shows_spends_and_an_elapsed_window_reads_as_zero(client):
    clock.freeze(T0)
    account = make_account()
    bind(client, account)
    spend_times(account, 10)
    spend_times(account, 2, "website_edit")
    body = client.get("/api/usage").get_json()
    assert {k: feature(body, "find")[k] for k in ("used_5h", "used_week", "allowed", "exhausted_window")} == {
        "used_5h": 50, "used_week": 50, "allowed": False, "exhausted_window": "5h"}
    assert {k: feature(body, "website_edit")[k] for k in ("used_5h", "allowed", "exhausted_window")} == {
        "used_5h": 100, "allowed": False, "exhausted_window": "5h"}
    assert feature(body, "support")["allowed"] is True
    clock.freeze(B + FIVE_HOURS)
    body = client.get("/api/usage").get_json()
    assert {k: feature(body, "find")[k] for k in ("used_5h", "used_week", "allowed", "exhausted_window", "resets_at_5h")} == {
        "used_5h": 0, "used_week": 50, "allowed": True, "exhausted_window": None, "resets_at_5h": B + 2 * FIVE_HOURS}
    assert row(account).used_5h == 50  # reading did not write


# --- Spending ----------------------------------------------------------------------------

def test_an_anonymous_session_is_not_metered():
    assert meter.spend(None, "website_edit") is None
    with meter.metered(None, "find") as charge:
        assert charge is None
    assert MeterUsage.select().count() == 0


def test_a_spend_returns_its_charge_and_counts_in_both_windows():
    clock.freeze(T0)
    account = make_account()
    charge = meter.spend(account.id, "growth_edit")
    assert (charge.account_id, charge.bucket, charge.cost, charge.window_5h, charge.window_week) == (
        account.id, "growth_edit", 20, T0 // FIVE_HOURS, T0 // WEEK)
    assert (row(account, "growth_edit").used_5h, row(account, "growth_edit").used_week) == (20, 20)


def test_buckets_are_separate_and_not_pooled():
    clock.freeze(T0)
    account = make_account()
    spend_times(account, 10)
    assert refused(account).reason == "usage_limit_reached"
    assert meter.spend(account.id, "ad") is not None
    assert meter.spend(account.id, "support") is not None


def test_the_subject_is_the_account_not_the_session():
    clock.freeze(T0)
    account, other = make_account(), make_account()
    spend_times(account, 10)
    assert refused(account).reason == "usage_limit_reached"
    assert meter.spend(other.id, "find") is not None


def test_a_free_account_firing_100_concurrent_finds_gets_exactly_limit_over_cost():
    clock.freeze(T0)
    account = make_account()

    def attempt(_i):
        try:
            return meter.spend(account.id, "find")
        except Refused as refusal:
            return refusal

    results = in_threads(100, attempt)
    charges = [r for r in results if isinstance(r, meter.Charge)]
    refusals = [r for r in results if isinstance(r, Refused)]
    assert len(charges) == 10 and len(refusals) == 90
    assert {r.reason for r in refusals} == {"usage_limit_reached"}
    assert {(r.fields["used"], r.fields["limit"]) for r in refusals} == {(50, 50)}
    usage = row(account)
    assert (usage.used_5h, usage.used_week) == (50, 50)  # the week moved only for allowed calls


def test_the_five_hour_window_resets_exactly_at_its_boundary():
    account = make_account()
    assert (B - 1) // WEEK == B // WEEK  # the week runs on across this boundary
    clock.freeze(B - 60)
    spend_times(account, 10)
    refusal = refused(account)
    assert (refusal.reason, refusal.fields["resets_at"], refusal.fields["used"]) == ("usage_limit_reached", B, 50)
    clock.freeze(B - 1)
    assert refused(account).fields["resets_at"] == B
    clock.freeze(B)
    charge = meter.spend(account.id, "find")
    assert charge.window_5h == B // FIVE_HOURS
    assert (row(account).used_5h, row(account).used_week) == (5, 55)
    spend_times(account, 9)
    assert refused(account).fields["resets_at"] == B + FIVE_HOURS


def test_the_weekly_cap_binds_across_five_hour_windows():
    account = make_account()
    week_start = WEEK * 2976
    first = (week_start // FIVE_HOURS + 1) * FIVE_HOURS  # the first five-hour boundary of that week
    for k in range(10):  # ten full five-hour windows of finds: 10 x 50 = the free weekly cap of 500
        clock.freeze(first + k * FIVE_HOURS + 10)
        spend_times(account, 10)
    # Both windows are exhausted now; the week frees up later, so it is the one named.
    refusal = refused(account)
    assert (refusal.reason, refusal.fields["used"], refusal.fields["limit"], refusal.fields["resets_at"]) == (
        "weekly_limit_reached", 500, 500, week_start + WEEK)
    clock.freeze(first + 10 * FIVE_HOURS + 10)  # a fresh five-hour window, the same week
    refusal = refused(account)
    assert (refusal.reason, refusal.fields["used"], refusal.fields["resets_at"]) == (
        "weekly_limit_reached", 500, week_start + WEEK)
    assert (row(account).used_5h, row(account).used_week) == (50, 500)  # refusals spent nothing
    usage = feature(meter.usage(account.id), "find")
    assert (usage["used_5h"], usage["used_week"], usage["allowed"], usage["exhausted_window"]) == (0, 500, False, "week")
    clock.freeze(week_start + WEEK)
    assert meter.spend(account.id, "find").window_week == week_start // WEEK + 1


def test_when_both_windows_are_exhausted_the_later_reset_is_named():
    # A five-hour window that straddles the end of a week ends after the week does.
    account = make_account()
    week_end = WEEK * 2977
    t = week_end - 60
    w5 = t // FIVE_HOURS
    assert (w5 + 1) * FIVE_HOURS > week_end
    MeterUsage.create(account=account.id, bucket="find", window_5h=w5, used_5h=50, window_week=t // WEEK, used_week=500)
    clock.freeze(t)
    refusal = refused(account)
    assert (refusal.reason, refusal.fields["resets_at"]) == ("usage_limit_reached", (w5 + 1) * FIVE_HOURS)
    assert feature(meter.usage(account.id), "find")["exhausted_window"] == "5h"
    clock.freeze(week_end)  # the week reset; the five-hour window has not
    refusal = refused(account)
    assert (refusal.reason, refusal.fields["used"]) == ("usage_limit_reached", 50)
    assert feature(meter.usage(account.id), "find")["used_week"] == 0


def test_a_limit_that_is_not_a_multiple_of_the_cost_stops_before_it():
    clock.freeze(T0)
    account = make_account()
    spend_times(account, 2, "growth_edit")  # 40 of 50
    refusal = refused(account, "growth_edit")
    assert (refusal.fields["used"], refusal.fields["limit"]) == (40, 50)


# --- Refunds -----------------------------------------------------------------------------

def test_a_refunded_charge_frees_its_credits_once():
    clock.freeze(T0)
    account = make_account()
    charges = spend_times(account, 10)
    refused(account)
    charges[0].refund()
    assert (row(account).used_5h, row(account).used_week) == (45, 45)
    charges[0].refund()  # a second refund of the same charge gives nothing more
    assert row(account).used_5h == 45
    assert meter.spend(account.id, "find") is not None
    assert refused(account).fields["used"] == 50


def test_a_refund_after_the_window_moved_on_leaves_the_new_window_alone():
    account = make_account()
    clock.freeze(B - 60)
    old = meter.spend(account.id, "find")
    clock.freeze(B)
    meter.spend(account.id, "find")
    old.refund()
    # The five-hour window moved on: its new count keeps the new spend. The week did not.
    assert (row(account).used_5h, row(account).used_week) == (5, 5)

    week_boundary = WEEK * 2975  # also a five-hour boundary: both windows move on together
    assert week_boundary % FIVE_HOURS == 0
    other = make_account()
    clock.freeze(week_boundary - 60)
    old = meter.spend(other.id, "find")
    clock.freeze(week_boundary)
    meter.spend(other.id, "find")
    old.refund()
    assert (row(other).used_5h, row(other).used_week) == (5, 5)


def test_a_refund_never_goes_below_zero():
    clock.freeze(T0)
    account = make_account()
    charge = meter.spend(account.id, "website_edit")
    MeterUsage.update(used_5h=20, used_week=0).where(MeterUsage.account == account.id).execute()
    charge.refund()
    assert (row(account, "website_edit").used_5h, row(account, "website_edit").used_week) == (0, 0)


def test_metered_refunds_a_block_that_raises_and_keeps_one_that_succeeds():
    clock.freeze(T0)
    account = make_account()
    with pytest.raises(RuntimeError):
        with meter.metered(account.id, "ad"):
            raise RuntimeError("the AI backend failed; nothing changed")
    with pytest.raises(Refused):
        with meter.metered(account.id, "ad"):
            raise Refused("editor_unavailable")
    assert row(account, "ad").used_5h == 0
    with meter.metered(account.id, "ad") as charge:
        assert charge.cost == 10
    assert row(account, "ad").used_5h == 10
    with pytest.raises(RuntimeError):
        with meter.metered(account.id, "ad") as charge:
            charge.keep()  # the call changed something before failing: its cost is kept
            raise RuntimeError("after the change")
    assert (row(account, "ad").used_5h, row(account, "ad").used_week) == (20, 20)


def test_metered_refuses_before_the_block_runs():
    clock.freeze(T0)
    account = make_account()
    spend_times(account, 50, "support")
    ran = []
    with pytest.raises(Refused) as caught:
        with meter.metered(account.id, "support"):
            ran.append(True)
    assert caught.value.reason == "usage_limit_reached" and ran == []
    assert row(account, "support").used_5h == 50


# --- The refusal (spec 8.5) ----------------------------------------------------------------

def test_the_refusal_names_the_feature_limits_tier_and_ways_up():
    clock.freeze(T0)
    account = make_account("free", referrals=1)
    spend_times(account, 10, "ad")  # 100 of 100: ad is exhausted too
    spend_times(account, 20)  # find: 100 of 100
    refusal = refused(account)
    assert refusal.reason == "usage_limit_reached"
    assert "Product find engine" in refusal.explanation and "sharing your link or upgrading" in refusal.explanation
    fields = refusal.fields
    assert {k: fields[k] for k in ("feature", "bucket", "used", "limit", "resets_at", "tier")} == {
        "feature": "Product find engine", "bucket": "find", "used": 100, "limit": 100, "resets_at": B + FIVE_HOURS,
        "tier": "free"}
    assert fields["unaffected"] == ["AI website editor", "AI Growth ad editor", "Support agent"]
    referral, upgrade = fields["ways_up"]
    assert {k: referral[k] for k in ("how", "your_referrals", "your_multiplier", "cap")} == {
        "how": "referral", "your_referrals": 1, "your_multiplier": 2.0, "cap": 4.0}
    assert referral["detail"] and upgrade["how"] == "upgrade" and "Pro" in upgrade["detail"]
    assert set(upgrade) == {"how", "detail"}


def test_max20_has_no_upgrade_way_up():
    clock.freeze(T0)
    account = make_account("max20", referrals=6)
    MeterUsage.create(account=account.id, bucket="find", window_5h=T0 // FIVE_HOURS, used_5h=0,
                      window_week=T0 // WEEK, used_week=400_000)
    refusal = refused(account)
    assert (refusal.reason, refusal.fields["used"], refusal.fields["limit"], refusal.fields["tier"]) == (
        "weekly_limit_reached", 400_000, 400_000, "max20")
    assert refusal.fields["resets_at"] == (T0 // WEEK + 1) * WEEK
    assert [w["how"] for w in refusal.fields["ways_up"]] == ["referral"]
    assert "upgrad" not in refusal.explanation and "sharing" not in refusal.explanation  # nothing left to raise
    assert (refusal.fields["ways_up"][0]["your_referrals"], refusal.fields["ways_up"][0]["your_multiplier"]) == (6, 4.0)


# Through HTTP: no metered route exists yet, so a test-only one spends a find.
meter_probe = Blueprint("meter_probe", __name__)


@meter_probe.get("/api/_probe/meter/find")
@meter_probe.declare(changes_state=True, refuses={429: list(meter.METER_REFUSALS)})
@meter_probe.response(200)
def probe_find():
    """Spends one find for the session's account (test route)."""
    charge = meter.spend(current_session().account_id, "find")
    return {"status": "ok", "metered": charge is not None}


@pytest.fixture(scope="module")
def probe_app(app):
    probed = create_app(SETTINGS)
    probed.register_blueprint(meter_probe)
    return probed


def test_exceeding_a_limit_over_http_is_429_with_the_whole_body(probe_app):
    clock.freeze(T0)
    c = probe_app.test_client()
    bind(c, make_account())
    for _ in range(10):
        response = c.get("/api/_probe/meter/find")
        assert response.status_code == 200 and response.get_json() == {"status": "ok", "metered": True}
    response = c.get("/api/_probe/meter/find")
    assert response.status_code == 429
    assert response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert "Retry-After" not in response.headers
    assert not any(h.lower().startswith("x-ratelimit") for h in response.headers.keys())
    body = response.get_json()
    assert set(body) == {"status", "reason", "explanation", "feature", "bucket", "used", "limit", "resets_at", "tier",
                         "unaffected", "ways_up"}
    assert {k: body[k] for k in ("status", "reason", "feature", "bucket", "used", "limit", "resets_at", "tier")} == {
        "status": "refused", "reason": "usage_limit_reached", "feature": "Product find engine", "bucket": "find",
        "used": 50, "limit": 50, "resets_at": B + FIVE_HOURS, "tier": "free"}
    assert isinstance(body["explanation"], str) and body["explanation"]
    assert body["unaffected"] == ["AI website editor", "AI Growth ad editor", "Ad generation", "Support agent"]
    assert body["ways_up"][0] == {"how": "referral", "detail": body["ways_up"][0]["detail"], "your_referrals": 0,
                                  "your_multiplier": 1.0, "cap": 4.0}
    assert body["ways_up"][1]["how"] == "upgrade" and body["ways_up"][1]["detail"]
    assert len(body["ways_up"]) == 2
    usage = feature(c.get("/api/usage").get_json(), "find")
    assert (usage["used_5h"], usage["allowed"], usage["exhausted_window"], usage["resets_at_5h"]) == (
        50, False, "5h", body["resets_at"])
    clock.freeze(B + FIVE_HOURS)
    assert c.get("/api/_probe/meter/find").status_code == 200


def test_an_anonymous_session_is_never_refused_over_http(probe_app):
    clock.freeze(T0)
    c = probe_app.test_client()
    for _ in range(15):
        response = c.get("/api/_probe/meter/find")
        assert response.status_code == 200 and response.get_json()["metered"] is False
    assert MeterUsage.select().count() == 0


def test_two_sessions_of_one_account_share_its_meter(probe_app):
    clock.freeze(T0)
    account = make_account()
    first, second = probe_app.test_client(), probe_app.test_client()
    bind(first, account)
    bind(second, account)
    for _ in range(5):
        assert first.get("/api/_probe/meter/find").status_code == 200
        assert second.get("/api/_probe/meter/find").status_code == 200
    assert first.get("/api/_probe/meter/find").status_code == 429
    assert second.get("/api/_probe/meter/find").status_code == 429
