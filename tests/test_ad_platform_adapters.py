"""The real ad platforms' adapters (integrations/ads/meta.py and google.py) against recorded
answers in the APIs' documented shapes (tests/fixtures/ads/), never the network.

Meta: the SDK (`facebook-business`) sends every Graph API call through the requests session
of its FacebookSession. MetaPlatform(transport=...) mounts a requests transport adapter on
that session for graph.facebook.com; the stand-in below (RecordedHttp) checks each request
against the next one expected (method and path), keeps what was sent (query and form
parameters, as the SDK encoded them; the timeout) and answers the recorded JSON with the
recorded HTTP status. The SDK's own encoding, response parsing, cursors and errors all run.

Google: the SDK (`google-ads`) speaks gRPC to its endpoint over TLS. The tests' GoogleAdsClient
is made with the SDK's public constructor (a fixed access token, so no OAuth call, and
endpoint=localhost:PORT) and handed to GooglePlatform(client=...). It talks to an in-process
`grpc.server` (RecordedGoogleAds) that serves GoogleAdsService's Search and Mutate from
recorded messages (the JSON files parsed with google.protobuf.json_format into the API's own
protobuf types). A failure is sent as the API sends it: a gRPC status with the GoogleAdsFailure
in the trailing metadata, which the SDK's interceptor turns into GoogleAdsException. The server
speaks TLS with a certificate made for the run, trusted through GRPC_DEFAULT_SSL_ROOTS_FILE_PATH
(read by gRPC when it first needs its roots; nothing else in the suite uses gRPC), so the SDK's
real secure channel, its interceptors (the developer-token header) and the library's error
wrapping all run. The OAuth refresh a platform makes its client with goes through a requests
session (GooglePlatform(oauth_http=...)) with the same RecordedHttp mounted for Google's OAuth
server.
"""
from __future__ import annotations

import io
import json
import os
import socket
import threading
import time
from concurrent import futures
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import grpc
import pytest
import requests
import urllib3
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from google.ads.googleads.client import GoogleAdsClient
from google.ads.googleads.v26.errors.types import errors as ads_errors
from google.ads.googleads.v26.services.types import google_ads_service as ads_service
from google.oauth2.credentials import Credentials
from google.protobuf import json_format

from config import Settings, SettingsError, load_settings
from integrations.ads import (
    PAUSED,
    RUNNING,
    Bars,
    CampaignLaunch,
    Creative,
    DayDelivery,
    LaunchedCampaign,
    PlatformRefused,
    PlatformUnavailable,
    platform_for,
)
from integrations.ads.google import GooglePlatform, _client_for
from integrations.ads.meta import MetaPlatform

FIXTURES = Path(__file__).parent / "fixtures" / "ads"
REFERENCE = "3f9a2c7e1b4d5a60"
META_TOKEN = "EAATestAccessTokenForRecordedAnswers0000"
ACCOUNT = "act_1234567890"
PAGE = "104857600000001"
CAMPAIGN = "120215550000000011"
AD_SET = "120215550000000022"
GRAPH = "/v26.0"
CUSTOMER = "1234567890"
GOOGLE_CAMPAIGN = "22123456789"
DEVELOPER_TOKEN = "dev-token-recorded-0000"


def settings(**changes) -> Settings:
    fields = dict(ad_platform="meta", ad_timeout_seconds=7, meta_access_token=META_TOKEN, meta_ad_account_id=ACCOUNT,
                  meta_page_id=PAGE, shipping_countries=("US", "CA", "GB"),
                  google_ads_developer_token=DEVELOPER_TOKEN, google_ads_client_id="client-id.apps.example",
                  google_ads_client_secret="client-secret-0000", google_ads_refresh_token="1//refresh-token-0000",
                  google_ads_customer_id=CUSTOMER, google_ads_login_customer_id="9876543210")
    return replace(Settings(), **{**fields, **changes})


