"""The sandbox ad platform (AD_PLATFORM=sandbox, the default): a platform built into the
service that runs what it is asked to and reports delivery the way Meta's Insights and
Google's metrics do, offline and deterministically.

What it delivers on a UTC day is drawn from the campaign (its name and objective), its
creative's pass bars, its daily budget and the day, with a generator seeded by those (SHA-256),
so the same campaign delivers the same figures on every run and a test can name them:

- the campaign has a quality drawn once from its name and objective, between 0.6 and 1.4: a campaign
  above 1 beats its bars (a click-through rate above the floor, clicks cheaper than the
  ceiling), one below 1 misses them, as real campaigns do;
- each day it spends 85 % to 100 % of its daily budget, times the share of the day it ran
  (a campaign paused at noon spends about half); its click-through rate is the bar's floor
  times its quality, and its cost per click the bar's ceiling divided by its quality, each
  within 10 % either way that day; clicks are the spend over the cost per click, and
  impressions the clicks over the click-through rate.

Like the real platforms it reviews an ad before it runs, with one published-policy rule of
theirs: it refuses an ad that promises miracles, cures or riches (POLICY), in its own words,
as PlatformRefused.

It reports only days that have ended (as the payment re-check asks about checkouts, the
service's clock asks about days). Its record (models/ad_delivery.py AdSandboxCampaign) is
what it was asked to run and when it ran.
"""
from __future__ import annotations

import hashlib
import random
import re
import secrets
from datetime import date, datetime, time, timedelta

from integrations.ads import (
    PAUSED,
    RUNNING,
    CampaignLaunch,
    DayDelivery,
    DeliveryReport,
    LaunchedCampaign,
    PlatformRefused,
)
from models.ad_delivery import AdSandboxCampaign
from models.clock import utcnow

# The sandbox's ad review: promises Meta's and Google's advertising policies refuse.
POLICY = re.compile(r"\b(miracle\w*|guaranteed results|cures?|get rich|lose \d+\s*(?:lb|lbs|kg|pounds))\b",
                    re.IGNORECASE)
QUALITY = (0.6, 1.4)
SPEND_SHARE = (0.85, 1.0)
DAILY_SWING = 0.10


def _generator(*parts) -> random.Random:
    seed = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(seed[:8], "big"))


def seed_of(campaign: CampaignLaunch) -> str:
    """What the campaign's figures are drawn from: what it is (its name and objective), not the
    ids it was given, nor its ad's words, which a rewrite of the ad changes."""
    return hashlib.sha256("\x1f".join([campaign.name, campaign.objective]).encode()).hexdigest()


def quality(seed: str) -> float:
    """How well the campaign's creative does against its bars: above 1 beats them."""
    return _generator("quality", seed).uniform(*QUALITY)


def day_figures(launch: dict, day: date, share: float) -> tuple[int, int, int]:
    """(impressions, clicks, spend_minor) of a campaign on `day`, running `share` of it."""
    if share <= 0:
        return 0, 0, 0
    draw, q = _generator(launch["seed"], day.isoformat()), quality(launch["seed"])
    spend = round(launch["daily_budget_minor"] * draw.uniform(*SPEND_SHARE) * share)
    ctr_pct = launch["ctr_min_pct"] * q * draw.uniform(1 - DAILY_SWING, 1 + DAILY_SWING)
    cpc_minor = launch["cpc_max_minor"] / q * draw.uniform(1 - DAILY_SWING, 1 + DAILY_SWING)
    clicks = int(spend / cpc_minor) if cpc_minor > 0 else 0
    impressions = round(clicks / (ctr_pct / 100)) if ctr_pct > 0 else 0
    return impressions, clicks, spend


def _share(running: list, day: date, now: datetime) -> float:
    """The share of `day` (UTC) the campaign ran, up to `now`."""
    start = datetime.combine(day, time())
    end = min(start + timedelta(days=1), now)
    seconds = 0.0
    for began, stopped in running:
        began = datetime.fromisoformat(began)
        stopped = datetime.fromisoformat(stopped) if stopped else now
        overlap = (min(stopped, end) - max(began, start)).total_seconds()
        seconds += max(overlap, 0.0)
    return seconds / 86400


class SandboxPlatform:
    name = "sandbox"

    def launch(self, campaign: CampaignLaunch) -> LaunchedCampaign:
        if campaign.daily_budget_minor <= 0:
            raise PlatformRefused(reason="ad_platform_refused", detail="A campaign needs a daily budget above zero.")
        creative = campaign.creative
        promise = POLICY.search(" ".join([creative.headline, creative.primary_text, creative.description]))
        if promise:
            raise PlatformRefused(reason="ad_platform_refused",
                                  detail=f"The ad promises \u201c{promise.group(0)}\u201d, which the advertising "
                                         "policy does not allow.")
        found = AdSandboxCampaign.get_or_none(AdSandboxCampaign.reference == campaign.reference)
        if found is not None:  # a launch asked again (a lost answer): the first one's campaign
            return LaunchedCampaign(found.id, RUNNING if self._running(found) else PAUSED)
        launch = {"name": campaign.name, "objective": campaign.objective, "currency": campaign.currency,
                  "daily_budget_minor": campaign.daily_budget_minor, "ctr_min_pct": campaign.bars.ctr_min_pct,
                  "cpc_max_minor": campaign.bars.cpc_max_minor, "landing_url": campaign.landing_url,
                  "seed": seed_of(campaign)}
        row = AdSandboxCampaign.create(id=secrets.token_hex(16), reference=campaign.reference, launch=launch,
                                       running=[[utcnow().isoformat(), None]], created_at=utcnow())
        return LaunchedCampaign(row.id, RUNNING)

    def pause(self, platform_ref: str) -> LaunchedCampaign:
        row = self._row(platform_ref)
        if self._running(row):
            running = [list(span) for span in row.running]
            running[-1][1] = utcnow().isoformat()
            AdSandboxCampaign.update(running=running).where(AdSandboxCampaign.id == row.id).execute()
        return LaunchedCampaign(row.id, PAUSED)

    def resume(self, platform_ref: str, *, daily_budget_minor: int) -> LaunchedCampaign:
        row = self._row(platform_ref)
        if not self._running(row):
            launch = {**row.launch, "daily_budget_minor": daily_budget_minor}
            running = [*row.running, [utcnow().isoformat(), None]]
            AdSandboxCampaign.update(running=running, launch=launch).where(AdSandboxCampaign.id == row.id).execute()
        return LaunchedCampaign(row.id, RUNNING)

    def delivery(self, platform_ref: str, *, since: date, until: date) -> DeliveryReport:
        row, now = self._row(platform_ref), utcnow()
        days, day = [], since
        while day <= until and datetime.combine(day + timedelta(days=1), time()) <= now:  # ended days only
            impressions, clicks, spend = day_figures(row.launch, day, _share(row.running, day, now))
            if spend:
                days.append(DayDelivery(day, impressions, clicks, spend, row.launch["currency"]))
            day += timedelta(days=1)
        return DeliveryReport(row.id, tuple(days))

    @staticmethod
    def _row(platform_ref: str) -> AdSandboxCampaign:
        row = AdSandboxCampaign.get_or_none(AdSandboxCampaign.id == platform_ref)
        if row is None:
            raise PlatformRefused(reason="ad_platform_refused", detail="The sandbox platform has no campaign with that id.")
        return row

    @staticmethod
    def _running(row: AdSandboxCampaign) -> bool:
        return bool(row.running) and row.running[-1][1] is None
