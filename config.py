"""Settings: the environment is read here, once, into one frozen object.

Nothing else in the service reads os.environ. Every setting is listed in the README with
its default. A malformed or missing required setting raises SettingsError with one line
that names the setting; the entry points print that line and exit instead of starting.
"""
from __future__ import annotations

import os
import re
import secrets
import shlex
import subprocess
import sys
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

from config_values import SettingsError
from config_values import bool_value as _bool
from config_values import countries as _countries
from config_values import decimal_value as _decimal
from config_values import hosts as _hosts
from config_values import int_value as _int
from config_values import redact as _redact
from config_values import url_value as _url

# The log format lives beside the settings (logformat.py), and is named here as it always was.
from logformat import JsonLogFormatter, configure_logging  # noqa: F401

ROOT = Path(__file__).resolve().parent
VAR = ROOT / "var"


@dataclass(frozen=True)
class Settings:
    port: int = 8000
    host: str = "127.0.0.1"
    web_concurrency: int = 2
    web_threads: int = 8
    # Seconds gunicorn keeps an idle connection open for the next request. Longer than the
    # browser app's longest poll interval (api/static/app/*.js), so a poll never reuses a
    # connection the server is closing; behind a proxy, its upstream idle timeout must be
    # shorter than this.
    web_keepalive_seconds: int = 5
    database_url: str = f"sqlite:///{VAR / 'app.db'}"
    redis_url: str | None = None
    smtp_url: str | None = None
    base_url: str = "http://127.0.0.1:8000"
    secret_key: str = ""
    catalog_path: str = str(ROOT / "scripts" / "data" / "demo_catalog.jsonl")
    # The AI backend seam (integrations/ai): offline, openai (an OpenAI-compatible
    # chat-completions server) or command (a program answering on stdout).
    ai_backend: str = "offline"
    ai_base_url: str | None = None
    ai_model: str | None = None
    ai_api_key: str | None = field(default=None, repr=False)
    ai_command: str | None = None
    ai_timeout_seconds: int = 60
    billing_webhook_secret: str | None = None
    admin_password: str | None = None
    log_level: str = "INFO"
    worker_in_process: bool = False
    worker_threads: int = 4
    db_pool_size: int = 20
    db_pool_timeout: int = 10
    # How long a web request may wait on the database in all, and one operation of a job message
    # (models/db.py). Past it the request answers 503 database_unavailable.
    db_wait_seconds: int = 5
    worker_db_wait_seconds: int = 300
    # How long one Redis call may wait (connecting, then its answer): a web request's, and a
    # worker's or the clock's (integrations/redis_client.py). Past it a web request's job is
    # left for the reaper to send, and what needs Redis itself answers 503 queue_unavailable.
    redis_wait_seconds: int = 1
    worker_redis_wait_seconds: int = 10
    max_body_bytes: int = 1024 * 1024
    # Each worker process beats its row this often; ff_workers_alive counts a worker while its
    # last beat is at most two of these old, so a worker that died stops counting promptly.
    heartbeat_seconds: int = 5
    worker_stale_seconds: int = 60
    job_stale_seconds: int = 120
    # Worker pools (workers/worker.py, jobs/runner.py, workers/reaper.py): a running job's
    # lease (renewed every third of it while it works), how long a stopping worker lets its
    # running jobs finish, how long a silent worker may stay silent before what it took goes
    # back to the queue, and how often the reaper looks.
    job_lease_seconds: int = 15
    worker_shutdown_seconds: int = 30
    worker_lost_seconds: int = 10
    reaper_seconds: int = 5
    # Anonymous sessions that hold, claimed, metered and bound nothing are pruned past this age
    # (services/sessions.prune_anonymous_sessions, fired hourly by the clock).
    anon_session_days: int = 30
    # GET /metrics: public when true; otherwise loopback, or HTTP Basic with ADMIN_PASSWORD.
    metrics_public: bool = False
    # The exposition server of `dramatiq` worker processes (dramatiq's Prometheus middleware);
    # 0 = none. It binds 127.0.0.1, or every address when METRICS_PUBLIC is true.
    worker_metrics_port: int = 9191
    outbox_dir: str = str(VAR / "outbox")
    build: str = "dev"
    # Discovery: the evidence gate a product must clear to be served (services/evidence_gate.py),
    # and the discovery script that POST /api/discover runs (scripts/discover.py).
    evidence_min_rows: int = 2
    evidence_max_age_days: int = 540
    min_margin_pct: int = 20
    supplier_feed: str = str(ROOT / "scripts" / "data" / "supplier_feed.jsonl.gz")
    discover_timeout_seconds: int = 45
    discover_wait_seconds: int = 60
    discover_max_add: int = 25
    # Research: the documented settings of the offer (services/research/offer.py). Money is
    # in the product's own currency.
    offer_fee_pct: Decimal = Decimal("2.9")
    offer_fee_fixed: Decimal = Decimal("0.30")
    offer_shipping_flat: Decimal = Decimal("4.50")
    offer_shipping_per_kg: Decimal = Decimal("1.50")
    target_margin_pct: int = 30
    # The nightly research brief (services/brief.py): the UTC hour the clock fires it, and
    # how far back the first brief looks (later briefs start where the previous one ended).
    brief_hour_utc: int = 3
    brief_lookback_days: int = 7
    # Payments (integrations/payments): sandbox (served by the service itself under
    # /pay/sandbox/), stripe (Checkout Sessions) or off (no payment can start).
    payment_provider: str = "sandbox"
    stripe_secret_key: str | None = field(default=None, repr=False)
    stripe_webhook_secret: str | None = field(default=None, repr=False)
    payment_timeout_seconds: int = 10
    # Where a customer order may ship: the countries (ISO 3166-1 alpha-2) the provider's
    # checkout offers for the shipping address it collects (the sandbox's hosted page and
    # Stripe's shipping_address_collection.allowed_countries alike).
    shipping_countries: tuple[str, ...] = ("US", "CA", "GB", "IE", "FR", "DE", "NL", "BE", "LU", "AT", "CH", "ES",
                                           "PT", "IT", "DK", "SE", "NO", "FI", "PL", "CZ", "AU", "NZ", "JP", "SG")
    # Domains (integrations/registrar): sandbox (deterministic, offline).
    registrar: str = "sandbox"
    # Ads (integrations/ads): sandbox (delivers deterministically, offline), meta (the
    # Marketing API) or google (the Google Ads API); each real platform's settings are
    # required only when it is chosen, and its SDK comes from requirements-ads.txt.
    ad_platform: str = "sandbox"
    ad_timeout_seconds: int = 20
    meta_access_token: str | None = field(default=None, repr=False)
    meta_ad_account_id: str | None = None  # act_<digits>
    meta_page_id: str | None = None  # the Facebook Page the ads run as
    google_ads_developer_token: str | None = field(default=None, repr=False)
    google_ads_client_id: str | None = None
    google_ads_client_secret: str | None = field(default=None, repr=False)
    google_ads_refresh_token: str | None = field(default=None, repr=False)
    google_ads_customer_id: str | None = None  # ten digits, no dashes
    google_ads_login_customer_id: str | None = None  # a manager account's, when it manages the customer
    # The support desk's inbound mail (services/desk/inbound.py): a Maildir, or IMAP when set.
    inbound_maildir: str = str(VAR / "inbound")
    # True when INBOUND_MAILDIR is one folder every worker host sees (a shared mount): with
    # workers on several hosts, a folder local to each is read by some and not others.
    inbound_dir_shared: bool = False
    imap_url: str | None = field(default=None, repr=False)
    mail_poll_seconds: int = 60
    # Fix: hosts (host[:port]) its fetcher may reach although inward (test servers), follow-up delay.
    fix_allow_hosts: tuple[str, ...] = ()
    fix_follow_up_days: int = 7
    # Retention (services/retention.py): how long rows that grow with traffic are kept.
    job_retention_days: int = 7
    funnel_retention_days: int = 90
    fix_retention_days: int = 30
    expired_retention_days: int = 1
    # How long one hourly retention run may go on deleting before it stops (and reports what is
    # left); below the prune_retained job's own 600 s limit, which would otherwise cut it off.
    retention_budget_seconds: int = 300

    @property
    def embedded(self) -> bool:
        """True when no Redis is configured: broker and locks live in this process."""
        return not self.redis_url

    @property
    def database_backend(self) -> str:
        return "postgresql" if self.database_url.startswith("postgres") else "sqlite"

    @property
    def secure_cookies(self) -> bool:
        return self.base_url.startswith("https://")

    @property
    def origin(self) -> str:
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}"

    def but(self, **changes) -> Settings:
        """Returns a copy with some settings changed (tests build apps this way)."""
        return replace(self, **changes)


