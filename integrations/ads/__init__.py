"""The ad platform seam (issue 49), modelled on the payment seam (integrations/payments/):
launch a campaign, pause and resume it, and ask what it delivered day by day.

The service never decides that an ad ran or that money was spent. It launches a campaign on
the platform, and later asks the platform what it delivered (impressions, clicks, spend per
day), from a clock job, never from the client (services/growth/delivery.py). Three platforms
sit behind this interface, chosen by AD_PLATFORM:

- `sandbox` (default): a platform built into the service (integrations/ads/sandbox.py) that
  delivers deterministically from the campaign, its creative's pass bars, the daily budget
  and the date, so the same code paths run offline and a test can name the figures;
- `meta`: Meta's Marketing API through its official SDK (`facebook-business`,
  integrations/ads/meta.py);
- `google`: the Google Ads API through its official SDK (`google-ads`,
  integrations/ads/google.py).

The SDKs are pinned in requirements-ads.txt, installed only where AD_PLATFORM names them;
their settings are required only when chosen, as Stripe's are.

Amounts cross the seam in minor units of the campaign's currency (the ad balance's). Days are
UTC dates. Failures: `PlatformUnavailable` means the platform could not answer now (timeout,
5xx, network, rate limit): nothing is known and the caller tries again later.
`PlatformRefused` means it refused for good (a rejected ad, a closed account, bad values):
its `reason` is a registered reason code and `detail` the platform's own words.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Protocol

# What a campaign asks the platform to optimise for (services/growth/book.py OBJECTIVES).
OBJECTIVES = ("sales", "traffic", "leads", "awareness", "engagement")

# A launched campaign's state on the platform.
RUNNING = "running"
PAUSED = "paused"
STATES = (RUNNING, PAUSED)


@dataclass(frozen=True)
class Creative:
    """The ad a campaign shows (services/growth/ads.py): its words and picture."""

    headline: str
    primary_text: str
    description: str
    call_to_action: str
    image_url: str | None = None


@dataclass(frozen=True)
class Bars:
    """What the creative should clear once it runs (services/growth/ad_limits.py): a
    click-through rate of at least ctr_min_pct percent, clicks costing at most cpc_max_minor."""

    ctr_min_pct: float
    cpc_max_minor: int


@dataclass(frozen=True)
class CampaignLaunch:
    reference: str             # our campaign's key; the platform keeps it and hands it back
    name: str                  # the founder's name for it
    objective: str             # one of OBJECTIVES
    daily_budget_minor: int    # > 0, in `currency`
    currency: str              # ISO 4217, upper case
    landing_url: str           # the store address with the campaign's utm_campaign
    creative: Creative
    bars: Bars
    start_day: date            # the first day it may deliver
    # What people search for that it should answer (a search campaign serves nothing without
    # keywords; a social platform ignores them): the product's names, lower case.
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class LaunchedCampaign:
    platform_ref: str  # the platform's id of the campaign
    state: str         # one of STATES


@dataclass(frozen=True)
class DayDelivery:
    """What a campaign delivered on one UTC day, as the platform reports it."""

    day: date
    impressions: int
    clicks: int
    spend_minor: int
    currency: str


@dataclass(frozen=True)
class DeliveryReport:
    platform_ref: str
    days: tuple[DayDelivery, ...]  # in day order; a day without delivery may be left out


class PlatformUnavailable(Exception):
    """The platform did not answer in time, answered with a server error or asked us to slow
    down; nothing is known. Try again later."""


class PlatformRefused(Exception):
    """The platform refused for good. `reason` is a registered reason code
    (`ad_platform_refused`, or a narrower one), `detail` the platform's own words."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


class AdPlatform(Protocol):
    name: str

    # Creates the campaign (with its ad set or ad group and its ad) and starts it. Asked again
    # with the same reference (a lost answer) it answers the campaign the first call made.
    def launch(self, campaign: CampaignLaunch) -> LaunchedCampaign: ...

    # Stops delivery from now on; pausing a paused campaign changes nothing.
    def pause(self, platform_ref: str) -> LaunchedCampaign: ...

    # Starts it again from now on (its budget may have changed).
    def resume(self, platform_ref: str, *, daily_budget_minor: int) -> LaunchedCampaign: ...

    # What it delivered on each day from `since` to `until`, both included.
    def delivery(self, platform_ref: str, *, since: date, until: date) -> DeliveryReport: ...


AD_PLATFORMS = ("sandbox", "meta", "google")


def platform_for(settings) -> AdPlatform:
    """The configured ad platform."""
    name = settings.ad_platform
    if name == "meta":
        from integrations.ads.meta import MetaPlatform

        return MetaPlatform(settings)
    if name == "google":
        from integrations.ads.google import GooglePlatform

        return GooglePlatform(settings)
    from integrations.ads.sandbox import SandboxPlatform

    return SandboxPlatform()