def launch(**changes) -> CampaignLaunch:
    fields = dict(reference=REFERENCE, name="Spring lamps", objective="sales", daily_budget_minor=2500, currency="USD",
                  landing_url=f"https://shop.example.test/store/lamp-co/?utm_source=meta&utm_campaign={REFERENCE}",
                  creative=Creative(headline="Walnut lamps, warm light", primary_text="Hand-turned walnut desk lamps, "
                                    "made to order and shipped in a week.", description="Free returns for 30 days",
                                    call_to_action="Shop Now"),
                  bars=Bars(ctr_min_pct=0.9, cpc_max_minor=120), start_day=datetime.now(UTC).date(),
                  keywords=("walnut desk lamp", "desk lamp"))
    return CampaignLaunch(**{**fields, **changes})


# --- Meta: a requests transport answering recorded Graph API answers -------------------------

class RecordedHttp(requests.adapters.BaseAdapter):
    """Answers each request with the next recorded answer (a file in `folder`), after checking it
    is the one expected. An answer is (method, path, fixture name or an exception to raise, HTTP
    status)."""

    def __init__(self, folder: str, *answers):
        super().__init__()
        self.folder = folder
        self.answers = list(answers)
        self.sent = []

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        parts = urlsplit(request.url)
        body = request.body.decode() if isinstance(request.body, bytes) else request.body or ""
        self.sent.append({"method": request.method, "host": parts.hostname, "path": parts.path,
                          "query": _flat(parse_qs(parts.query)), "form": _flat(parse_qs(body)), "timeout": timeout})
        assert self.answers, f"unexpected request {request.method} {parts.path}"
        method, path, answer, status = self.answers.pop(0)
        assert (request.method, parts.path) == (method, path)
        if isinstance(answer, Exception):
            raise answer
        raw = urllib3.HTTPResponse(body=io.BytesIO((FIXTURES / self.folder / answer).read_bytes()), status=status,
                                   headers={"Content-Type": "application/json"}, preload_content=False)
        return requests.adapters.HTTPAdapter().build_response(request, raw)

    def close(self):
        pass


def _flat(parsed: dict) -> dict:
    return {key: values[0] if len(values) == 1 else values for key, values in parsed.items()}


def meta(*answers) -> tuple[MetaPlatform, RecordedHttp]:
    graph = RecordedHttp("meta", *answers)
    return MetaPlatform(settings(), transport=graph), graph


FIRST_LAUNCH = (("GET", f"{GRAPH}/{ACCOUNT}/campaigns", "campaigns_none.json", 200),
                ("GET", f"{GRAPH}/{ACCOUNT}/", "ad_account.json", 200),
                ("POST", f"{GRAPH}/{ACCOUNT}/campaigns", "campaign_created.json", 200),
                ("POST", f"{GRAPH}/{ACCOUNT}/adsets", "adset_created.json", 200),
                ("POST", f"{GRAPH}/{ACCOUNT}/adcreatives", "adcreative_created.json", 200),
                ("POST", f"{GRAPH}/{ACCOUNT}/ads", "ad_created.json", 200))


def test_meta_launch_creates_the_campaign_its_ad_set_creative_and_ad():
    platform, graph = meta(*FIRST_LAUNCH)

    launched = platform.launch(launch())

    assert launched == LaunchedCampaign(platform_ref=CAMPAIGN, state=RUNNING)
    assert not graph.answers
    find, account, campaign, ad_set, creative, ad = graph.sent
    assert json.loads(find["query"]["filtering"]) == [{"field": "name", "operator": "CONTAIN",
                                                       "value": f"[{REFERENCE}]"}]
    assert account["query"]["fields"] == "currency"
    assert campaign["form"] == {"name": f"Spring lamps [{REFERENCE}]", "objective": "OUTCOME_SALES",
                                "special_ad_categories": "[]", "status": "ACTIVE",
                                "is_adset_budget_sharing_enabled": "false"}
    assert {k: ad_set["form"][k] for k in ("campaign_id", "daily_budget", "billing_event", "optimization_goal",
                                           "status", "destination_type")} == {
        "campaign_id": CAMPAIGN, "daily_budget": "2500", "billing_event": "IMPRESSIONS",
        "optimization_goal": "LINK_CLICKS", "status": "ACTIVE", "destination_type": "WEBSITE"}
    assert json.loads(ad_set["form"]["targeting"])["geo_locations"] == {"countries": ["US", "CA", "GB"]}
    assert "start_time" not in ad_set["form"]  # today's campaign starts now
    assert json.loads(creative["form"]["object_story_spec"]) == {"page_id": PAGE, "link_data": {
        "link": launch().landing_url, "message": launch().creative.primary_text,
        "name": "Walnut lamps, warm light", "description": "Free returns for 30 days",
        "call_to_action": {"type": "SHOP_NOW", "value": {"link": launch().landing_url}}}}
    assert json.loads(ad["form"]["creative"]) == {"creative_id": "120215550000000033"}
    assert (ad["form"]["adset_id"], ad["form"]["status"]) == (AD_SET, "ACTIVE")


