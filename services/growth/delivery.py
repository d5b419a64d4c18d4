"""Ads that run (issue 49): the campaign book's active campaigns launched on the ad platform
(integrations/ads), their delivery pulled day by day and paid from the ad balance, and the
campaigns paused when the balance cannot pay for another day or when they miss their bars.

The clock's hourly `deliver_ads` job (jobs/growth.py) does it all; the client never reports
delivery:

1. Launch and pause. A campaign the founder set active (services/growth/book.py refuses that
   unless the ad balance holds one day of its budget and its ad is written) is launched with
   its ad's words, its bars and a landing address carrying `utm_campaign` (its key); one they
   paused, drafted or removed is paused on the platform; one they set active again after a
   pause is resumed.
2. Delivery. For each launched campaign, the platform is asked what it delivered on each day
   that has ended since the last one recorded. Each day is one AdDeliveryDay row (unique per
   campaign and day) and, in the same transaction, one spend debit in the ad ledger keyed by
   that day's report (`ad_ledger.delivery` is unique): a report delivered twice, or by five
   workers at once, debits once.
3. The balance. When a founder's balance cannot pay for another day of their running
   campaigns (their daily budgets together), every one of them pauses, and the founder is
   told: a task, and a mail to their verified address.
4. The bars. Once a campaign has MIN_IMPRESSIONS impressions, a click-through rate under its
   bar's floor or a cost per click over its ceiling flags it; when the founder chose "pause
   when it misses its bars" (`pause_when_failing`) it is paused too, and they are told.

What the service pauses it marks paused in the book as well (`paused_because`: balance or
bars), so a campaign starts again only when its founder starts it.
"""
from __future__ import annotations

import logging
import secrets
from datetime import date, timedelta

import peewee as pw

from config import get_settings
from integrations import ads as platforms
from integrations.copy_text import short_name
from integrations.payments import minor_units
from models.account import Account
from models.ad import Ad
from models.ad_balance import AdLedgerEntry
from models.ad_delivery import AdCampaignRun, AdDeliveryDay
from models.business import Todo
from models.campaign_book import CampaignBook
from models.catalog import Product
from models.clock import utcnow
from models.db import transaction
from models.payment import CustomerOrder
from models.store import Store
from services.errors import TransientError
from services.growth.ad_limits import pass_criteria
from services.ownership import Owner, owner_from_key
from services.store.own import name_of

log = logging.getLogger("services.growth.delivery")

MIN_IMPRESSIONS = 1000
BALANCE_CURRENCY = "USD"  # services/growth/balance.py CURRENCY: what campaigns are paid in  # a campaign is judged against its bars from this many impressions on
ACTIVE = "active"
# An active campaign as the book's JSON text holds it (models/db.JSONField: compact, sorted keys).
ACTIVE_IN_JSON = '%"status":"active"%'
PAUSED = "paused"


def new_key() -> str:
    """The key a campaign gets when it first goes active: what its run, its delivery and its
    ledger entries name it by, and its `utm_campaign`."""
    return secrets.token_hex(8)


# --- What the book asks of a campaign before it may start -----------------------------------

def balance_minor(owner: Owner) -> int:
    total = AdLedgerEntry.select(pw.fn.COALESCE(pw.fn.SUM(AdLedgerEntry.amount_minor), 0)).where(
        owner.owns(AdLedgerEntry)).scalar()
    return int(total or 0)


def owner_ad(owner_key: str) -> Ad | None:
    """The founder's ad (of the store they built most recently), or None."""
    return (Ad.select().join(Store, on=(Store.product == Ad.product))
            .where(Ad.owner == owner_key, Store.owner == owner_key).order_by(Ad.updated_at.desc()).first())


def published_store(owner_key: str) -> bool:
    """Whether the founder's ad has a published store to send people to."""
    ad = owner_ad(owner_key)
    store = Store.get_or_none(Store.product == ad.product_id) if ad is not None else None
    return store is not None and bool(store.published_version)


# --- What the book answers of each campaign --------------------------------------------------