def _build_id() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=5)
        return out.stdout.strip() or "dev"
    except (OSError, subprocess.SubprocessError):
        return "dev"


def _secret_key(env, redis_url) -> str:
    key = env.get("SECRET_KEY", "")
    if key:
        if len(key) < 16:
            raise SettingsError("SECRET_KEY must be at least 16 characters long")
        return key
    if redis_url:
        # Several processes on several hosts must share one key, so it cannot be made up here.
        raise SettingsError("SECRET_KEY is required when REDIS_URL is set (several processes must share it)")
    # Embedded mode: one process, so a key kept under var/ survives restarts.
    path = VAR / "secret_key"
    if path.exists():
        return path.read_text().strip()
    VAR.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    path.write_text(key)
    path.chmod(0o600)
    return key


# The operators' password guards every founder's records (GET /admin) from the whole internet;
# even throttled (api/operator_auth.py) a short one falls to a patient guesser.
ADMIN_PASSWORD_MIN = 16


def _admin_password(env) -> str | None:
    """ADMIN_PASSWORD, at least ADMIN_PASSWORD_MIN characters; unset closes the operator pages."""
    password = env.get("ADMIN_PASSWORD") or None
    if password is not None and len(password) < ADMIN_PASSWORD_MIN:
        # The length only: the value itself never reaches an error message or a log.
        raise SettingsError(f"ADMIN_PASSWORD must be at least {ADMIN_PASSWORD_MIN} characters long, got "
                            f"{len(password)}; unset it to close the operator pages")
    return password