def test_meta_sends_the_token_and_the_timeout_and_never_to_another_host():
    platform, graph = meta(*FIRST_LAUNCH)

    platform.launch(launch())

    assert {sent["host"] for sent in graph.sent} == {"graph.facebook.com"}
    assert {sent["query"]["access_token"] for sent in graph.sent} == {META_TOKEN}
    assert {sent["timeout"] for sent in graph.sent} == {7}
    assert META_TOKEN not in repr(platform)


@pytest.mark.parametrize(("ours", "objective", "goal"), [
    ("traffic", "OUTCOME_TRAFFIC", "LINK_CLICKS"), ("leads", "OUTCOME_LEADS", "LINK_CLICKS"),
    ("awareness", "OUTCOME_AWARENESS", "REACH"), ("engagement", "OUTCOME_ENGAGEMENT", "POST_ENGAGEMENT")])
def test_meta_maps_each_objective_and_its_optimisation_goal(ours, objective, goal):
    platform, graph = meta(*FIRST_LAUNCH)

    platform.launch(launch(objective=ours))

    assert graph.sent[2]["form"]["objective"] == objective
    assert graph.sent[3]["form"]["optimization_goal"] == goal


def test_meta_launch_starting_on_a_later_day_names_its_start():
    platform, graph = meta(*FIRST_LAUNCH)
    later = datetime.now(UTC).date() + timedelta(days=3)

    platform.launch(launch(start_day=later))

    assert graph.sent[3]["form"]["start_time"] == f"{later.isoformat()}T00:00:00+0000"


def test_meta_launch_again_with_the_same_reference_creates_nothing_new():
    platform, graph = meta(("GET", f"{GRAPH}/{ACCOUNT}/campaigns", "campaigns_found.json", 200),
                           ("GET", f"{GRAPH}/{CAMPAIGN}/adsets", "adsets_found.json", 200),
                           ("GET", f"{GRAPH}/{AD_SET}/ads", "ads_found.json", 200))

    launched = platform.launch(launch())

    assert launched == LaunchedCampaign(platform_ref=CAMPAIGN, state=RUNNING)
    assert not graph.answers
    assert {sent["method"] for sent in graph.sent} == {"GET"}


def test_meta_launch_again_finishes_a_launch_that_stopped_before_its_ad():
    platform, graph = meta(("GET", f"{GRAPH}/{ACCOUNT}/campaigns", "campaigns_found.json", 200),
                           ("GET", f"{GRAPH}/{CAMPAIGN}/adsets", "adsets_found.json", 200),
                           ("GET", f"{GRAPH}/{AD_SET}/ads", "ads_none.json", 200),
                           ("POST", f"{GRAPH}/{ACCOUNT}/adcreatives", "adcreative_created.json", 200),
                           ("POST", f"{GRAPH}/{ACCOUNT}/ads", "ad_created.json", 200))

    assert platform.launch(launch()).platform_ref == CAMPAIGN
    assert not graph.answers
    assert graph.sent[-1]["form"]["adset_id"] == AD_SET


def test_meta_launch_is_refused_when_the_account_bills_in_another_currency():
    platform, graph = meta(*FIRST_LAUNCH[:2])

    with pytest.raises(PlatformRefused) as refused:
        platform.launch(launch(currency="EUR"))

    assert refused.value.reason == "ad_platform_refused"
    assert "bills in USD" in refused.value.detail
    assert [sent["method"] for sent in graph.sent] == ["GET", "GET"]  # nothing created


def test_meta_pause_sets_the_campaign_paused():
    platform, graph = meta(("POST", f"{GRAPH}/{CAMPAIGN}/", "updated.json", 200))

    assert platform.pause(CAMPAIGN) == LaunchedCampaign(platform_ref=CAMPAIGN, state=PAUSED)
    assert graph.sent[0]["form"] == {"status": "PAUSED"}