def with_delivery(campaigns: list[dict]) -> list[dict]:
    """The book's campaigns, each with `delivery`: whether it runs on the platform, why the
    service paused it, each reported day and the totals against its bars."""
    keys = [c["key"] for c in campaigns if c.get("key")]
    runs = {run.key: run for run in AdCampaignRun.select().where(AdCampaignRun.key.in_(keys))} if keys else {}
    days: dict[int, list] = {}
    brought = _paid_orders(list(runs)) if runs else {}
    if runs:
        for row in (AdDeliveryDay.select().where(AdDeliveryDay.run.in_([r.id for r in runs.values()]))
                    .order_by(AdDeliveryDay.day)):
            days.setdefault(row.run_id, []).append(row)
    return [{**c, "delivery": _delivery(c, runs.get(c.get("key")), days, brought)} for c in campaigns]


def _paid_orders(keys: list[str]) -> dict[str, dict]:
    """The paid orders each campaign brought: {key: {currency: (count, amount_minor)}}."""
    rows = (CustomerOrder.select(CustomerOrder.campaign, CustomerOrder.currency,
                                 pw.fn.COUNT(CustomerOrder.id).alias("count"),
                                 pw.fn.SUM(CustomerOrder.amount_minor).alias("amount"))
            .where(CustomerOrder.campaign.in_(keys), CustomerOrder.state == CustomerOrder.PAID)
            .group_by(CustomerOrder.campaign, CustomerOrder.currency).dicts())
    brought: dict[str, dict] = {}
    for row in rows:
        brought.setdefault(row["campaign"], {})[row["currency"]] = (int(row["count"]), int(row["amount"]))
    return brought


def _orders(run: AdCampaignRun, spend: int, brought: dict) -> dict:
    """What a campaign's spend bought: its paid orders, their revenue, the cost of each order
    and the return on ad spend (revenue over spend; only in the spend's currency)."""
    mine = brought.get(run.key, {})
    count = sum(n for n, _amount in mine.values())
    revenue = mine.get(run.currency, (0, 0))[1]
    return {"paid": count, "revenue_minor": revenue, "currency": run.currency,
            "cost_per_order_minor": round(spend / count) if count else None,
            "return_on_ad_spend": round(revenue / spend, 2) if spend and set(mine) <= {run.currency} else None}


def _delivery(campaign: dict, run: AdCampaignRun | None, days: dict, brought: dict) -> dict | None:
    if run is None:
        return ({"state": "starting", "paused_because": None, "days": [], "totals": None, "flagged": False,
                 "bars": None, "min_impressions": MIN_IMPRESSIONS, "orders": None}
                if campaign.get("status") == ACTIVE else None)
    rows = days.get(run.id, [])
    shown = [{"day": row.day.isoformat(), "impressions": row.impressions, "clicks": row.clicks,
              "spend_minor": row.spend_minor, "currency": row.currency,
              "ctr_pct": round(row.clicks / row.impressions * 100, 2) if row.impressions else None,
              "cpc_minor": round(row.spend_minor / row.clicks) if row.clicks else None} for row in rows]
    impressions, clicks = sum(r.impressions for r in rows), sum(r.clicks for r in rows)
    spend = sum(r.spend_minor for r in rows)
    totals_ = {"impressions": impressions, "clicks": clicks, "spend_minor": spend, "currency": run.currency,
               "ctr_pct": round(clicks / impressions * 100, 2) if impressions else None,
               "cpc_minor": round(spend / clicks) if clicks else None}
    starting = run.platform_ref is None and run.state == AdCampaignRun.RUNNING  # launched, not answered yet
    return {"state": "starting" if starting else run.state, "paused_because": run.paused_because,
            "days": shown, "totals": totals_, "flagged": run.flagged,
            "bars": {"ctr_min_pct": run.ctr_min_pct, "cpc_max_minor": run.cpc_max_minor, "currency": run.currency},
            "min_impressions": MIN_IMPRESSIONS, "orders": _orders(run, spend, brought)}


# --- The clock's job -------------------------------------------------------------------------

