"""The sandbox provider's own pages and API (served under /pay/sandbox/), for the routes
and its jobs (delivering notifications, expiring checkouts). This is the provider's side: it reads
only the sandbox's tables."""
from __future__ import annotations

from collections.abc import Mapping
from functools import wraps

from config import get_settings
from integrations.payments import EXPIRED, OPEN, PAID, ProviderRefused, ProviderUnavailable
from integrations.payments import sandbox_bank as bank
from models.clock import iso
from models.db import transaction
from models.job import Job
from services.commerce import shipping
from services.errors import Refused, TransientError
from services.jobs import create_job

NOTIFY_JOB = "sandbox_notify"
NOTIFY_PATH = "/pay/notify"


def _database_away_is_unavailable(fn):
    """The bank keeps its records in the service's database and answers ProviderUnavailable
    when that cannot answer. On the provider's own pages and API that is the database being
    away: Refused(`database_unavailable`, 503), as every route answers then, never a 500."""

    @wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ProviderUnavailable:
            raise Refused("database_unavailable") from None

    return run


def sandbox_on() -> bool:
    return get_settings().payment_provider == "sandbox"


@_database_away_is_unavailable
def checkout_page(checkout_id: str) -> dict:
    """What the hosted page shows. Refused(`not_found`): no such checkout here."""
    row = bank.find(checkout_id) if sandbox_on() else None
    if row is None:
        raise Refused("not_found")
    return {"id": row.id, "state": bank.state_of(row), "amount_minor": row.amount_minor, "currency": row.currency,
            "description": row.description, "customer_email": row.customer_email, "logo_url": row.logo_url,
            "success_url": row.success_url, "cancel_url": row.cancel_url, "closed_by_shop": row.closed_by_shop,
            "cancelled": _cancelled(row),
            # The countries the page offers for the shipping address ([]: it asks for none).
            "shipping_countries": shipping.countries(row.shipping_countries or ()),
            "shipping_lines": shipping.address_lines(row.shipping)}


def _cancelled(row) -> bool:
    """The customer cancelled it ("Cancel and go back"): expired before its day was over, and
    not by the shop (the clock's expiry settles it only once the day is over)."""
    return (row.state == EXPIRED and not row.closed_by_shop and row.settled_at is not None
            and row.settled_at < row.expires_at)


@_database_away_is_unavailable
def settle(checkout_id: str, action: str, form: Mapping | None = None) -> tuple[str, Job | None]:
    """The customer's choice on the hosted page. Answers where the browser goes next (the
    success URL once paid, the cancel URL once declined or expired, the page itself while
    open) and the delivery job to send (None when nothing was settled). Paying a checkout
    that collects a shipping address checks the form's address first:
    Refused(`invalid_shipping_address`) names what is wrong, and nothing is settled.
    Refused(`not_found`): no such checkout here."""
    if not sandbox_on():
        raise Refused("not_found")
    countries = bank.ships_to(checkout_id) if action == "pay" else None
    address = shipping.address_from_form(form or {}, countries) if countries else None
    try:
        row, event_id = bank.settle(checkout_id, action, shipping=address)
    except ProviderRefused:
        # The bank's own rule, should the page's check ever let an address through that it refuses.
        raise Refused("invalid_shipping_address") from None
    if row is None:
        raise Refused("not_found")
    target = {PAID: row.success_url, OPEN: f"/pay/sandbox/checkout/{checkout_id}"}.get(bank.state_of(row),
                                                                                        row.cancel_url)
    return target, _notify_job(event_id) if event_id is not None else None


def expire_checkouts() -> list[Job]:
    """The clock's pass: expires the checkouts past their day and answers the delivery jobs
    of their `checkout.expired` notifications, to send (the path a paid one's takes)."""
    if not sandbox_on():
        return []
    return [_notify_job(event_id) for event_id in bank.expire_due()]


def _notify_job(event_id: str) -> Job:
    with transaction():
        job, _created = create_job(kind=NOTIFY_JOB, subject=f"sandbox:{event_id}", payload={"event_id": event_id},
                                   max_attempts=6)
    return job


def deliver(event_id: str) -> dict:
    """The delivery job's work: post the signed notification to the service's route."""
    settings = get_settings()
    try:
        taken = bank.deliver(event_id, notify_url=settings.base_url + NOTIFY_PATH,
                             key=bank.signing_secret(settings.secret_key), timeout=settings.payment_timeout_seconds)
    except ProviderUnavailable as exc:
        raise TransientError(str(exc)) from None
    return {"delivered": taken}


@_database_away_is_unavailable
def state_api(checkout_id: str) -> dict:
    """The sandbox's state API: a checkout as the provider sees it."""
    row = bank.find(checkout_id) if sandbox_on() else None
    if row is None:
        raise Refused("not_found")
    return {"id": row.id, "object": "checkout", "state": bank.state_of(row), "amount_minor": row.amount_minor,
            "currency": row.currency, "reference": row.reference,
            "payment_ref": row.payment_ref if row.state == PAID else None,
            "refunded_minor": row.refunded_minor, "created_at": iso(row.created_at), "expires_at": iso(row.expires_at),
            "shipping": row.shipping}
