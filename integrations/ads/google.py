"""The Google Ads API behind the ad seam, through Google's official SDK (`google-ads`), over gRPC.

A launch is one atomic GoogleAdsService.Mutate: a CampaignBudget (the daily budget), a Search
Campaign bidding Maximize Clicks (each click capped at the bars' cost per click), an AdGroup and
an AdGroupAd with a responsive search ad made of the creative's words, all ENABLED; they are
made together or not at all. The campaign's name carries our reference ("<name> [<reference>]"):
a launch first searches for a campaign with it, so a launch asked again after a lost answer
answers the campaign the first one made.

Each platform holds its own GoogleAdsClient (its credentials, developer token, customer), made
on first use: making one asks Google's OAuth server for an access token, with our timeout, so
a revoked refresh token is refused clearly there rather than failing every call as UNAVAILABLE.
Calls go without the library's retries (retry=None) and with AD_TIMEOUT_SECONDS each: a timeout,
a server error or a quota answer raises PlatformUnavailable at once and the clock's next pass
asks again.

Google keeps budgets and costs in micros of the account's currency (a millionth of a major
unit); the seam's minor units convert exactly (USD 1 cent is 10,000 micros). A launch checks
the account bills in the campaign's currency.
"""
from __future__ import annotations

import functools
import re
from contextlib import contextmanager
from datetime import UTC, date, datetime
from decimal import Decimal

import google.auth.transport.requests
import grpc
import requests
from google.ads.googleads.client import GoogleAdsClient
from google.ads.googleads.errors import GoogleAdsException
from google.api_core import exceptions as core_exceptions
from google.auth import exceptions as auth_exceptions
from google.oauth2.credentials import Credentials
from google.protobuf import field_mask_pb2

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
from integrations.payments import minor_digits, minor_units

REFUSED = "ad_platform_refused"
API_VERSION = "v26"
SCOPE = "https://www.googleapis.com/auth/adwords"
TOKEN_URI = "https://oauth2.googleapis.com/token"

# A responsive search ad takes 3 to 15 headlines of at most 30 characters and 2 to 4
# descriptions of at most 90.
HEADLINE_CHARS = 30
DESCRIPTION_CHARS = 90
# Keywords: Google takes up to 80 characters (and 10 words) each; a launch sends a few.
KEYWORD_CHARS = 80
MAX_KEYWORDS = 10

# gRPC answers that say "not now": the call may well succeed later.
_TRANSIENT_STATUS = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                               grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INTERNAL,
                               grpc.StatusCode.ABORTED})
# The same, as google.api_core raises them once the library has wrapped a gRPC error.
_TRANSIENT_CALL_ERRORS = (core_exceptions.ServiceUnavailable, core_exceptions.DeadlineExceeded,
                          core_exceptions.ResourceExhausted, core_exceptions.InternalServerError,
                          core_exceptions.Aborted)
# Google Ads errors that are a quota or Google's own trouble, whatever the gRPC status: every
# internal_error, and every quota_error but ACCESS_PROHIBITED (a developer token without access
# to this account: waiting changes nothing).
_TRANSIENT_KINDS = frozenset({"quota_error", "internal_error"})
_LASTING = frozenset({("quota_error", "ACCESS_PROHIBITED")})


