"""Upgrading a plan through the payment provider (the upgrade-start route, POST /pay/upgrade).

The price of a month of each paid tier is fixed here. A paid upgrade sets the plan through
the billing path that already exists (services.billing.apply_plan_change), keyed by the
payment, so the plan is set once however often the payment is confirmed.
"""
from __future__ import annotations

from datetime import timedelta

from models.account import Account
from models.clock import utcnow
from models.db import transaction
from models.payment import Payment
from models.session import Session
from services.billing import apply_plan_change
from services.commerce import payments
from services.errors import Refused
from services.plans import tier_label

# A month of each paid tier, in US cents.
PRICES_MINOR = {Account.PRO: 2000, Account.MAX5: 10000, Account.MAX20: 20000}
CURRENCY = "USD"
TERM = timedelta(days=30)


def start_upgrade(*, session: Session, tier) -> dict:
    """Starts paying for a month of a paid tier: answers `{status: checkout_started,
    payment_id, checkout_url, tier, amount_minor, currency}`."""
    if not payments.configured():
        raise Refused("billing_unconfigured", "Payments are not configured on this service (PAYMENT_PROVIDER is off), "
                                              "so no upgrade can start; your plan was not changed.")
    if tier not in PRICES_MINOR:
        raise Refused("unknown_tier", f"Upgrade to one of {', '.join(PRICES_MINOR)}; nothing changed.")
    with transaction():
        payment = payments.new_payment(purpose=Payment.UPGRADE, subject=tier, amount_minor=PRICES_MINOR[tier],
                                       currency=CURRENCY, session_id=session.id, account_id=session.account_id)
    url = payments.open_checkout(payment, description=f"{tier_label(tier)} plan, one month")
    return {"status": "checkout_started", "payment_id": payment.id, "checkout_url": url, "tier": tier,
            "amount_minor": payment.amount_minor, "currency": payment.currency}


def _upgrade_paid(payment: Payment, _answer) -> None:
    account = Account.get_or_none(Account.id == payment.account_id) if payment.account_id else None
    if account is None or not account.email:
        return
    apply_plan_change(event_id=f"payment:{payment.id}", email=account.email, tier=payment.subject,
                      term_ends_at=utcnow() + TERM, created=utcnow())


def _upgrade_failed(payment: Payment) -> None:
    """Nothing was bought, so nothing changes."""


def _upgrade_landing(payment: Payment, how: str) -> str:
    return f"/#/app/meter?payment={payment.id}" + ("&cancelled=1" if how == "cancelled" else "")


payments.purpose(Payment.UPGRADE, paid=_upgrade_paid, failed=_upgrade_failed, landing=_upgrade_landing)