def deliver() -> dict:
    """One pass of the hourly job: launch and pause, pull delivery, pay it, judge it."""
    platform = platforms.platform_for(get_settings())
    counts = {"launched": 0, "paused": 0, "days": 0, "stopped": 0}
    # Each list read whole first: no statement stays open across the writes (and the platform's calls).
    for book in list(_books_with_campaigns()):
        counts = _add(counts, _sync(book, platform))
    for run in list(_runs_to_report()):
        counts["days"] += _report(run, platform)
    for owner_key in _owners_running():
        counts["stopped"] += _afford(owner_key, platform)
    return counts


def _add(a: dict, b: dict) -> dict:
    return {key: a.get(key, 0) + b.get(key, 0) for key in a}


def _books_with_campaigns():
    # A book whose campaigns are all drafts, and never ran, has nothing for the platform.
    running = AdCampaignRun.select(AdCampaignRun.session, AdCampaignRun.account).where(
        AdCampaignRun.state == AdCampaignRun.RUNNING)
    return (CampaignBook.select()
            .where(pw.Expression(CampaignBook.campaigns, pw.OP.ILIKE, pw.Value(ACTIVE_IN_JSON, converter=False)) |
                   CampaignBook.session.in_(
                running.select(AdCampaignRun.session)) | CampaignBook.account.in_(running.select(AdCampaignRun.account)))
            .order_by(CampaignBook.owner))


def _sync(book: CampaignBook, platform) -> dict:
    """Launches, pauses and resumes the book's campaigns on the platform as the founder set them."""
    counts = {"launched": 0, "paused": 0}
    wanted = {c["key"]: c for c in book.campaigns if c.get("key")}
    runs = {run.key: run for run in AdCampaignRun.select().where(AdCampaignRun.key.in_(list(wanted) or [""]))}
    for key, campaign in wanted.items():
        run = runs.get(key)
        try:
            if campaign.get("status") == ACTIVE and run is not None and run.platform_ref is None \
                    and run.state == AdCampaignRun.PAUSED:
                # Started again after the platform refused its launch: launched afresh.
                AdCampaignRun.delete().where(AdCampaignRun.id == run.id).execute()
                run = None
            if campaign.get("status") == ACTIVE and run is None:
                counts["launched"] += _launch(book, campaign, platform)
            elif campaign.get("status") == ACTIVE and run.state == AdCampaignRun.PAUSED:
                _resume(run, campaign, platform)
            elif campaign.get("status") != ACTIVE and run is not None and run.state == AdCampaignRun.RUNNING:
                counts["paused"] += _pause(run, platform, because=None)
        except platforms.PlatformUnavailable:
            log.warning("ad platform unavailable", extra={"fields": {"campaign": key}})
        except platforms.PlatformRefused as refused:
            # One campaign the platform will not take stops, and says so; the others go on.
            _refused(key, campaign, refused)
    # A campaign removed from the book stops too.
    gone = AdCampaignRun.select().where(AdCampaignRun.state == AdCampaignRun.RUNNING,
                                        Owner(book.session_id or 0, book.account_id).owns(AdCampaignRun),
                                        AdCampaignRun.key.not_in(list(wanted) or [""]))
    for run in gone:
        counts["paused"] += _pause(run, platform, because=None)
    return counts


