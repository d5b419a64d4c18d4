"""Samples: a founder buys a few units of one supplier's offer line before committing to an
order (POST /api/samples/checkout, GET /api/samples), paid through the payment provider.

The sample is of an offer line, supplier and SKU (services/suppliers.py `offer_line`): a
supplier offers many goods, and a sample of the supplier alone once bought a label maker
for a milk frother. Its price is that line's unit cost in the supplier feed, in the line's
currency; the order records supplier, SKU and what the line offers. A sample is `paid` only
when the provider says so; the `sample_ordered` launch fact reads the paid rows. An expired
one says why (`expired_because`), as a customer's checkout does (services/commerce/orders.py
`expired_because`): the founder cancelled on the payment page, or its day ran out unpaid.
"""
from __future__ import annotations

import secrets

import peewee as pw

from integrations.payments import minor_units
from models.clock import iso, utcnow
from models.db import transaction
from models.payment import Payment, SampleOrder
from models.session import Session
from services import suppliers
from services.commerce import payments
from services.commerce.orders import expired_because
from services.discovery import resolve
from services.errors import Refused
from services.ownership import Owner, adopter, owner_of
from services.research.launch import launch_fact

MAX_QUANTITY = 10  # a sample, not a stock order


def start_sample(*, session: Session, supplier, quantity, sku=None) -> dict:
    """Opens a sample order of one offer line and starts its payment."""
    if not isinstance(quantity, int) or isinstance(quantity, bool) or not 1 <= quantity <= MAX_QUANTITY:
        raise Refused("invalid_quantity", f"A sample is 1 to {MAX_QUANTITY} units; no sample was ordered.")
    resolved = resolve(session)
    product_id = resolved.claimed_product_id if resolved else None
    offer = suppliers.offer_line(supplier=supplier, sku=sku, product_id=resolved.product_id if resolved else None,
                                 connected=suppliers.connected_line(session))
    currency = offer.currency.upper()
    unit = minor_units(offer.unit_cost, currency)
    sample_id = secrets.token_hex(16)
    with transaction():
        payment = payments.new_payment(purpose=Payment.SAMPLE, subject=sample_id, amount_minor=unit * quantity,
                                       currency=currency, session_id=session.id, account_id=session.account_id)
        SampleOrder.create(id=sample_id, session=session.id, account=session.account_id, product=product_id,
                           supplier=offer.supplier, sku=offer.sku, name=offer.name[:suppliers.MAX_NAME_CHARS],
                           offers_product_id=offer.product_id, quantity=quantity, unit_cost_minor=unit,
                           amount_minor=unit * quantity, currency=currency, payment=payment.id,
                           state=SampleOrder.OPEN, created_at=utcnow())
    try:
        url = payments.open_checkout(payment, description=(f"Sample: {quantity} × {offer.name} from {offer.supplier} "
                                                           f"(SKU {offer.sku})")[:300])
    except Refused as refusal:
        refusal.fields["sample_id"] = sample_id
        raise
    return {"status": "checkout_started", "sample_id": sample_id, "checkout_url": url,
            "amount_minor": unit * quantity, "currency": currency, "supplier": offer.supplier, "sku": offer.sku}


def samples(*, session: Session) -> dict:
    """The founder's sample orders, newest first."""
    # The payment's error says why an expired one ended: read with the rows, one query.
    rows = (SampleOrder.select(SampleOrder, Payment.error.alias("payment_error"))
            .join(Payment, pw.JOIN.LEFT_OUTER, on=(SampleOrder.payment == Payment.id))
            .where(owner_of(session).owns(SampleOrder))
            .order_by(SampleOrder.created_at.desc(), SampleOrder.id.desc()).limit(100).objects())
    found = [{"sample_id": row.id, "supplier": row.supplier, "sku": row.sku, "name": row.name,
              "offers_product_id": row.offers_product_id, "product_id": row.product_id, "quantity": row.quantity,
              "amount_minor": row.amount_minor, "currency": row.currency, "state": row.state,
              "expired_because": expired_because(row, row.payment_error),
              "created_at": iso(row.created_at), "paid_at": iso(row.paid_at)} for row in rows]
    if not found:
        return {"status": "no_samples_yet", "reason": "no_samples_yet", "samples": [],
                "explanation": "You have not ordered a sample yet: connect a supplier's offer and order one."}
    return {"status": "ok", "samples": found}


def _sample_paid(payment: Payment, _answer) -> None:
    SampleOrder.update(state=SampleOrder.PAID, paid_at=utcnow()).where(SampleOrder.payment == payment.id).execute()


def _sample_failed(payment: Payment) -> None:
    SampleOrder.update(state=payment.state).where(SampleOrder.payment == payment.id,
                                                  SampleOrder.state == SampleOrder.OPEN).execute()


def _sample_landing(payment: Payment, how: str) -> str:
    return f"/#/app/suppliers?payment={payment.id}" + ("&cancelled=1" if how == "cancelled" else "")


payments.purpose(Payment.SAMPLE, paid=_sample_paid, failed=_sample_failed, landing=_sample_landing)


def _samples_held(session_id: int) -> list[str]:
    mine = Owner(session_id=session_id, account_id=None)
    return [f"your sample order from {row.supplier}"
            for row in SampleOrder.select(SampleOrder.supplier).where(mine.owns(SampleOrder)).order_by(SampleOrder.created_at)]


@adopter(kind="sample_orders", held=_samples_held)
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
        return False, "Order a sample of your supplier's offer on the Suppliers screen."
    line = f"{paid.supplier} ({paid.sku})" if paid.sku else paid.supplier
    return True, f"{paid.quantity} sample unit(s) from {line} paid."