class GooglePlatform:
    name = "google"

    def __init__(self, settings, *, client: GoogleAdsClient | None = None, oauth_http: requests.Session | None = None):
        """`client`, when given, is used instead of one made from the settings (the tests' client
        points at an in-process gRPC server answering recorded messages); `oauth_http` is the
        requests session the access token is asked for through (the tests answer it)."""
        secrets = (settings.google_ads_developer_token, settings.google_ads_client_id,
                   settings.google_ads_client_secret, settings.google_ads_refresh_token)
        if not all(secrets) or not settings.google_ads_customer_id:
            raise ValueError("GooglePlatform needs GOOGLE_ADS_DEVELOPER_TOKEN, GOOGLE_ADS_CLIENT_ID, "
                             "GOOGLE_ADS_CLIENT_SECRET, GOOGLE_ADS_REFRESH_TOKEN and GOOGLE_ADS_CUSTOMER_ID")
        self._settings = settings
        self._secrets = tuple(s for s in secrets if s)
        self._customer_id = settings.google_ads_customer_id
        self._timeout = settings.ad_timeout_seconds
        self._client = client
        self._oauth_http = oauth_http
        self._service = None

    def __repr__(self) -> str:
        # Never the default repr: the client holds the tokens, and reprs end up in logs.
        return "GooglePlatform()"

    # --- The seam ----------------------------------------------------------------------------

    def launch(self, campaign: CampaignLaunch) -> LaunchedCampaign:
        with self._mapped_errors():
            found = self._find(campaign.reference)
            if found is None:
                self._check_currency(campaign.currency)
                answer = self._mutate(self._launch_operations(campaign))
                # The operations' order: budget, campaign, ad group, ad.
                campaign_name = answer.mutate_operation_responses[1].campaign_result.resource_name
                return LaunchedCampaign(platform_ref=campaign_name.rsplit("/", 1)[-1], state=RUNNING)
        state = PAUSED if found.status.name == "PAUSED" else RUNNING
        return LaunchedCampaign(platform_ref=str(found.id), state=state)

    def pause(self, platform_ref: str) -> LaunchedCampaign:
        campaign_id = _campaign_id(platform_ref)
        with self._mapped_errors():
            self._mutate([self._status_operation(campaign_id, "PAUSED")])
        return LaunchedCampaign(platform_ref=platform_ref, state=PAUSED)

    def resume(self, platform_ref: str, *, daily_budget_minor: int) -> LaunchedCampaign:
        campaign_id = _campaign_id(platform_ref)
        with self._mapped_errors():
            rows = self._search("SELECT campaign.campaign_budget, customer.currency_code FROM campaign "
                                f"WHERE campaign.id = {campaign_id}")
            if not rows:
                raise PlatformRefused(REFUSED, f"Google Ads has no campaign {campaign_id} in this account.")
            budget = self._budget_update(rows[0].campaign.campaign_budget,
                                         _micros(daily_budget_minor, rows[0].customer.currency_code))
            # One atomic mutate, the budget first: it never runs a moment on the old budget.
            self._mutate([budget, self._status_operation(campaign_id, "ENABLED")])
        return LaunchedCampaign(platform_ref=platform_ref, state=RUNNING)

    def delivery(self, platform_ref: str, *, since: date, until: date) -> DeliveryReport:
        campaign_id = _campaign_id(platform_ref)
        query = ("SELECT segments.date, metrics.impressions, metrics.clicks, metrics.cost_micros, "
                 f"customer.currency_code FROM campaign WHERE campaign.id = {campaign_id} "
                 f"AND segments.date BETWEEN '{since.isoformat()}' AND '{until.isoformat()}' "
                 "ORDER BY segments.date")
        with self._mapped_errors():
            rows = self._search(query)
        days = tuple(_day(row) for row in rows)
        return DeliveryReport(platform_ref=platform_ref, days=tuple(sorted(days, key=lambda d: d.day)))

    # --- Launch's steps ----------------------------------------------------------------------

    def _find(self, reference: str):
        """The campaign (not removed) whose name ends with our reference, or None."""
        marker = _marker(reference)
        rows = self._search("SELECT campaign.id, campaign.name, campaign.status FROM campaign "
                            f"WHERE campaign.name LIKE '%{_like_literal(marker)}' AND campaign.status != 'REMOVED'")
        return next((row.campaign for row in rows if row.campaign.name.endswith(marker)), None)

    def _check_currency(self, currency: str) -> None:
        rows = self._search("SELECT customer.currency_code FROM customer")
        billed = rows[0].customer.currency_code.upper() if rows else "?"
        if billed != currency.upper():
            raise PlatformRefused(REFUSED, f"The Google Ads account bills in {billed}, and this campaign is "
                                           f"paid in {currency.upper()}.")

    def _launch_operations(self, campaign: CampaignLaunch) -> list:
        # Temporary ids (negative) join the four new resources inside the one request.
        base = f"customers/{self._customer_id}"
        names = {"budget": f"{base}/campaignBudgets/-1", "campaign": f"{base}/campaigns/-2",
                 "ad_group": f"{base}/adGroups/-3"}
        label = f"{campaign.name} {_marker(campaign.reference)}"
        # The keywords last: the answer's first four results stay budget, campaign, ad group, ad.
        return [self._budget_operation(campaign, names, label), self._campaign_operation(campaign, names, label),
                self._ad_group_operation(names, label), self._ad_operation(campaign, names),
                *(self._keyword_operation(keyword, names) for keyword in campaign.keywords[:MAX_KEYWORDS])]

    def _budget_operation(self, campaign: CampaignLaunch, names: dict, label: str):
        operation = self._sdk().get_type("MutateOperation")
        budget = operation.campaign_budget_operation.create
        budget.resource_name = names["budget"]
        budget.name = label
        budget.amount_micros = _micros(campaign.daily_budget_minor, campaign.currency)
        budget.delivery_method = self._sdk().enums.BudgetDeliveryMethodEnum.STANDARD
        budget.explicitly_shared = False
        return operation

    def _campaign_operation(self, campaign: CampaignLaunch, names: dict, label: str):
        enums = self._sdk().enums
        operation = self._sdk().get_type("MutateOperation")
        new = operation.campaign_operation.create
        new.resource_name = names["campaign"]
        new.name = label
        new.advertising_channel_type = enums.AdvertisingChannelTypeEnum.SEARCH
        new.status = enums.CampaignStatusEnum.ENABLED
        new.campaign_budget = names["budget"]
        # Maximize Clicks, no click dearer than the creative's bar allows.
        bidding = self._sdk().get_type("TargetSpend")
        if campaign.bars.cpc_max_minor > 0:
            bidding.cpc_bid_ceiling_micros = _micros(campaign.bars.cpc_max_minor, campaign.currency)
        new.target_spend = bidding
        new.network_settings.target_google_search = True
        new.network_settings.target_search_network = True
        new.network_settings.target_content_network = False
        new.network_settings.target_partner_search_network = False
        new.contains_eu_political_advertising = (
            enums.EuPoliticalAdvertisingStatusEnum.DOES_NOT_CONTAIN_EU_POLITICAL_ADVERTISING)
        if campaign.start_day > datetime.now(UTC).date():
            # A start in the past is refused; today's campaign starts now.
            new.start_date_time = f"{campaign.start_day.isoformat()} 00:00:00"
        return operation

    def _ad_group_operation(self, names: dict, label: str):
        operation = self._sdk().get_type("MutateOperation")
        group = operation.ad_group_operation.create
        group.resource_name = names["ad_group"]
        group.name = label
        group.campaign = names["campaign"]
        group.status = self._sdk().enums.AdGroupStatusEnum.ENABLED
        group.type_ = self._sdk().enums.AdGroupTypeEnum.SEARCH_STANDARD
        return operation

    def _ad_operation(self, campaign: CampaignLaunch, names: dict):
        operation = self._sdk().get_type("MutateOperation")
        ad = operation.ad_group_ad_operation.create
        ad.ad_group = names["ad_group"]
        ad.status = self._sdk().enums.AdGroupAdStatusEnum.ENABLED
        ad.ad.final_urls.append(campaign.landing_url)
        headlines, descriptions = _ad_texts(campaign)
        ad.ad.responsive_search_ad.headlines.extend(self._text_assets(headlines))
        ad.ad.responsive_search_ad.descriptions.extend(self._text_assets(descriptions))
        return operation

    def _keyword_operation(self, keyword: str, names: dict):
        # Broad match: the ad answers searches related to the product's name, not only the name itself.
        operation = self._sdk().get_type("MutateOperation")
        criterion = operation.ad_group_criterion_operation.create
        criterion.ad_group = names["ad_group"]
        criterion.status = self._sdk().enums.AdGroupCriterionStatusEnum.ENABLED
        criterion.keyword.text = keyword[:KEYWORD_CHARS]
        criterion.keyword.match_type = self._sdk().enums.KeywordMatchTypeEnum.BROAD
        return operation

    def _text_assets(self, texts: list[str]) -> list:
        assets = []
        for text in texts:
            asset = self._sdk().get_type("AdTextAsset")
            asset.text = text
            assets.append(asset)
        return assets

    def _budget_update(self, budget_name: str, amount_micros: int):
        operation = self._sdk().get_type("MutateOperation")
        update = operation.campaign_budget_operation.update
        update.resource_name = budget_name
        update.amount_micros = amount_micros
        self._sdk().copy_from(operation.campaign_budget_operation.update_mask,
                              field_mask_pb2.FieldMask(paths=["amount_micros"]))
        return operation

    def _status_operation(self, campaign_id: int, status: str):
        operation = self._sdk().get_type("MutateOperation")
        update = operation.campaign_operation.update
        update.resource_name = f"customers/{self._customer_id}/campaigns/{campaign_id}"
        update.status = getattr(self._sdk().enums.CampaignStatusEnum, status)
        self._sdk().copy_from(operation.campaign_operation.update_mask, field_mask_pb2.FieldMask(paths=["status"]))
        return operation

    # --- Calls -------------------------------------------------------------------------------

    def _sdk(self) -> GoogleAdsClient:
        if self._client is None:
            self._client = _client_for(self._settings, self._oauth_http)
        return self._client

    def _ads_service(self):
        if self._service is None:
            self._service = self._sdk().get_service("GoogleAdsService", version=API_VERSION)
        return self._service

    def _search(self, query: str) -> list:
        # Iterating the pager fetches its further pages: callers keep it inside the mapping.
        pager = self._ads_service().search(customer_id=self._customer_id, query=query, retry=None,
                                           timeout=self._timeout)
        return list(pager)

    def _mutate(self, operations: list):
        return self._ads_service().mutate(customer_id=self._customer_id, mutate_operations=operations, retry=None,
                                          timeout=self._timeout)

    @contextmanager
    def _mapped_errors(self):
        """The SDK's, gRPC's and OAuth's failures as the seam's."""
        try:
            yield
        except GoogleAdsException as error:
            words = self._scrub(_first_message(error))
            if error.error.code() in _TRANSIENT_STATUS or _transient_errors(error):
                raise PlatformUnavailable(f"Google Ads could not answer now (request {error.request_id}): "
                                          f"{words}") from None
            raise PlatformRefused(REFUSED, words) from None
        except auth_exceptions.RefreshError as error:
            words = self._scrub(str(error.args[0]) if error.args else type(error).__name__)
            if getattr(error, "retryable", False):
                raise PlatformUnavailable(f"Google's OAuth server could not answer now: {words}") from None
            raise PlatformRefused(REFUSED, f"Google refused the OAuth credentials: {words}") from None
        except auth_exceptions.TransportError as error:
            raise PlatformUnavailable(f"Google's OAuth server could not be reached: {type(error).__name__}") from None
        except core_exceptions.GoogleAPICallError as error:
            if isinstance(error, _TRANSIENT_CALL_ERRORS):
                raise PlatformUnavailable(f"Google Ads could not answer now: {self._scrub(error.message)}") from None
            raise PlatformRefused(REFUSED, self._scrub(error.message)) from None
        except grpc.RpcError as error:
            if error.code() in _TRANSIENT_STATUS:
                raise PlatformUnavailable(f"Google Ads could not answer now: {error.code().name}") from None
            raise PlatformRefused(REFUSED, self._scrub(error.details() or error.code().name)) from None

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text.strip()