def test_meta_resume_sets_the_ad_sets_budget_then_the_campaign_active():
    platform, graph = meta(("GET", f"{GRAPH}/{CAMPAIGN}/adsets", "adsets_found.json", 200),
                           ("POST", f"{GRAPH}/{AD_SET}/", "updated.json", 200),
                           ("POST", f"{GRAPH}/{CAMPAIGN}/", "updated.json", 200))

    assert platform.resume(CAMPAIGN, daily_budget_minor=4000) == LaunchedCampaign(platform_ref=CAMPAIGN,
                                                                                   state=RUNNING)
    assert graph.sent[1]["form"] == {"daily_budget": "4000"}
    assert graph.sent[2]["form"] == {"status": "ACTIVE"}


def test_meta_delivery_maps_three_days_of_insights():
    platform, graph = meta(("GET", f"{GRAPH}/{CAMPAIGN}/insights", "insights_three_days.json", 200))

    report = platform.delivery(CAMPAIGN, since=date(2026, 12, 1), until=date(2026, 12, 3))

    assert report.platform_ref == CAMPAIGN
    assert report.days == (DayDelivery(date(2026, 12, 1), 1520, 38, 1234, "USD"),
                           DayDelivery(date(2026, 12, 2), 2104, 51, 1500, "USD"),
                           DayDelivery(date(2026, 12, 3), 987, 17, 750, "USD"))
    query = graph.sent[0]["query"]
    assert (query["level"], query["time_increment"]) == ("campaign", "1")
    assert json.loads(query["time_range"]) == {"since": "2026-12-01", "until": "2026-12-03"}
    assert set(query["fields"].split(",")) >= {"impressions", "clicks", "spend", "date_start"}


@pytest.mark.parametrize(("fixture", "status"), [("error_server.json", 500), ("service_unavailable.txt", 503),
                                                ("error_rate_limit.json", 400)])
def test_meta_server_errors_and_rate_limits_are_unavailable(fixture, status):
    platform, _ = meta(("POST", f"{GRAPH}/{CAMPAIGN}/", fixture, status))

    with pytest.raises(PlatformUnavailable):
        platform.pause(CAMPAIGN)


@pytest.mark.parametrize("failure", [requests.ConnectTimeout("connect timed out"),
                                     requests.ConnectionError("connection reset")])
def test_meta_network_failures_are_unavailable_and_quote_no_address(failure):
    platform, _ = meta(("GET", f"{GRAPH}/{CAMPAIGN}/insights", failure, 0))

    with pytest.raises(PlatformUnavailable) as unavailable:
        platform.delivery(CAMPAIGN, since=date(2026, 12, 1), until=date(2026, 12, 3))

    assert "access_token" not in str(unavailable.value) and META_TOKEN not in str(unavailable.value)


def test_meta_refusal_carries_metas_words_for_people():
    platform, _ = meta(*FIRST_LAUNCH[:3], ("POST", f"{GRAPH}/{ACCOUNT}/adsets", "error_budget_too_low.json", 400))

    with pytest.raises(PlatformRefused) as refused:
        platform.launch(launch(daily_budget_minor=50))

    assert refused.value.reason == "ad_platform_refused"
    assert refused.value.detail == "The minimum budget for this ad set is $1.00."
    assert refused.value.__cause__ is None and refused.value.__suppress_context__


def test_meta_refusal_never_quotes_the_access_token():
    platform, _ = meta(("POST", f"{GRAPH}/{CAMPAIGN}/", "error_bad_token.json", 400))

    with pytest.raises(PlatformRefused) as refused:
        platform.pause(CAMPAIGN)

    assert META_TOKEN not in refused.value.detail
    assert refused.value.detail == "Malformed access token [redacted]"


# --- Google: an in-process GoogleAdsService answering recorded protobuf messages -------------

SERVICE = "google.ads.googleads.v26.services.GoogleAdsService"
FAILURE_KEY = "google.ads.googleads.v26.errors.googleadsfailure-bin"
TYPES = {"Search": (ads_service.SearchGoogleAdsRequest, ads_service.SearchGoogleAdsResponse),
         "Mutate": (ads_service.MutateGoogleAdsRequest, ads_service.MutateGoogleAdsResponse)}