def _launch(book: CampaignBook, campaign: dict, platform) -> int:
    ad = owner_ad(book.owner)
    store = Store.get_or_none(Store.product == ad.product_id) if ad is not None else None
    if ad is None or store is None or not store.published_version:
        return 0  # nothing to show, or nowhere to send people: it starts once both exist
    product = Product.get_or_none(Product.product_id == ad.product_id)
    side = campaign.get("platform") or "meta"
    bars = pass_criteria(side, product.category if product else None)
    currency = BALANCE_CURRENCY  # campaigns are paid from the ad balance
    copy = {**ad.written.get(side, {}), **(ad.overrides or {}).get(side, {})}
    launch = platforms.CampaignLaunch(
        reference=campaign["key"], name=campaign["name"], objective=campaign.get("objective", "sales"),
        daily_budget_minor=campaign["daily_budget_minor"], currency=currency,
        landing_url=f"{get_settings().base_url.rstrip('/')}/store/{store.slug}/?utm_source={side}&utm_medium=paid"
                    f"&utm_campaign={campaign['key']}",
        creative=platforms.Creative(copy.get("headline", ""), copy.get("primary_text", ""),
                                    copy.get("description", ""), copy.get("call_to_action", "")),
        bars=platforms.Bars(bars["ctr_min_pct"], minor_units(bars["cpc_max"], bars["currency"])),
        start_day=utcnow().date(), keywords=keywords_of(name_of(ad.product_id) or copy.get("headline", "")))
    inserted = (AdCampaignRun.insert(
        key=campaign["key"], session=book.session_id, account=book.account_id, product=ad.product_id,
        platform=platform.name, book_platform=side, state=AdCampaignRun.RUNNING,
        daily_budget_minor=launch.daily_budget_minor, currency=currency, ctr_min_pct=launch.bars.ctr_min_pct,
        cpc_max_minor=launch.bars.cpc_max_minor, launched_at=utcnow(), updated_at=utcnow())
        .on_conflict_ignore().as_rowcount().execute())
    if not inserted:
        return 0  # another pass launched it
    try:
        launched = platform.launch(launch)
    except platforms.PlatformRefused as refused:
        _refused(campaign["key"], campaign, refused)
        return 0
    except platforms.PlatformUnavailable:
        AdCampaignRun.delete().where(AdCampaignRun.key == campaign["key"]).execute()  # the next pass tries again
        raise
    AdCampaignRun.update(platform_ref=launched.platform_ref).where(AdCampaignRun.key == campaign["key"]).execute()
    return 1


def keywords_of(name: str) -> tuple[str, ...]:
    """What people search for that the product answers: its name, the part before a comma or a
    qualifier, and its last two words (its head noun and what kind), lower case, once each."""
    core = " ".join(name.split(",")[0].split())
    candidates = (core, short_name(core, 30), " ".join(core.split()[-2:]))
    return tuple(dict.fromkeys(k.lower() for k in candidates if k))


def _refused(key: str, campaign: dict, refused: platforms.PlatformRefused) -> None:
    """The platform will not run the campaign: paused, in the book too, and its founder told in
    the platform's words."""
    AdCampaignRun.update(state=AdCampaignRun.PAUSED, paused_because=AdCampaignRun.REFUSED, paused_at=utcnow(),
                         updated_at=utcnow()).where(AdCampaignRun.key == key).execute()
    log.warning("ad platform refused a campaign", extra={"fields": {"campaign": key, "reason": refused.reason}})
    run = AdCampaignRun.get_or_none(AdCampaignRun.key == key)
    if run is not None:
        _mark_paused(run, AdCampaignRun.REFUSED)
        _tell(run, AdCampaignRun.REFUSED, [campaign.get("name") or "Your campaign"], detail=refused.detail)


def _resume(run: AdCampaignRun, campaign: dict, platform) -> None:
    platform.resume(run.platform_ref, daily_budget_minor=campaign["daily_budget_minor"])
    AdCampaignRun.update(state=AdCampaignRun.RUNNING, paused_because=None, paused_at=None,
                         daily_budget_minor=campaign["daily_budget_minor"], updated_at=utcnow()).where(
        AdCampaignRun.id == run.id).execute()


def _pause(run: AdCampaignRun, platform, *, because: str | None) -> int:
    if run.platform_ref is not None:
        platform.pause(run.platform_ref)
    return AdCampaignRun.update(state=AdCampaignRun.PAUSED, paused_because=because, paused_at=utcnow(),
                                updated_at=utcnow()).where(
        AdCampaignRun.id == run.id, AdCampaignRun.state == AdCampaignRun.RUNNING).execute()


# --- Delivery, paid once --------------------------------------------------------------------

# A paused campaign still has the day it paused on to report (once that day has ended).
PAUSED_STILL_REPORTS = timedelta(days=3)