def _client_for(settings, session: requests.Session | None = None) -> GoogleAdsClient:
    """A client for the settings' account, holding a fresh access token."""
    credentials = Credentials(token=None, refresh_token=settings.google_ads_refresh_token,
                              client_id=settings.google_ads_client_id, client_secret=settings.google_ads_client_secret,
                              token_uri=TOKEN_URI, scopes=[SCOPE])
    request = google.auth.transport.requests.Request(session=session)
    credentials.refresh(functools.partial(request, timeout=settings.ad_timeout_seconds))
    return GoogleAdsClient(credentials=credentials, developer_token=settings.google_ads_developer_token,
                           login_customer_id=settings.google_ads_login_customer_id, version=API_VERSION,
                           use_proto_plus=True)


def _campaign_id(platform_ref: str) -> int:
    if not re.fullmatch(r"\d{1,20}", platform_ref or ""):
        raise PlatformRefused(REFUSED, f"{platform_ref!r} is not a Google Ads campaign id.")
    return int(platform_ref)


def _marker(reference: str) -> str:
    return f"[{reference}]"


def _like_literal(text: str) -> str:
    """`text` matched literally by GAQL's LIKE (its wildcards and brackets each in brackets),
    inside a single-quoted string."""
    escaped = re.sub(r"([\[\]%_])", r"[\1]", text)
    return escaped.replace("\\", "\\\\").replace("'", "\\'")


