"""Meta's Marketing API behind the ad seam, through Meta's official SDK (`facebook-business`).

A launch is four objects in the ad account: a Campaign (our objective mapped onto Meta's
outcome objectives), an AdSet (the daily budget, who sees it), an AdCreative (the creative's
words on a link post of the Page) and an Ad joining the two, all ACTIVE. The campaign's name
carries our reference ("<name> [<reference>]"): a launch first looks for a campaign with it,
so a launch asked again after a lost answer answers the campaign the first one made, and
finishes it when the first stopped part way (a campaign without its ad set or ad).

Each platform holds its own `FacebookAdsApi` on its own session (its token, its timeout), and
never the SDK's process-wide default api: two platforms in one process never share a token,
and the SDK's crash reporter (switched on by `FacebookAdsApi.init`) never sends anything.
The SDK retries nothing: a timeout, a server error or a rate limit raises PlatformUnavailable
at once and the clock's next pass asks again.

Meta keeps budgets and spend in the ad account's currency: daily_budget in its minor units
(cents for USD), spend in major units as a decimal string. A launch checks the account bills
in the campaign's currency, since a budget in another currency would be spent at the wrong
scale.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import contextmanager
from datetime import UTC, date, datetime

import requests
from facebook_business.adobjects.adaccount import AdAccount
from facebook_business.adobjects.adset import AdSet
from facebook_business.adobjects.campaign import Campaign
from facebook_business.api import FacebookAdsApi
from facebook_business.exceptions import FacebookError, FacebookRequestError
from facebook_business.session import FacebookSession

from integrations.ads import (
    PAUSED,
    RUNNING,
    CampaignLaunch,
    DayDelivery,
    DeliveryReport,
    LaunchedCampaign,
    PlatformRefused,
    PlatformUnavailable,
)
from integrations.payments import minor_units

REFUSED = "ad_platform_refused"

# Our objectives as Meta's outcome objectives (ODAX).
OBJECTIVES = {"sales": "OUTCOME_SALES", "traffic": "OUTCOME_TRAFFIC", "leads": "OUTCOME_LEADS",
              "awareness": "OUTCOME_AWARENESS", "engagement": "OUTCOME_ENGAGEMENT"}

# What each ad set optimises for. Sales and leads would optimise for conversions with a Meta
# pixel on the store, which the service does not have: they optimise for clicks to the store.
OPTIMIZATION_GOALS = {"OUTCOME_SALES": "LINK_CLICKS", "OUTCOME_TRAFFIC": "LINK_CLICKS",
                      "OUTCOME_LEADS": "LINK_CLICKS", "OUTCOME_AWARENESS": "REACH",
                      "OUTCOME_ENGAGEMENT": "POST_ENGAGEMENT"}

# Meta's answer when it asks us to slow down: application (4), user (17), page (32), API
# action (613), and the ads insights (80000) and ads management (80004) business use cases.
_RATE_LIMIT_CODES = frozenset({4, 17, 32, 613, 80000, 80004})
# An unknown error (1) and a temporary outage (2): Meta's own words are "wait and retry".
_TRANSIENT_CODES = frozenset({1, 2})

_STATES = {"ACTIVE": RUNNING, "PAUSED": PAUSED}
# Meta's user access tokens start with EAA; an error message never carries one on.
_TOKEN = re.compile(r"\bEAA[A-Za-z0-9]{8,}")


class MetaPlatform:
    name = "meta"

    def __init__(self, settings, *, transport: requests.adapters.BaseAdapter | None = None):
        """`transport`, when given, carries every call to the Graph API instead of the network
        (a requests transport adapter: what the tests answer recorded answers through)."""
        if not (settings.meta_access_token and settings.meta_ad_account_id and settings.meta_page_id):
            raise ValueError("MetaPlatform needs META_ACCESS_TOKEN, META_AD_ACCOUNT_ID and META_PAGE_ID")
        self._token = settings.meta_access_token
        self._account_id = settings.meta_ad_account_id
        self._page_id = settings.meta_page_id
        self._countries = list(settings.shipping_countries)
        session = FacebookSession(access_token=settings.meta_access_token, timeout=settings.ad_timeout_seconds)
        if transport is not None:
            session.requests.mount(FacebookSession.GRAPH, transport)
        self._api = FacebookAdsApi(session)

    def __repr__(self) -> str:
        # Never the default repr: the session holds the token, and reprs end up in logs.
        return "MetaPlatform()"

    # --- The seam ----------------------------------------------------------------------------

    def launch(self, campaign: CampaignLaunch) -> LaunchedCampaign:
        objective = OBJECTIVES.get(campaign.objective)
        if objective is None:
            raise PlatformRefused(REFUSED, f"Meta has no objective for {campaign.objective!r}.")
        with self._mapped_errors():
            found = self._find_campaign(campaign.reference)
            if found is None:
                self._check_currency(campaign.currency)
                campaign_id = self._create_campaign(campaign, objective)
                self._create_ad(campaign, self._create_ad_set(campaign, campaign_id, objective))
                return LaunchedCampaign(platform_ref=campaign_id, state=RUNNING)
            self._finish(campaign, found["id"], objective)
        return LaunchedCampaign(platform_ref=found["id"], state=_STATES.get(found.get("status"), RUNNING))

    def pause(self, platform_ref: str) -> LaunchedCampaign:
        with self._mapped_errors():
            self._campaign(platform_ref).api_update(params={"status": Campaign.Status.paused})
        return LaunchedCampaign(platform_ref=platform_ref, state=PAUSED)

    def resume(self, platform_ref: str, *, daily_budget_minor: int) -> LaunchedCampaign:
        with self._mapped_errors():
            # The budget first: the campaign never runs a moment on the old one.
            for ad_set in self._campaign(platform_ref).get_ad_sets(fields=["id"]):
                AdSet(ad_set["id"], api=self._api).api_update(params={"daily_budget": daily_budget_minor})
            self._campaign(platform_ref).api_update(params={"status": Campaign.Status.active})
        return LaunchedCampaign(platform_ref=platform_ref, state=RUNNING)

    def delivery(self, platform_ref: str, *, since: date, until: date) -> DeliveryReport:
        params = {"level": "campaign", "time_increment": 1,
                  "time_range": {"since": since.isoformat(), "until": until.isoformat()}}
        fields = ["impressions", "clicks", "spend", "date_start", "account_currency"]
        with self._mapped_errors():
            # Iterating the cursor fetches its further pages: inside the mapping too.
            rows = list(self._campaign(platform_ref).get_insights(fields=fields, params=params))
        days = sorted((_day(row) for row in rows), key=lambda day: day.day)
        return DeliveryReport(platform_ref=platform_ref, days=tuple(days))

    # --- Launch's steps ----------------------------------------------------------------------

    def _check_currency(self, currency: str) -> None:
        billed = self._account().api_get(fields=["currency"])["currency"]
        if billed.upper() != currency.upper():
            raise PlatformRefused(REFUSED, f"The Meta ad account bills in {billed.upper()}, and this campaign is "
                                           f"paid in {currency.upper()}.")

    def _find_campaign(self, reference: str) -> dict | None:
        marker = _marker(reference)
        found = self._account().get_campaigns(fields=["id", "name", "status"], params={
            "filtering": [{"field": "name", "operator": "CONTAIN", "value": marker}]})
        # CONTAIN is a substring match: only a name that ends with our marker is ours.
        return next((dict(c) for c in found if c.get("name", "").endswith(marker)), None)

    def _finish(self, campaign: CampaignLaunch, campaign_id: str, objective: str) -> None:
        """Creates what a launch whose answer was lost did not get to: the ad set, the ad."""
        ad_set_id = _first_id(self._campaign(campaign_id).get_ad_sets(fields=["id"]))
        if ad_set_id is None:
            ad_set_id = self._create_ad_set(campaign, campaign_id, objective)
        if _first_id(AdSet(ad_set_id, api=self._api).get_ads(fields=["id"])) is None:
            self._create_ad(campaign, ad_set_id)

    def _create_campaign(self, campaign: CampaignLaunch, objective: str) -> str:
        created = self._account().create_campaign(params={
            "name": f"{campaign.name} {_marker(campaign.reference)}",
            "objective": objective,
            "special_ad_categories": [],
            "status": Campaign.Status.active,
            # The budget is the ad set's, not shared across ad sets; Meta asks to be told so.
            "is_adset_budget_sharing_enabled": False,
        })
        return created["id"]

    def _create_ad_set(self, campaign: CampaignLaunch, campaign_id: str, objective: str) -> str:
        goal = OPTIMIZATION_GOALS[objective]
        params = {
            "name": f"{campaign.name} {_marker(campaign.reference)}",
            "campaign_id": campaign_id,
            "daily_budget": campaign.daily_budget_minor,
            "billing_event": "IMPRESSIONS",
            "optimization_goal": goal,
            "bid_strategy": "LOWEST_COST_WITHOUT_CAP",
            # The countries the store ships to, and no further (Advantage+ audience off).
            "targeting": {"geo_locations": {"countries": self._countries},
                          "targeting_automation": {"advantage_audience": 0}},
            "status": AdSet.Status.active,
        }
        if goal == "LINK_CLICKS":
            params["destination_type"] = "WEBSITE"
        if campaign.start_day > datetime.now(UTC).date():
            # A start in the past is refused; today's campaign starts now.
            params["start_time"] = f"{campaign.start_day.isoformat()}T00:00:00+0000"
        return self._account().create_ad_set(params=params)["id"]

    def _create_ad(self, campaign: CampaignLaunch, ad_set_id: str) -> str:
        creative = self._account().create_ad_creative(params={
            "name": f"{campaign.name} {_marker(campaign.reference)}",
            "object_story_spec": {"page_id": self._page_id, "link_data": _link_data(campaign)},
        })
        ad = self._account().create_ad(params={
            "name": f"{campaign.name} {_marker(campaign.reference)}",
            "adset_id": ad_set_id,
            "creative": {"creative_id": creative["id"]},
            "status": "ACTIVE",
        })
        return ad["id"]

    # --- Helpers -----------------------------------------------------------------------------

    def _account(self) -> AdAccount:
        return AdAccount(self._account_id, api=self._api)

    def _campaign(self, platform_ref: str) -> Campaign:
        return Campaign(platform_ref, api=self._api)

    @contextmanager
    def _mapped_errors(self):
        """The SDK's and the network's failures as the seam's."""
        try:
            yield
        except FacebookRequestError as error:
            if _transient(error):
                raise PlatformUnavailable(f"Meta could not answer now: {_describe(error, self._token)}") from None
            raise PlatformRefused(REFUSED, _words(error, self._token)) from None
        except requests.RequestException as error:
            # Only the kind: a requests error's text quotes the address, and a GET's address
            # carries the access token.
            raise PlatformUnavailable(f"Meta could not be reached: {type(error).__name__}") from None
        except FacebookError as error:
            raise PlatformRefused(REFUSED, _scrub(str(error), self._token)) from None