def load_settings(environ=None) -> Settings:
    """Reads the settings from the environment (and a .env file, if present)."""
    if environ is None:
        _load_dotenv()
        environ = os.environ
    env = dict(environ)
    port = _int(env, "PORT", 8000, 1, 65535)
    database_url = _url(env, "DATABASE_URL", Settings.database_url, ("sqlite", "postgresql", "postgres"))
    if database_url.startswith("sqlite") and not database_url.startswith("sqlite:///"):
        raise SettingsError(f"DATABASE_URL for SQLite must be sqlite:///absolute/path, got {database_url!r}")
    redis_url = _url(env, "REDIS_URL", None, ("redis", "rediss"))
    level = env.get("LOG_LEVEL", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise SettingsError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
    ai = _ai(env)
    return Settings(
        port=port,
        host=env.get("HOST") or "127.0.0.1",
        web_concurrency=_int(env, "WEB_CONCURRENCY", 2, 1, 256),
        web_threads=_int(env, "WEB_THREADS", 8, 1, 256),
        web_keepalive_seconds=_int(env, "WEB_KEEPALIVE_SECONDS", Settings.web_keepalive_seconds, 1, 3600),
        database_url=database_url,
        redis_url=redis_url,
        smtp_url=_url(env, "SMTP_URL", None, ("smtp", "smtps")),
        base_url=_url(env, "BASE_URL", f"http://127.0.0.1:{port}", ("http", "https")).rstrip("/"),
        secret_key=_secret_key(env, redis_url),
        catalog_path=env.get("CATALOG_PATH") or Settings.catalog_path,
        **ai,
        billing_webhook_secret=env.get("BILLING_WEBHOOK_SECRET") or None,
        admin_password=_admin_password(env),
        log_level=level,
        worker_in_process=_bool(env, "WORKER_IN_PROCESS", False),
        worker_threads=_int(env, "WORKER_THREADS", 4, 1, 64),
        db_pool_size=_int(env, "DB_POOL_SIZE", 20, 1, 500),
        db_pool_timeout=_int(env, "DB_POOL_TIMEOUT", 10, 1, 600),
        db_wait_seconds=_int(env, "DB_WAIT_SECONDS", Settings.db_wait_seconds, 1, 600),
        worker_db_wait_seconds=_int(env, "WORKER_DB_WAIT_SECONDS", Settings.worker_db_wait_seconds, 1, 3600),
        redis_wait_seconds=_int(env, "REDIS_WAIT_SECONDS", Settings.redis_wait_seconds, 1, 60),
        worker_redis_wait_seconds=_int(env, "WORKER_REDIS_WAIT_SECONDS", Settings.worker_redis_wait_seconds, 1, 600),
        max_body_bytes=_int(env, "MAX_BODY_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
        heartbeat_seconds=_int(env, "HEARTBEAT_SECONDS", Settings.heartbeat_seconds, 1, 3600),
        worker_stale_seconds=_int(env, "WORKER_STALE_SECONDS", 60, 2, 86400),
        job_stale_seconds=_int(env, "JOB_STALE_SECONDS", 120, 5, 86400),
        job_lease_seconds=_int(env, "JOB_LEASE_SECONDS", Settings.job_lease_seconds, 3, 3600),
        worker_shutdown_seconds=_int(env, "WORKER_SHUTDOWN_SECONDS", Settings.worker_shutdown_seconds, 1, 3600),
        worker_lost_seconds=_int(env, "WORKER_LOST_SECONDS", Settings.worker_lost_seconds, 3, 3600),
        reaper_seconds=_int(env, "REAPER_SECONDS", Settings.reaper_seconds, 1, 3600),
        anon_session_days=_int(env, "ANON_SESSION_DAYS", 30, 1, 3650),
        metrics_public=_bool(env, "METRICS_PUBLIC", False),
        worker_metrics_port=_int(env, "WORKER_METRICS_PORT", 9191, 0, 65535),
        outbox_dir=env.get("OUTBOX_DIR") or Settings.outbox_dir,
        build=env.get("BUILD_ID") or _build_id(),
        evidence_min_rows=_int(env, "EVIDENCE_MIN_ROWS", 2, 1, 50),
        evidence_max_age_days=_int(env, "EVIDENCE_MAX_AGE_DAYS", 540, 1, 36500),
        min_margin_pct=_int(env, "MIN_MARGIN_PCT", 20, 0, 99),
        supplier_feed=_supplier_feed(env),
        discover_timeout_seconds=_int(env, "DISCOVER_TIMEOUT_SECONDS", 45, 1, 3600),
        discover_wait_seconds=_int(env, "DISCOVER_WAIT_SECONDS", 60, 1, 600),
        discover_max_add=_int(env, "DISCOVER_MAX_ADD", 25, 1, 100000),
        offer_fee_pct=_decimal(env, "OFFER_FEE_PCT", Settings.offer_fee_pct, 0, 50),
        offer_fee_fixed=_decimal(env, "OFFER_FEE_FIXED", Settings.offer_fee_fixed, 0, 100),
        offer_shipping_flat=_decimal(env, "OFFER_SHIPPING_FLAT", Settings.offer_shipping_flat, 0, 10000),
        offer_shipping_per_kg=_decimal(env, "OFFER_SHIPPING_PER_KG", Settings.offer_shipping_per_kg, 0, 10000),
        target_margin_pct=_int(env, "TARGET_MARGIN_PCT", 30, 1, 90),
        brief_hour_utc=_int(env, "BRIEF_HOUR_UTC", 3, 0, 23),
        brief_lookback_days=_int(env, "BRIEF_LOOKBACK_DAYS", 7, 1, 3650),
        fix_follow_up_days=_int(env, "FIX_FOLLOW_UP_DAYS", Settings.fix_follow_up_days, 1, 90),
        job_retention_days=_int(env, "JOB_RETENTION_DAYS", Settings.job_retention_days, 1, 3650),
        # Never shorter than the longest window the store metrics report (90 days).
        funnel_retention_days=_int(env, "FUNNEL_RETENTION_DAYS", Settings.funnel_retention_days, 90, 3650),
        fix_retention_days=_int(env, "FIX_RETENTION_DAYS", Settings.fix_retention_days, 14, 3650),
        expired_retention_days=_int(env, "EXPIRED_RETENTION_DAYS", Settings.expired_retention_days, 1, 3650),
        retention_budget_seconds=_int(env, "RETENTION_BUDGET_SECONDS", Settings.retention_budget_seconds, 1, 540),
        **_payments(env),
        **_ads(env),
        **_inbound(env),
        fix_allow_hosts=_hosts(env, "FIX_ALLOW_HOSTS"),
    )


PAYMENT_PROVIDERS = ("sandbox", "stripe", "off")
REGISTRARS = ("sandbox",)


def _payments(env) -> dict:
    """The payment and registrar settings; stripe needs both of its keys."""
    provider = env.get("PAYMENT_PROVIDER") or "sandbox"
    if provider not in PAYMENT_PROVIDERS:
        raise SettingsError(f"PAYMENT_PROVIDER must be sandbox, stripe or off, got {provider!r}")
    secret = env.get("STRIPE_SECRET_KEY") or None
    webhook = env.get("STRIPE_WEBHOOK_SECRET") or None
    if provider == "stripe" and not secret:
        raise SettingsError("STRIPE_SECRET_KEY is required when PAYMENT_PROVIDER is stripe")
    if provider == "stripe" and not webhook:
        raise SettingsError("STRIPE_WEBHOOK_SECRET is required when PAYMENT_PROVIDER is stripe")
    registrar = env.get("REGISTRAR") or "sandbox"
    if registrar not in REGISTRARS:
        raise SettingsError(f"REGISTRAR must be sandbox, got {registrar!r}")
    return {"payment_provider": provider, "stripe_secret_key": secret, "stripe_webhook_secret": webhook,
            "payment_timeout_seconds": _int(env, "PAYMENT_TIMEOUT_SECONDS", 10, 1, 120), "registrar": registrar,
            "shipping_countries": _countries(env, "SHIPPING_COUNTRIES", Settings.shipping_countries)}


AD_PLATFORMS = ("sandbox", "meta", "google")
_META_REQUIRED = ("META_ACCESS_TOKEN", "META_AD_ACCOUNT_ID", "META_PAGE_ID")
_GOOGLE_REQUIRED = ("GOOGLE_ADS_DEVELOPER_TOKEN", "GOOGLE_ADS_CLIENT_ID", "GOOGLE_ADS_CLIENT_SECRET",
                    "GOOGLE_ADS_REFRESH_TOKEN", "GOOGLE_ADS_CUSTOMER_ID")


def _ads(env) -> dict:
    """AD_PLATFORM and the chosen platform's settings (required only for it)."""
    platform = env.get("AD_PLATFORM") or "sandbox"
    if platform not in AD_PLATFORMS:
        raise SettingsError(f"AD_PLATFORM must be sandbox, meta or google, got {platform!r}")
    required = {"meta": _META_REQUIRED, "google": _GOOGLE_REQUIRED}.get(platform, ())
    for name in required:
        if not env.get(name):
            raise SettingsError(f"{name} is required when AD_PLATFORM is {platform}")
    account = env.get("META_AD_ACCOUNT_ID") or None
    if account is not None and not re.fullmatch(r"act_\d{1,20}", account):
        raise SettingsError(f"META_AD_ACCOUNT_ID must be act_ followed by digits, got {account!r}")
    customers = {name: (env.get(name) or "").replace("-", "") or None
                 for name in ("GOOGLE_ADS_CUSTOMER_ID", "GOOGLE_ADS_LOGIN_CUSTOMER_ID")}
    for name, value in customers.items():
        if value is not None and not re.fullmatch(r"\d{10}", value):
            raise SettingsError(f"{name} must be ten digits (dashes allowed), got {env.get(name)!r}")
    return {"ad_platform": platform, "ad_timeout_seconds": _int(env, "AD_TIMEOUT_SECONDS", 20, 1, 120),
            "meta_access_token": env.get("META_ACCESS_TOKEN") or None, "meta_ad_account_id": account,
            "meta_page_id": env.get("META_PAGE_ID") or None,
            "google_ads_developer_token": env.get("GOOGLE_ADS_DEVELOPER_TOKEN") or None,
            "google_ads_client_id": env.get("GOOGLE_ADS_CLIENT_ID") or None,
            "google_ads_client_secret": env.get("GOOGLE_ADS_CLIENT_SECRET") or None,
            "google_ads_refresh_token": env.get("GOOGLE_ADS_REFRESH_TOKEN") or None,
            "google_ads_customer_id": customers["GOOGLE_ADS_CUSTOMER_ID"],
            "google_ads_login_customer_id": customers["GOOGLE_ADS_LOGIN_CUSTOMER_ID"]}


def _inbound(env) -> dict:
    """INBOUND_MAILDIR (relative to the repository) and whether it is shared by every host
    (INBOUND_DIR_SHARED), IMAP_URL (imaps://user:pass@host/FOLDER; imap:// on loopback only,
    as it sends the password in clear) and MAIL_POLL_SECONDS."""
    imap = _url(env, "IMAP_URL", None, ("imap", "imaps"))
    parts = urlsplit(imap or "imaps://u:p@localhost")
    if not (parts.hostname and parts.username and parts.password is not None and _http_url(f"http://{parts.netloc}")
            and (parts.scheme == "imaps" or parts.hostname in ("127.0.0.1", "localhost", "::1"))):
        raise SettingsError(f"IMAP_URL must be imaps://user:password@host/FOLDER (imap:// only on this machine), "
                            f"got {_redact(imap)!r}")
    return {"inbound_maildir": str(ROOT / env["INBOUND_MAILDIR"]) if env.get("INBOUND_MAILDIR") else
            Settings.inbound_maildir, "imap_url": imap,
            "inbound_dir_shared": _bool(env, "INBOUND_DIR_SHARED", False),
            "mail_poll_seconds": _int(env, "MAIL_POLL_SECONDS", Settings.mail_poll_seconds, 5, 86400)}


AI_BACKENDS = ("offline", "openai", "command")


def _ai(env) -> dict:
    """The AI settings; what the chosen backend needs must be there, and well formed."""
    backend = env.get("AI_BACKEND") or "offline"
    if backend not in AI_BACKENDS:
        raise SettingsError(f"AI_BACKEND must be offline, openai or command, got {backend!r}")
    base_url = env.get("AI_BASE_URL") or None
    if base_url and not _http_url(base_url):
        raise SettingsError(f"AI_BASE_URL must be an http:// or https:// URL with a host, got {_redact(base_url)!r}")
    model = (env.get("AI_MODEL") or "").strip() or None
    command = (env.get("AI_COMMAND") or "").strip() or None
    if command:
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise SettingsError(f"AI_COMMAND is not a valid command line ({exc})") from None
        if not words:
            command = None
    if backend == "openai" and not base_url:
        raise SettingsError("AI_BASE_URL is required when AI_BACKEND is openai (e.g. http://127.0.0.1:11434/v1)")
    if backend == "openai" and not model:
        raise SettingsError("AI_MODEL is required when AI_BACKEND is openai (the model name the server knows)")
    if backend == "command" and not command:
        raise SettingsError("AI_COMMAND is required when AI_BACKEND is command (the program to run)")
    return {"ai_backend": backend, "ai_base_url": base_url, "ai_model": model,
            "ai_api_key": env.get("AI_API_KEY") or None, "ai_command": command,
            "ai_timeout_seconds": _int(env, "AI_TIMEOUT_SECONDS", 60, 1, 600)}


def _http_url(raw: str) -> bool:
    try:
        parts = urlsplit(raw)
        _ = parts.port  # reading it raises ValueError for a port that is not a number up to 65535
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _supplier_feed(env) -> str:
    """SUPPLIER_FEED: an http(s) URL, or a file or folder (relative paths are from the repository root)."""
    raw = env.get("SUPPLIER_FEED")
    if raw is None or raw == "":
        return Settings.supplier_feed
    if "://" in raw:
        return _url(env, "SUPPLIER_FEED", None, ("http", "https"))
    path = Path(raw) if Path(raw).is_absolute() else ROOT / raw
    if not path.exists():
        raise SettingsError(f"SUPPLIER_FEED must be an http(s) URL or an existing file or folder, got {raw!r}")
    return str(path)


def _load_dotenv():
    path = ROOT / ".env"
    if path.exists():
        from dotenv import load_dotenv

        load_dotenv(path, override=False)


_settings: Settings | None = None


def get_settings() -> Settings:
    """The process's settings, read on first use; an entry point may install others first."""
    global _settings
    if _settings is None:
        _settings = load_settings()
    return _settings


def use_settings(settings: Settings) -> Settings:
    """Installs the settings this process runs with (the app factory and tests call this)."""
    global _settings
    _settings = settings
    return settings


def settings_or_exit() -> Settings:
    """For entry points: the settings, or one clear line on stderr and exit status 2."""
    try:
        return get_settings()
    except SettingsError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