def _micros(amount_minor: int, currency: str) -> int:
    return int(amount_minor) * 10 ** (6 - minor_digits(currency))


def _day(row) -> DayDelivery:
    currency = row.customer.currency_code.upper()
    spend = minor_units(Decimal(row.metrics.cost_micros).scaleb(-6), currency)
    return DayDelivery(day=date.fromisoformat(row.segments.date), impressions=int(row.metrics.impressions),
                       clicks=int(row.metrics.clicks), spend_minor=spend, currency=currency)


def _ad_texts(campaign: CampaignLaunch) -> tuple[list[str], list[str]]:
    """The responsive search ad's headlines and descriptions from the creative's words: its
    headline and button, then the first words of its description and text as more headlines."""
    creative = campaign.creative
    headlines = _distinct([creative.headline, creative.call_to_action, creative.description, creative.primary_text],
                          HEADLINE_CHARS)
    descriptions = _distinct([creative.primary_text, creative.description], DESCRIPTION_CHARS)
    return headlines[:15], descriptions[:4]


def _distinct(texts: list[str], limit: int) -> list[str]:
    kept = []
    for text in texts:
        fitted = _fit(text, limit)
        if fitted and fitted.lower() not in (k.lower() for k in kept):
            kept.append(fitted)
    return kept


def _fit(text: str, limit: int) -> str:
    """`text` whole when it fits, else its words up to the limit (never a cut word)."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit + 1].rsplit(" ", 1)[0].rstrip(",;:-")
    return cut if len(cut) <= limit else ""


def _first_message(error: GoogleAdsException) -> str:
    errors = list(error.failure.errors) if error.failure is not None else []
    return errors[0].message if errors else (error.error.details() or "Google Ads refused the request.")


def _transient_errors(error: GoogleAdsException) -> bool:
    """Whether any of the failure's errors is a quota or Google's own trouble."""
    for each in (error.failure.errors if error.failure is not None else []):
        kind = type(each.error_code).pb(each.error_code).WhichOneof("error_code")
        value = getattr(each.error_code, kind).name if kind else ""
        if kind in _TRANSIENT_KINDS and (kind, value) not in _LASTING:
            return True
    return False