class Failure:
    """A recorded failure: a gRPC status, and the GoogleAdsFailure (a fixture) the API sends with it."""

    def __init__(self, status: grpc.StatusCode, fixture: str | None = None):
        self.status, self.fixture = status, fixture


class Slow:
    """A recorded answer that comes only after `delay` seconds."""

    def __init__(self, fixture: str, delay: float):
        self.fixture, self.delay = fixture, delay


class RecordedGoogleAds:
    """GoogleAdsService's Search and Mutate: each call gets the next recorded answer, a
    (method, fixture name or Failure) pair; what was asked is kept in `sent`."""

    def __init__(self):
        self.answers = []
        self.sent = []
        self._lock = threading.Lock()

    def expect(self, *answers):
        self.answers = list(answers)
        self.sent = []

    def handler(self, method: str):
        request_type, response_type = TYPES[method]

        def answer(request: bytes, context: grpc.ServicerContext) -> bytes:
            with self._lock:
                self.sent.append({"method": method, "request": request_type.deserialize(request),
                                  "metadata": dict(context.invocation_metadata())})
                want, recorded = self.answers.pop(0) if self.answers else (None, None)
            if want != method:
                context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"unexpected {method}, expected {want}")
            if isinstance(recorded, Failure):
                _fail(context, recorded)
            if isinstance(recorded, Slow):
                time.sleep(recorded.delay)
                recorded = recorded.fixture
            message = json_format.Parse((FIXTURES / "google" / recorded).read_text(), response_type.pb()())
            return message.SerializeToString()

        return grpc.unary_unary_rpc_method_handler(answer)


def _fail(context: grpc.ServicerContext, failure: Failure):
    if failure.fixture:
        recorded = json_format.Parse((FIXTURES / "google" / failure.fixture).read_text(),
                                     ads_errors.GoogleAdsFailure.pb()())
        context.set_trailing_metadata(((FAILURE_KEY, recorded.SerializeToString()),
                                       ("request-id", recorded.request_id)))
    context.abort(failure.status, "Request failed.")