def _marker(reference: str) -> str:
    return f"[{reference}]"


def _first_id(found: Iterable) -> str | None:
    return next((item["id"] for item in found), None)


def _link_data(campaign: CampaignLaunch) -> dict:
    """The creative's words on a link post: the text above, the headline and description under
    the picture, the button, all leading to the landing address."""
    creative = campaign.creative
    data = {"link": campaign.landing_url, "message": creative.primary_text, "name": creative.headline,
            "description": creative.description}
    if creative.call_to_action:
        # "Shop Now" is Meta's SHOP_NOW (services/growth/ad_limits.py CALLS_TO_ACTION all have one).
        data["call_to_action"] = {"type": re.sub(r"\W+", "_", creative.call_to_action.strip()).upper(),
                                  "value": {"link": campaign.landing_url}}
    if creative.image_url:
        data["picture"] = creative.image_url
    return data


def _day(row) -> DayDelivery:
    currency = row["account_currency"].upper()
    return DayDelivery(day=date.fromisoformat(row["date_start"]), impressions=int(row.get("impressions") or 0),
                       clicks=int(row.get("clicks") or 0), spend_minor=minor_units(row.get("spend") or "0", currency),
                       currency=currency)


def _transient(error: FacebookRequestError) -> bool:
    status = error.http_status() or 0
    return (status >= 500 or error.api_error_code() in _RATE_LIMIT_CODES
            or error.api_error_code() in _TRANSIENT_CODES or bool(error.api_transient_error()))


def _words(error: FacebookRequestError, token: str) -> str:
    """Meta's words for a person (error_user_msg), else its message: what the founder reads."""
    body = error.body() if isinstance(error.body(), dict) else {}
    words = (body.get("error") or {}).get("error_user_msg") or error.api_error_message()
    return _scrub(words or f"Meta refused the request (HTTP {error.http_status()}).", token)


def _describe(error: FacebookRequestError, token: str) -> str:
    parts = [f"HTTP {error.http_status()}"]
    if error.api_error_code() is not None:
        parts.append(f"code {error.api_error_code()}")
    message = _scrub(error.api_error_message() or "", token)
    return ", ".join(parts) + (f": {message}" if message else "")


def _scrub(text: str, token: str) -> str:
    if token:
        text = text.replace(token, "[redacted]")
    return _TOKEN.sub("[redacted]", text).strip()
