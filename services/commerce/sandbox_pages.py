"""The sandbox provider's own pages and API (served under /pay/sandbox/), for the routes
and the delivery job. This is the provider's side: it reads only the sandbox's tables."""
from __future__ import annotations

from typing import Mapping

from config import get_settings
from integrations.payments import PAID, ProviderRefused, ProviderUnavailable
from integrations.payments import sandbox_bank as bank
from models.clock import iso
from models.db import transaction
from services.commerce import shipping
from services.errors import Refused, TransientError
from services.jobs import create_job

NOTIFY_JOB = "sandbox_notify"
NOTIFY_PATH = "/pay/notify"


def sandbox_on() -> bool:
    return get_settings().payment_provider == "sandbox"


def checkout_page(checkout_id: str) -> dict | None:
    """What the hosted page shows (None: no such checkout here)."""
    if not sandbox_on():
        return None
    row = bank.find(checkout_id)
    if row is None:
        return None
    return {"id": row.id, "state": row.state, "amount_minor": row.amount_minor, "currency": row.currency,
            "description": row.description, "customer_email": row.customer_email, "logo_url": row.logo_url,
            "success_url": row.success_url, "cancel_url": row.cancel_url,
            # The countries the page offers for the shipping address ([]: it asks for none).
            "shipping_countries": shipping.countries(row.shipping_countries or ()),
            "shipping_lines": shipping.address_lines(row.shipping)}


def settle(checkout_id: str, action: str, form: Mapping | None = None) -> tuple[dict | None, object]:
    """The customer's choice on the hosted page. Answers the page's new state (None: no
    such checkout here) and the delivery job to send (None when nothing was settled).
    Paying a checkout that collects a shipping address checks the form's address first:
    Refused(`invalid_shipping_address`) names what is wrong, and nothing is settled."""
    if not sandbox_on():
        return None, None
    countries = bank.ships_to(checkout_id) if action == "pay" else None
    address = shipping.address_from_form(form or {}, countries) if countries else None
    try:
        row, event_id = bank.settle(checkout_id, action, shipping=address)
    except ProviderRefused:
        # The bank's own rule, should the page's check ever let an address through that it refuses.
        raise Refused("invalid_shipping_address") from None
    if row is None:
        return None, None
    job = None
    if event_id is not None:
        with transaction():
            job, _created = create_job(kind=NOTIFY_JOB, subject=f"sandbox:{event_id}", payload={"event_id": event_id},
                                       max_attempts=6)
    return checkout_page(checkout_id), job


def deliver(event_id: str) -> dict:
    """The delivery job's work: post the signed notification to the service's route."""
    settings = get_settings()
    try:
        taken = bank.deliver(event_id, notify_url=settings.base_url + NOTIFY_PATH,
                             key=bank.signing_secret(settings.secret_key), timeout=settings.payment_timeout_seconds)
    except ProviderUnavailable as exc:
        raise TransientError(str(exc)) from None
    return {"delivered": taken}


def state_api(checkout_id: str) -> dict:
    """The sandbox's state API: a checkout as the provider sees it."""
    row = bank.find(checkout_id) if sandbox_on() else None
    if row is None:
        raise Refused("not_found")
    return {"id": row.id, "object": "checkout", "state": row.state, "amount_minor": row.amount_minor,
            "currency": row.currency, "reference": row.reference,
            "payment_ref": row.payment_ref if row.state == PAID else None,
            "refunded_minor": row.refunded_minor, "created_at": iso(row.created_at), "expires_at": iso(row.expires_at),
            "shipping": row.shipping}