def _certificate(directory: Path) -> tuple[bytes, bytes]:
    """A self-signed certificate for localhost, written where gRPC is told to find its roots."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
                   .not_valid_after(now + timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    (directory / "roots.pem").write_bytes(pem)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()), pem


@pytest.fixture(scope="session")
def google_tls(tmp_path_factory):
    """One certificate for the whole test process: gRPC reads its roots once per process, so
    every server this process starts (pytest-xdist may set the module's fixtures up more than
    once in one worker) must present the same one."""
    directory = tmp_path_factory.mktemp("google-ads-tls")
    key, certificate = _certificate(directory)
    os.environ["GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"] = str(directory / "roots.pem")
    yield key, certificate
    os.environ.pop("GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", None)


@pytest.fixture(scope="module")
def google_ads(google_tls):
    key, certificate = google_tls
    recorded = RecordedGoogleAds()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        SERVICE, {method: recorded.handler(method) for method in TYPES})])
    port = server.add_secure_port("localhost:0", grpc.ssl_server_credentials([(key, certificate)]))
    server.start()
    recorded.port = port
    yield recorded
    server.stop(0)


def google(server: RecordedGoogleAds, *answers, port: int | None = None, **changes) -> GooglePlatform:
    server.expect(*answers)
    client = GoogleAdsClient(credentials=Credentials(token="ya29.recorded-access-token"),
                             developer_token=DEVELOPER_TOKEN, login_customer_id="9876543210",
                             endpoint=f"localhost:{port or server.port}", version="v26", use_proto_plus=True)
    return GooglePlatform(settings(ad_platform="google", **changes), client=client)


def test_google_launch_makes_budget_campaign_ad_group_and_ad_in_one_mutate(google_ads):
    platform = google(google_ads, ("Search", "campaigns_none.json"), ("Search", "customer_usd.json"),
                      ("Mutate", "launch_mutated.json"))

    launched = platform.launch(launch())

    assert launched == LaunchedCampaign(platform_ref=GOOGLE_CAMPAIGN, state=RUNNING)
    find, currency, mutate = google_ads.sent
    assert find["request"].customer_id == CUSTOMER
    assert f"campaign.name LIKE '%[[]{REFERENCE}[]]'" in find["request"].query
    assert "FROM customer" in currency["request"].query
    budget, campaign, group, ad, *keywords = (json_format.MessageToDict(type(op).pb(op)) for op in
                                              mutate["request"].mutate_operations)
    # A search campaign serves only for its keywords: broad matches of the product's names.
    assert [k["adGroupCriterionOperation"]["create"] for k in keywords] == [
        {"adGroup": f"customers/{CUSTOMER}/adGroups/-3", "status": "ENABLED",
         "keyword": {"text": text, "matchType": "BROAD"}} for text in ("walnut desk lamp", "desk lamp")]
    assert budget["campaignBudgetOperation"]["create"]["amountMicros"] == "25000000"
    assert budget["campaignBudgetOperation"]["create"]["deliveryMethod"] == "STANDARD"
    created = campaign["campaignOperation"]["create"]
    assert (created["name"], created["status"], created["advertisingChannelType"]) == (
        f"Spring lamps [{REFERENCE}]", "ENABLED", "SEARCH")
    assert created["campaignBudget"] == f"customers/{CUSTOMER}/campaignBudgets/-1"
    assert created["targetSpend"] == {"cpcBidCeilingMicros": "1200000"}
    assert created["containsEuPoliticalAdvertising"] == "DOES_NOT_CONTAIN_EU_POLITICAL_ADVERTISING"
    assert group["adGroupOperation"]["create"]["campaign"] == f"customers/{CUSTOMER}/campaigns/-2"
    made = ad["adGroupAdOperation"]["create"]
    assert made["ad"]["finalUrls"] == [launch().landing_url]
    search_ad = made["ad"]["responsiveSearchAd"]
    assert [h["text"] for h in search_ad["headlines"]] == ["Walnut lamps, warm light", "Shop Now",
                                                           "Free returns for 30 days", "Hand-turned walnut desk lamps"]
    assert [d["text"] for d in search_ad["descriptions"]] == [launch().creative.primary_text,
                                                              "Free returns for 30 days"]


def test_google_calls_carry_the_developer_token_and_the_manager_account(google_ads):
    platform = google(google_ads, ("Search", "campaign_found.json"))

    platform.launch(launch())

    metadata = google_ads.sent[0]["metadata"]
    assert metadata["developer-token"] == DEVELOPER_TOKEN
    assert metadata["login-customer-id"] == "9876543210"
    assert metadata["authorization"] == "Bearer ya29.recorded-access-token"


def test_google_launch_again_with_the_same_reference_creates_nothing_new(google_ads):
    platform = google(google_ads, ("Search", "campaign_found.json"))

    launched = platform.launch(launch())

    assert launched == LaunchedCampaign(platform_ref=GOOGLE_CAMPAIGN, state=RUNNING)
    assert [sent["method"] for sent in google_ads.sent] == ["Search"]


def test_google_launch_is_refused_when_the_account_bills_in_another_currency(google_ads):
    platform = google(google_ads, ("Search", "campaigns_none.json"), ("Search", "customer_eur.json"))

    with pytest.raises(PlatformRefused) as refused:
        platform.launch(launch())

    assert "bills in EUR" in refused.value.detail
    assert [sent["method"] for sent in google_ads.sent] == ["Search", "Search"]  # nothing created


def test_google_pause_sets_the_campaign_paused(google_ads):
    platform = google(google_ads, ("Mutate", "paused.json"))

    assert platform.pause(GOOGLE_CAMPAIGN) == LaunchedCampaign(platform_ref=GOOGLE_CAMPAIGN, state=PAUSED)
    [operation] = google_ads.sent[0]["request"].mutate_operations
    sent = json_format.MessageToDict(type(operation).pb(operation))["campaignOperation"]
    assert sent == {"update": {"resourceName": f"customers/{CUSTOMER}/campaigns/{GOOGLE_CAMPAIGN}",
                               "status": "PAUSED"}, "updateMask": "status"}


def test_google_resume_sets_the_budget_and_enables_the_campaign_at_once(google_ads):
    platform = google(google_ads, ("Search", "campaign_budget.json"), ("Mutate", "resumed.json"))

    assert platform.resume(GOOGLE_CAMPAIGN, daily_budget_minor=4000) == LaunchedCampaign(
        platform_ref=GOOGLE_CAMPAIGN, state=RUNNING)
    budget, campaign = (json_format.MessageToDict(type(op).pb(op)) for op in
                        google_ads.sent[1]["request"].mutate_operations)
    assert budget["campaignBudgetOperation"] == {
        "update": {"resourceName": f"customers/{CUSTOMER}/campaignBudgets/14123456789", "amountMicros": "40000000"},
        "updateMask": "amountMicros"}
    assert campaign["campaignOperation"]["update"]["status"] == "ENABLED"


def test_google_delivery_maps_three_days_of_metrics(google_ads):
    platform = google(google_ads, ("Search", "delivery_three_days.json"))

    report = platform.delivery(GOOGLE_CAMPAIGN, since=date(2026, 12, 1), until=date(2026, 12, 3))

    assert report.days == (DayDelivery(date(2026, 12, 1), 1520, 38, 1234, "USD"),
                           DayDelivery(date(2026, 12, 2), 2104, 51, 1500, "USD"),
                           DayDelivery(date(2026, 12, 3), 987, 17, 751, "USD"))  # 7.505 rounds half up
    query = google_ads.sent[0]["request"].query
    assert f"campaign.id = {GOOGLE_CAMPAIGN}" in query
    assert "segments.date BETWEEN '2026-12-01' AND '2026-12-03'" in query
    assert "metrics.cost_micros" in query


@pytest.mark.parametrize("failure", [Failure(grpc.StatusCode.INTERNAL, "failure_internal.json"),
                                     Failure(grpc.StatusCode.RESOURCE_EXHAUSTED, "failure_quota.json"),
                                     Failure(grpc.StatusCode.UNAVAILABLE)])
def test_google_server_errors_and_quota_are_unavailable(google_ads, failure):
    platform = google(google_ads, ("Mutate", failure))

    with pytest.raises(PlatformUnavailable):
        platform.pause(GOOGLE_CAMPAIGN)


def test_google_transient_error_kind_is_unavailable_whatever_its_status(google_ads):
    platform = google(google_ads, ("Mutate", Failure(grpc.StatusCode.INVALID_ARGUMENT, "failure_transient.json")))

    with pytest.raises(PlatformUnavailable):
        platform.pause(GOOGLE_CAMPAIGN)


def test_google_call_past_the_timeout_is_unavailable(google_ads):
    # The answer would come, but only after AD_TIMEOUT_SECONDS: the call gives up first.
    platform = google(google_ads, ("Search", Slow("delivery_three_days.json", 1.5)), ad_timeout_seconds=1)

    with pytest.raises(PlatformUnavailable):
        platform.delivery(GOOGLE_CAMPAIGN, since=date(2026, 12, 1), until=date(2026, 12, 3))


def test_google_unreachable_is_unavailable(google_ads):
    with socket.socket() as free:  # a port nothing listens on once closed
        free.bind(("localhost", 0))
        port = free.getsockname()[1]
    platform = google(google_ads, port=port)

    with pytest.raises(PlatformUnavailable):
        platform.pause(GOOGLE_CAMPAIGN)


def test_google_refusal_carries_googles_words(google_ads):
    platform = google(google_ads, ("Search", "campaigns_none.json"), ("Search", "customer_usd.json"),
                      ("Mutate", Failure(grpc.StatusCode.INVALID_ARGUMENT, "failure_budget_too_low.json")))

    with pytest.raises(PlatformRefused) as refused:
        platform.launch(launch(daily_budget_minor=1))

    assert refused.value.reason == "ad_platform_refused"
    assert refused.value.detail == "The budget is below the minimum daily amount for this currency."
    assert DEVELOPER_TOKEN not in str(refused.value)


def test_google_refuses_a_reference_that_is_not_a_campaign_id(google_ads):
    platform = google(google_ads)

    with pytest.raises(PlatformRefused):
        platform.pause("customers/1/campaigns/2")
    assert google_ads.sent == []


def oauth(*answers) -> tuple[requests.Session, RecordedHttp]:
    """A requests session whose calls to Google's OAuth server answer recorded answers."""
    recorded = RecordedHttp("google", *answers)
    session = requests.Session()
    session.mount("https://oauth2.googleapis.com", recorded)
    return session, recorded


