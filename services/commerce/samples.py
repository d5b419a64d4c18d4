"""Samples: a founder buys a few units from a supplier before committing to an order
(POST /api/samples/checkout, GET /api/samples), paid through the payment provider.

The unit cost is the supplier's own in the supplier feed: its line for the founder's
product when it has one (the line the options list shows), else its cheapest line. A
sample is `paid` only when the provider says so; the `sample_ordered` launch fact reads
the paid rows.
"""
from __future__ import annotations

import secrets

from integrations import suppliers as feed
from integrations.payments import minor_units
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import transaction
from models.payment import Payment, SampleOrder
from models.session import Session
from services.commerce import payments
from services.discovery import resolve
from services.errors import Refused
from services.ownership import Owner, adopter, owner_of
from services.research.launch import launch_fact

MAX_QUANTITY = 10  # a sample, not a stock order


def _offer(supplier: str, product_id: str | None) -> feed.SupplierOption:
    """The supplier's line for the product (as the options list ranks it), else its cheapest."""
    try:
        known = feed.supplier_named(supplier) if supplier and supplier.strip() else None
        if known is None:
            raise Refused("unknown_supplier", "Name a supplier from the supplier options (GET /api/suppliers); "
                                              "no sample was ordered.")
        if product_id:
            product = Product.get_or_none(Product.product_id == product_id)
            for option in feed.options_for(product_id, name=product.name if product else None):
                if option.supplier == known:
                    return option
        return feed.offers_of(known)[0]
    except feed.SuppliersUnavailable as exc:
        raise Refused("suppliers_unavailable", f"{exc} No sample was ordered.") from None


def start_sample(*, session: Session, supplier, quantity) -> dict:
    """Opens a sample order from a supplier and starts its payment."""
    if not isinstance(quantity, int) or isinstance(quantity, bool) or not 1 <= quantity <= MAX_QUANTITY:
        raise Refused("invalid_quantity", f"A sample is 1 to {MAX_QUANTITY} units; no sample was ordered.")
    resolved = resolve(session)
    product_id = resolved.claimed_product_id if resolved else None
    offer = _offer(supplier if isinstance(supplier, str) else "", product_id)
    currency = offer.currency.upper()
    unit = minor_units(offer.unit_cost, currency)
    sample_id = secrets.token_hex(16)
    with transaction():
        payment = payments.new_payment(purpose=Payment.SAMPLE, subject=sample_id, amount_minor=unit * quantity,
                                       currency=currency, session_id=session.id, account_id=session.account_id)
        SampleOrder.create(id=sample_id, session=session.id, account=session.account_id, product=product_id,
                           supplier=offer.supplier, sku=offer.sku, quantity=quantity, unit_cost_minor=unit,
                           amount_minor=unit * quantity, currency=currency, payment=payment.id,
                           state=SampleOrder.OPEN, created_at=utcnow())
    try:
        url = payments.open_checkout(payment, description=f"Sample: {quantity} × {offer.name} from {offer.supplier}"[:300])
    except Refused as refusal:
        refusal.fields["sample_id"] = sample_id
        raise
    return {"status": "checkout_started", "sample_id": sample_id, "checkout_url": url,
            "amount_minor": unit * quantity, "currency": currency}


def samples(*, session: Session) -> dict:
    """The founder's sample orders, newest first."""
    rows = (SampleOrder.select().where(owner_of(session).owns(SampleOrder))
            .order_by(SampleOrder.created_at.desc(), SampleOrder.id.desc()).limit(100))
    found = [{"sample_id": row.id, "supplier": row.supplier, "sku": row.sku, "product_id": row.product_id,
              "quantity": row.quantity, "amount_minor": row.amount_minor, "currency": row.currency,
              "state": row.state, "created_at": iso(row.created_at), "paid_at": iso(row.paid_at)} for row in rows]
    if not found:
        return {"status": "no_samples_yet", "reason": "no_samples_yet", "samples": [],
                "explanation": "You have not ordered a sample yet: pick a supplier and order one."}
    return {"status": "ok", "samples": found}


def _sample_paid(payment: Payment, _answer) -> None:
    SampleOrder.update(state=SampleOrder.PAID, paid_at=utcnow()).where(SampleOrder.payment == payment.id).execute()


def _sample_failed(payment: Payment) -> None:
    SampleOrder.update(state=payment.state).where(SampleOrder.payment == payment.id,
                                                  SampleOrder.state == SampleOrder.OPEN).execute()


def _sample_landing(payment: Payment, how: str) -> str:
    return f"/#/app/suppliers?payment={payment.id}" + ("&cancelled=1" if how == "cancelled" else "")


payments.purpose(Payment.SAMPLE, paid=_sample_paid, failed=_sample_failed, landing=_sample_landing)


@adopter
def adopt_samples(session_id: int, account_id: int) -> dict:
    """A session's sample orders become its account's."""
    moved = (SampleOrder.update(account=account_id)
             .where(SampleOrder.session == session_id, SampleOrder.account.is_null()).execute())
    return {"samples": [moved]} if moved else {}


@launch_fact("sample_ordered")
def _sample_ordered(owner: Owner, resolved) -> tuple[bool, str]:
    paid = (SampleOrder.select().where(owner.owns(SampleOrder), SampleOrder.state == SampleOrder.PAID)
            .order_by(SampleOrder.paid_at.desc()).first())
    if paid is None:
        return False, "Order a sample from a supplier (Suppliers screen, POST /api/samples/checkout)."
    return True, f"{paid.quantity} sample unit(s) from {paid.supplier} paid."
