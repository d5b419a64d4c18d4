"""Buying a domain for the founder's store (POST /api/domains/checkout): the registrar's
quote becomes a pending domain order (services/domains.py), paid through the provider; the
domain is connected to the store in the transaction that marks the payment paid."""
from __future__ import annotations

from models.db import transaction
from models.domain import DomainOrder
from models.payment import Payment
from models.session import Session
from services import domains
from services.commerce import payments


def start_domain_checkout(*, session: Session, domain) -> dict:
    """Orders a quoted domain and starts its payment."""
    order = domains.start_domain_order(session=session, domain=domain if isinstance(domain, str) else "")
    with transaction():
        payment = payments.new_payment(purpose=Payment.DOMAIN, subject=order.id, amount_minor=order.price_minor,
                                       currency=order.currency, session_id=session.id, account_id=session.account_id)
        DomainOrder.update(payment_id=payment.id).where(DomainOrder.id == order.id).execute()
    # When the provider cannot start, the payment fails and its `failed` step fails the order.
    url = payments.open_checkout(payment, description=f"Domain {order.domain}, one year")
    return {"status": "checkout_started", "domain_order_id": order.id, "domain": order.domain, "checkout_url": url,
            "amount_minor": order.price_minor, "currency": order.currency}


def _domain_paid(payment: Payment, _answer) -> None:
    if not domains.connect_paid_domain(domain_order_id=payment.subject):
        # Paid, but another store connected the name first: the money goes back (refunded
        # through the provider once this transaction commits).
        payments.owe_refund(payment)


def _domain_failed(payment: Payment) -> None:
    domains.fail_domain_order(domain_order_id=payment.subject)


def _domain_landing(payment: Payment, how: str) -> str:
    return f"/#/app/domains?payment={payment.id}" + ("&cancelled=1" if how == "cancelled" else "")


payments.purpose(Payment.DOMAIN, paid=_domain_paid, failed=_domain_failed, landing=_domain_landing)