def test_google_client_is_made_from_the_settings_with_a_fresh_access_token():
    session, recorded = oauth(("POST", "/token", "oauth_token.json", 200))

    client = _client_for(settings(ad_platform="google"), session)

    assert (client.developer_token, client.login_customer_id) == (DEVELOPER_TOKEN, "9876543210")
    assert client.credentials.token == "ya29.a0AfRecordedAccessToken0000"
    [sent] = recorded.sent
    assert {k: sent["form"][k] for k in ("grant_type", "client_id", "client_secret", "refresh_token")} == {
        "grant_type": "refresh_token", "client_id": "client-id.apps.example", "client_secret": "client-secret-0000",
        "refresh_token": "1//refresh-token-0000"}
    assert sent["timeout"] == 7


def test_google_refused_refresh_token_is_a_refusal_with_googles_words():
    session, _ = oauth(("POST", "/token", "oauth_invalid_grant.json", 400))
    platform = GooglePlatform(settings(ad_platform="google"), oauth_http=session)

    with pytest.raises(PlatformRefused) as refused:
        platform.pause(GOOGLE_CAMPAIGN)

    assert refused.value.detail == "Google refused the OAuth credentials: invalid_grant: Token has been expired or revoked."
    assert "refresh-token-0000" not in str(refused.value) and "client-secret-0000" not in str(refused.value)