def _runs_to_report():
    """The launched campaigns with an ended day not yet recorded: the running ones, and those
    paused in the last few days (a campaign paused long ago has nothing more to report)."""
    now = utcnow()
    yesterday = now.date() - timedelta(days=1)
    recent = (AdCampaignRun.state == AdCampaignRun.RUNNING) | (AdCampaignRun.paused_at > now - PAUSED_STILL_REPORTS)
    return AdCampaignRun.select().where(AdCampaignRun.platform_ref.is_null(False), recent,
                                        AdCampaignRun.reported_through.is_null() |
                                        (AdCampaignRun.reported_through < yesterday))


def _report(run: AdCampaignRun, platform) -> int:
    """Records and pays each ended day the platform reports; answers the days newly recorded."""
    yesterday = utcnow().date() - timedelta(days=1)
    since = run.reported_through + timedelta(days=1) if run.reported_through else run.launched_at.date()
    last = min(yesterday, run.paused_at.date()) if run.state == AdCampaignRun.PAUSED and run.paused_at else yesterday
    if since > last:
        return 0
    try:
        report = platform.delivery(run.platform_ref, since=since, until=last)
    except platforms.PlatformUnavailable:
        return 0
    recorded = sum(_record(run, day) for day in report.days)
    AdCampaignRun.update(reported_through=last).where(
        AdCampaignRun.id == run.id,
        AdCampaignRun.reported_through.is_null() | (AdCampaignRun.reported_through < last)).execute()
    _judge(AdCampaignRun.get_by_id(run.id), platform)
    return recorded


def delivery_key(run: AdCampaignRun, day: date) -> str:
    return f"{run.platform}:{run.platform_ref}:{day.isoformat()}"


def _record(run: AdCampaignRun, day: platforms.DayDelivery) -> int:
    """One day: its delivery row and its debit, both or neither; 0 when already recorded."""
    key = delivery_key(run, day.day)
    with transaction():
        inserted = (AdDeliveryDay.insert(run=run.id, day=day.day, impressions=day.impressions, clicks=day.clicks,
                                         spend_minor=day.spend_minor, currency=day.currency, key=key,
                                         created_at=utcnow())
                    .on_conflict_ignore().as_rowcount().execute())
        if inserted and day.spend_minor:
            AdLedgerEntry.insert(session=run.session_id, account=run.account_id, kind=AdLedgerEntry.SPEND,
                                 amount_minor=-day.spend_minor, currency=day.currency, delivery=key, campaign=run.key,
                                 created_at=utcnow()).on_conflict_ignore().execute()
    return 1 if inserted else 0


# --- The bars and the balance ---------------------------------------------------------------

def totals(run: AdCampaignRun) -> dict:
    row = (AdDeliveryDay.select(pw.fn.COALESCE(pw.fn.SUM(AdDeliveryDay.impressions), 0).alias("impressions"),
                                pw.fn.COALESCE(pw.fn.SUM(AdDeliveryDay.clicks), 0).alias("clicks"),
                                pw.fn.COALESCE(pw.fn.SUM(AdDeliveryDay.spend_minor), 0).alias("spend"))
           .where(AdDeliveryDay.run == run.id).dicts().get())
    impressions, clicks, spend = int(row["impressions"]), int(row["clicks"]), int(row["spend"])
    return {"impressions": impressions, "clicks": clicks, "spend_minor": spend,
            "ctr_pct": round(clicks / impressions * 100, 2) if impressions else None,
            "cpc_minor": round(spend / clicks) if clicks else None}


def misses_bars(run: AdCampaignRun, seen: dict) -> bool:
    """Whether a campaign with enough impressions misses its click-through floor or cost ceiling."""
    if seen["impressions"] < MIN_IMPRESSIONS:
        return False
    return seen["ctr_pct"] < run.ctr_min_pct or (seen["cpc_minor"] is not None and
                                                   seen["cpc_minor"] > run.cpc_max_minor)


def _judge(run: AdCampaignRun, platform) -> None:
    seen = totals(run)
    failing = misses_bars(run, seen)
    if failing != run.flagged:
        AdCampaignRun.update(flagged=failing).where(AdCampaignRun.id == run.id).execute()
    if not failing or run.state != AdCampaignRun.RUNNING:
        return
    campaign = _campaign(run)
    if campaign is not None and campaign.get("pause_when_failing"):
        if _pause(run, platform, because=AdCampaignRun.BARS):
            _mark_paused(run, AdCampaignRun.BARS)
            _tell(run, AdCampaignRun.BARS, [campaign.get("name") or "Your campaign"])