def test_google_unreachable_oauth_server_is_unavailable():
    session, _ = oauth(("POST", "/token", requests.ConnectionError("connection refused"), 0))
    platform = GooglePlatform(settings(ad_platform="google"), oauth_http=session)

    with pytest.raises(PlatformUnavailable):
        platform.delivery(GOOGLE_CAMPAIGN, since=date(2026, 12, 1), until=date(2026, 12, 3))


# --- Settings: required only when chosen -----------------------------------------------------

BASE = {"SECRET_KEY": "x" * 32}
META_ENV = {"META_ACCESS_TOKEN": META_TOKEN, "META_AD_ACCOUNT_ID": ACCOUNT, "META_PAGE_ID": PAGE}
GOOGLE_ENV = {"GOOGLE_ADS_DEVELOPER_TOKEN": DEVELOPER_TOKEN, "GOOGLE_ADS_CLIENT_ID": "client-id",
              "GOOGLE_ADS_CLIENT_SECRET": "client-secret", "GOOGLE_ADS_REFRESH_TOKEN": "1//refresh",
              "GOOGLE_ADS_CUSTOMER_ID": "123-456-7890"}


@pytest.mark.parametrize(("platform", "env", "missing"), [("meta", META_ENV, "META_ACCESS_TOKEN"),
                                                          ("meta", META_ENV, "META_PAGE_ID"),
                                                          ("google", GOOGLE_ENV, "GOOGLE_ADS_DEVELOPER_TOKEN"),
                                                          ("google", GOOGLE_ENV, "GOOGLE_ADS_REFRESH_TOKEN")])
def test_a_chosen_platforms_settings_are_required(platform, env, missing):
    without = {name: value for name, value in env.items() if name != missing}

    with pytest.raises(SettingsError, match=missing):
        load_settings({**BASE, "AD_PLATFORM": platform, **without})


def test_the_sandbox_requires_no_platform_settings():
    chosen = load_settings({**BASE, "AD_PLATFORM": "sandbox"})

    assert chosen.ad_platform == "sandbox"
    assert chosen.meta_access_token is None and chosen.google_ads_developer_token is None


def test_each_chosen_platform_is_made_from_its_settings_without_calling_it():
    meta_platform = platform_for(load_settings({**BASE, "AD_PLATFORM": "meta", **META_ENV}))
    google_platform = platform_for(load_settings({**BASE, "AD_PLATFORM": "google", **GOOGLE_ENV}))

    assert isinstance(meta_platform, MetaPlatform) and meta_platform.name == "meta"
    assert isinstance(google_platform, GooglePlatform) and google_platform.name == "google"
    assert META_TOKEN not in repr(meta_platform) and DEVELOPER_TOKEN not in repr(google_platform)