def _owners_running() -> list[str]:
    rows = (AdCampaignRun.select(AdCampaignRun.session, AdCampaignRun.account)
            .where(AdCampaignRun.state == AdCampaignRun.RUNNING).distinct())
    return sorted({Owner(row.session_id or 0, row.account_id).key for row in rows})


def _afford(owner_key: str, platform) -> int:
    """Pauses every running campaign of a founder whose balance cannot pay another day of them."""
    owner = owner_from_key(owner_key)
    running = list(AdCampaignRun.select().where(owner.owns(AdCampaignRun), AdCampaignRun.state == AdCampaignRun.RUNNING))
    if not running or balance_minor(owner) >= sum(run.daily_budget_minor for run in running):
        return 0
    stopped = [run for run in running if _pause(run, platform, because=AdCampaignRun.BALANCE)]
    for run in stopped:
        _mark_paused(run, AdCampaignRun.BALANCE)
    if stopped:
        names = [(_campaign(run) or {}).get("name") or "Your campaign" for run in stopped]
        _tell(stopped[0], AdCampaignRun.BALANCE, names)
    return len(stopped)


def _book_of(run: AdCampaignRun) -> CampaignBook | None:
    return CampaignBook.get_or_none(CampaignBook.owner == Owner(run.session_id or 0, run.account_id).key)


def _campaign(run: AdCampaignRun) -> dict | None:
    book = _book_of(run)
    return next((c for c in (book.campaigns if book else []) if c.get("key") == run.key), None)


def _mark_paused(run: AdCampaignRun, because: str) -> None:
    """The book says what the platform does: the campaign is paused, and why."""
    owner_key = Owner(run.session_id or 0, run.account_id).key
    with transaction():
        CampaignBook.update(version=CampaignBook.version + 1).where(CampaignBook.owner == owner_key).execute()
        book = CampaignBook.get_or_none(CampaignBook.owner == owner_key)
        if book is None:
            return
        campaigns = [{**c, "status": PAUSED, "paused_because": because} if c.get("key") == run.key else c
                     for c in book.campaigns]
        CampaignBook.update(campaigns=campaigns, updated_at=utcnow()).where(CampaignBook.owner == owner_key).execute()


TOLD = {
    AdCampaignRun.REFUSED: ("The ad platform refused {names}: {detail} Change it on Growth, then start it again."),
    AdCampaignRun.BALANCE: ("Your ads stopped: your ad balance cannot pay for another day of {names}. Top it up on "
                            "Growth, then start them again."),
    AdCampaignRun.BARS: ("{names} stopped: it missed the click-through rate or the cost per click it should reach, "
                         "as you asked. Look at its ad on Growth, then start it again."),
}


def _tell(run: AdCampaignRun, because: str, names: list[str], *, detail: str = "") -> None:
    """A task (once per campaign and day) and a mail to the founder's verified address."""
    from services import mailing  # late: the mail module reads templates at import

    owner_key = Owner(run.session_id or 0, run.account_id).key
    said = " ".join(detail.split())[:160].rstrip(".") + "." if detail else "it gave no reason."
    text = TOLD[because].format(names=_names(names), detail=said)
    added = (Todo.insert(owner=owner_key, session=run.session_id, account=run.account_id, text=text[:300],
                         source=Todo.ADS, fact_id=f"ads:{because}:{run.key}:{utcnow().date().isoformat()}",
                         created_at=utcnow()).on_conflict_ignore().as_rowcount().execute())
    account = Account.get_or_none(Account.id == run.account_id) if run.account_id else None
    address = account.email if account is not None and account.verified else None
    if added and address:
        try:
            mailing.send_mail(address, "ads_paused", because=because, sentence=text,
                              link=f"{get_settings().base_url.rstrip('/')}/#/app/growth")
        except TransientError:
            log.warning("ads paused mail not sent: the mailer is unavailable")


def _names(names: list[str]) -> str:
    quoted = [f"\u201c{name}\u201d" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]

