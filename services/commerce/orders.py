"""Customer orders in a founder's published store, and the revenue they bring.

An order is opened against the store's published version at that version's price (the
order row and its payment are committed before the customer leaves for the provider);
it is paid only when the provider says so (services/commerce/payments.py), and a paid
order credits its store's revenue once: one RevenueCredit per payment (its primary key)
and the running RevenueTotal, in the transaction that marks the payment paid. That
transaction also keeps the shipping address the provider's page collected and creates the
order's mail job (the receipt and the founder's notice: services/commerce/order_mail.py),
which the confirming caller sends after the commit.

An order is what a customer paid for: the founder's orders (GET /api/tracking `orders`, the
Orders screen, the assistant) are the paid ones, each with the profit it leaves at the
founder's offer (the unit cost of their connected supplier, shipping and payment fees:
services/research/offer.order_profit). A checkout a customer opened and did not pay is not
an order: it is listed apart (`checkouts`), open, declined or expired.
"""
from __future__ import annotations

import secrets

from config import get_settings
from integrations.payments import CheckoutState, ProviderUnavailable, major_units, minor_units
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import transaction
from models.discovery import Claim
from models.launch import ProductLaunch
from models.payment import CustomerOrder, Payment, RevenueCredit, RevenueTotal
from models.research import Research
from models.session import Session
from models.store import Store, StoreVersion
from services.accounts import normalize_email
from services.commerce import payments
from services.commerce.order_mail import ORDER_MAIL, mail_subject, receipt_state
from services.commerce.order_number import order_number
from services.commerce.shipping import address_lines, order_address
from services.errors import Refused, TransientError
from services.jobs import create_job
from services.ownership import Owner, owner_of
from services.research.launch import launch_fact
from services.research.offer import order_profit
from services.store.metrics import CAMPAIGN
from services.store.own import name_of
from services.store.state import page_source
from services.suppliers import priced_offer

MAX_QUANTITY = 99  # the buy box's own ceiling
# The job that closes a product's open checkouts once it is not on sale (subject: the product).
CLOSE_CHECKOUTS = "close_checkouts"
NOT_ON_SALE_ERROR = "closed: not on sale"  # a closed checkout's payment error: why it expired
MAX_TRACKING = 200


def _published(product_id: str | None) -> tuple[Store | None, dict | None]:
    """A store and the document of its published version ((store, None) unpublished)."""
    store = Store.get_or_none(Store.product == product_id) if product_id else None
    if store is None or store.published_version is None:
        return store, None
    return store, StoreVersion.get(StoreVersion.store == product_id, StoreVersion.number == store.published_version).document


def open_order(*, session: Session | None, product_id: str, quantity, email: str, campaign: str | None = None) -> dict:
    """Opens a customer's order in a published store and starts its payment: answers
    `{status: checkout_started, order_id, checkout_url}`. `campaign` is the utm_campaign the
    customer arrived by (kept when it is shaped like one: services/growth/delivery.py reads
    an ad campaign's paid orders by it)."""
    if not isinstance(quantity, int) or isinstance(quantity, bool) or not 1 <= quantity <= MAX_QUANTITY:
        raise Refused("invalid_quantity", f"quantity must be a whole number from 1 to {MAX_QUANTITY}; "
                                          "no order was opened.")
    address = normalize_email(email or "", reason="invalid_email")
    store, document = _published(product_id)
    if store is None and Product.get_or_none(Product.product_id == product_id) is None:
        raise Refused("unknown_product", "No store sells a product with that id; no order was opened.")
    if document is None:
        raise Refused("store_not_published")
    if not ProductLaunch.on_sale(product_id):
        raise Refused("product_not_on_sale")
    if document.get("checkout") is not True or not payments.configured() or not document.get("price"):
        raise Refused("payment_unavailable", "This store does not take payments right now, so no order was opened "
                                             "and nothing was charged.")
    currency = str(document["currency"]).upper()
    unit = minor_units(document["price"], currency)
    order_id = secrets.token_hex(16)
    with transaction():
        payment = payments.new_payment(purpose=Payment.ORDER, subject=order_id, amount_minor=unit * quantity,
                                       currency=currency, session_id=session.id if session else None, account_id=None)
        CustomerOrder.create(id=order_id, product=product_id, session=session.id if session else None, email=address,
                             quantity=quantity, unit_price_minor=unit, amount_minor=unit * quantity, currency=currency,
                             store_version=store.published_version, payment=payment.id, state=CustomerOrder.OPEN,
                             campaign=campaign if campaign and CAMPAIGN.fullmatch(campaign) else None,
                             created_at=utcnow())
    name = (document.get("product") or {}).get("name") or product_id
    try:
        url = payments.open_checkout(payment, description=f"{quantity} × {name}"[:300], customer_email=address,
                                     shipping_countries=get_settings().shipping_countries)
    except Refused as refusal:
        refusal.fields["order_id"] = order_id
        raise
    return {"status": "checkout_started", "order_id": order_id, "checkout_url": url}


def close_checkouts_job(product_id: str, stopped_at):
    """The job that closes the product's open checkouts (create it in the transaction that
    takes the product off sale, `stopped_at`; send it after the commit). One per stop: a
    job still running for an earlier stop may have read the open orders before a checkout
    opened while the product was resumed, so each stop has its own (closing is idempotent)."""
    job, created = create_job(kind=CLOSE_CHECKOUTS, subject=f"{product_id}@{iso(stopped_at)}",
                              payload={"product_id": product_id}, max_attempts=8)
    return job if created else None


def close_open_checkouts(product_id: str) -> tuple[dict, list]:
    """Closes, at the provider, the checkouts of the product's orders still open, once the
    product is not on sale (paused or retired): a customer who opened one before can no
    longer pay it (the sandbox's page says the shop closed it; Stripe's says it expired).
    Each order is then expired, its payment's error saying why; an order its customer paid
    before the close is paid, as any other. Does nothing while the product is on sale
    again (resumed before this ran). Answers the job's result and the jobs to send. Raises
    TransientError when the provider did not answer (the job tries again; what closed
    stays closed)."""
    if ProductLaunch.on_sale(product_id):
        return {"closed": 0, "on_sale": True}, []
    open_orders = (CustomerOrder.select(CustomerOrder.payment)
                   .where(CustomerOrder.product == product_id, CustomerOrder.state == CustomerOrder.OPEN,
                          CustomerOrder.payment.is_null(False))
                   .order_by(CustomerOrder.created_at, CustomerOrder.id))
    jobs, closed = [], 0
    for order in list(open_orders):
        try:
            jobs += payments.close(order.payment, why=NOT_ON_SALE_ERROR)
        except ProviderUnavailable as exc:
            raise TransientError(str(exc)) from None
        closed += 1
    return {"closed": closed}, jobs


def confirm_order(*, order_id: str) -> tuple[dict, list]:
    """Asks the provider about an order's payment (GET /api/store/confirm): paid once,
    credited once. A provider that does not answer leaves the order as it was. Answers the
    answer and the jobs to send."""
    order, answered, jobs = _confirmed(_order(order_id))
    answer = {"status": "ok", "order_id": order.id, "state": order.state, "product_id": order.product_id,
              "quantity": order.quantity, "amount_minor": order.amount_minor, "currency": order.currency,
              "paid_at": iso(order.paid_at), "provider_answered": answered}
    if not answered:
        answer["explanation"] = ("The payment provider did not answer in time, so the order is unchanged; "
                                 "ask again in a moment.")
    return answer, jobs


def _confirmed(order: CustomerOrder) -> tuple[CustomerOrder, bool, list]:
    """The order after asking the provider about an open one: (order, provider answered,
    jobs to send)."""
    if order.state != CustomerOrder.OPEN or not order.payment:
        return order, True, []
    _payment, answered, jobs = payments.confirm_quietly(order.payment)
    return CustomerOrder.get_by_id(order.id), answered, jobs


def _order(order_id) -> CustomerOrder:
    order = CustomerOrder.get_or_none(CustomerOrder.id == order_id) if isinstance(order_id, str) else None
    if order is None:
        raise Refused("order_not_found", "No order has that id.")
    return order


def _order_paid(payment: Payment, answer: CheckoutState) -> list:
    """The order's payment is paid: mark it, keep the address it ships to, credit its store
    and create its mail job, once (inside the transaction that marked the payment paid).
    Answers the job to send after the commit."""
    order = CustomerOrder.get_or_none(CustomerOrder.payment == payment.id)
    if order is None:
        return []
    now = utcnow()
    shipping = answer.shipping
    address = {} if shipping is None else {
        CustomerOrder.ship_name: shipping.name, CustomerOrder.ship_line1: shipping.line1,
        CustomerOrder.ship_line2: shipping.line2, CustomerOrder.ship_city: shipping.city,
        CustomerOrder.ship_region: shipping.region, CustomerOrder.ship_postal_code: shipping.postal_code,
        CustomerOrder.ship_country: shipping.country}
    CustomerOrder.update({CustomerOrder.state: CustomerOrder.PAID, CustomerOrder.paid_at: now, **address}).where(
        CustomerOrder.id == order.id).execute()
    # The subject names the order: should this step ever run again for it, the active job
    # is found, not a second one made (and the mail marks stop a finished one resending).
    job, created = create_job(kind=ORDER_MAIL, subject=mail_subject(order.id), payload={"order_id": order.id},
                              max_attempts=8)
    jobs = [job] if created else []
    credited = (RevenueCredit.insert(payment=payment.id, order=order.id, product=order.product_id,
                                     amount_minor=payment.amount_minor, currency=payment.currency, credited_at=now)
                .on_conflict_ignore().as_rowcount().execute())
    if not credited:
        return jobs  # the ledger already has it: the total has it too
    (RevenueTotal.insert(product=order.product_id, currency=payment.currency, confirmed_minor=payment.amount_minor,
                         orders=1, updated_at=now)
     .on_conflict(conflict_target=[RevenueTotal.product, RevenueTotal.currency],
                  update={RevenueTotal.confirmed_minor: RevenueTotal.confirmed_minor + payment.amount_minor,
                          RevenueTotal.orders: RevenueTotal.orders + 1, RevenueTotal.updated_at: now})
     .execute())
    return jobs


def _order_failed(payment: Payment) -> None:
    CustomerOrder.update(state=payment.state).where(CustomerOrder.payment == payment.id,
                                                    CustomerOrder.state == CustomerOrder.OPEN).execute()


def _order_landing(payment: Payment, how: str) -> str:
    order = CustomerOrder.get_or_none(CustomerOrder.payment == payment.id)
    store = Store.get_or_none(Store.product == order.product_id) if order else None
    if store is None:
        return "/"
    return f"/store/{store.slug}/thanks?order={order.id}" + ("&cancelled=1" if how == "cancelled" else "")


payments.purpose(Payment.ORDER, paid=_order_paid, failed=_order_failed, landing=_order_landing)


def _owned_products(session: Session):
    """The founder's stores: the products they claimed (a query of product ids)."""
    return Claim.select(Claim.product).where(owner_of(session).owns(Claim))


PROFIT_BASIS = ("An order's profit is its amount less, for each unit, your offer's unit cost (your connected "
                "supplier's, when you have one) and shipping, and less the payment fees on the amount at the offer's "
                "rates. It is not shown when the product has no offer yet or the order is in another currency.")


def tracking(*, session: Session, order_id: str | None = None, limit: int = 50) -> dict:
    """The founder's own orders, the paid ones, newest first, each with its profit, and the
    checkouts not paid listed apart (GET /api/tracking); one when `order_id` names it."""
    query = (CustomerOrder.select().where(CustomerOrder.product.in_(_owned_products(session)))
             .order_by(CustomerOrder.created_at.desc(), CustomerOrder.id.desc()))
    if order_id is not None:
        found = query.where(CustomerOrder.id == order_id).first()
        if found is None:
            raise Refused("order_not_found")
        paid, unpaid = ([found], []) if found.state == CustomerOrder.PAID else ([], [found])
    else:
        limit = max(1, min(limit, MAX_TRACKING))
        paid = list(query.where(CustomerOrder.state == CustomerOrder.PAID).limit(limit))
        unpaid = list(query.where(CustomerOrder.state != CustomerOrder.PAID).limit(limit))
    offers = _offers_of(owner_of(session), {order.product_id for order in paid})
    errors = _payment_errors(order for order in unpaid if order.state == CustomerOrder.EXPIRED)
    answer = {"status": "ok", "orders": [_order_row(order, offers.get(order.product_id)) for order in paid],
              "checkouts": [_order_row(order, None, errors.get(order.payment)) for order in unpaid],
              "profit_basis": PROFIT_BASIS}
    if not paid and order_id is None:
        started = f" {len(unpaid)} checkout{'s' if len(unpaid) != 1 else ''} started and not paid: not orders." \
            if unpaid else ""
        answer.update(status="no_orders_yet", reason="no_orders_yet",
                      explanation="No customer has paid for an order from your store yet." + started)
    return answer


def _offers_of(owner: Owner, product_ids: set[str]) -> dict[str, dict]:
    """Each product's offer as its founder reads it (priced with their connected supplier),
    for the products that have one."""
    if not product_ids:
        return {}
    rows = Research.select(Research.product, Research.offer).where(Research.product.in_(product_ids))
    return {row.product_id: priced_offer(owner, row.product_id, row.offer) for row in rows}


def _profit_minor(order: CustomerOrder, offer: dict | None) -> int | None:
    """What a paid order leaves at the founder's offer, in the order's minor units; None
    without an offer in the order's currency."""
    if order.state != CustomerOrder.PAID or offer is None or offer["currency"] != order.currency:
        return None
    amount = major_units(order.amount_minor, order.currency)
    return minor_units(order_profit(offer, quantity=order.quantity, amount=amount), order.currency)


# Why an expired checkout ended (`expired_because`), from its payment's error: the customer
# cancelled on the payment page, the shop closed it when the product went off sale, or its
# day ran out unpaid.
CANCELLED, NOT_ON_SALE, TIMED_OUT = "cancelled", "not_on_sale", "timed_out"


def expired_because(order, payment_error: str | None) -> str | None:
    """cancelled, not_on_sale or timed_out for an expired order or sample (a CustomerOrder or
    a SampleOrder: their states are the same words); None for any other."""
    if order.state != CustomerOrder.EXPIRED:
        return None
    return {payments.CANCELLED_BY_CUSTOMER: CANCELLED, NOT_ON_SALE_ERROR: NOT_ON_SALE}.get(payment_error, TIMED_OUT)


def _payment_errors(orders) -> dict[str, str | None]:
    """The payment errors of the orders, by payment id (one query)."""
    ids = [order.payment for order in orders if order.payment]
    if not ids:
        return {}
    return {row.id: row.error for row in Payment.select(Payment.id, Payment.error).where(Payment.id.in_(ids))}


def _order_row(order: CustomerOrder, offer: dict | None, payment_error: str | None = None) -> dict:
    shipping = order_address(order)
    return {"order_id": order.id, "order_number": order_number(order.id), "product_id": order.product_id,
            "product_name": name_of(order.product_id), "state": order.state,
            "expired_because": expired_because(order, payment_error), "email": order.email,
            "quantity": order.quantity, "unit_price_minor": order.unit_price_minor,
            "amount_minor": order.amount_minor, "profit_minor": _profit_minor(order, offer),
            "currency": order.currency, "store_version": order.store_version,
            "created_at": iso(order.created_at), "paid_at": iso(order.paid_at),
            "shipping": shipping, "shipping_lines": address_lines(shipping),
            "receipt": receipt_state(order), "receipt_sent_at": iso(order.receipt_sent_at)}


def revenue(*, session: Session) -> dict:
    """Confirmed revenue per store and currency (GET /api/revenue): one query, whatever the
    number of orders."""
    rows = (RevenueTotal.select().where(RevenueTotal.product.in_(_owned_products(session)))
            .order_by(RevenueTotal.product, RevenueTotal.currency))
    return {"status": "ok", "stores": [{"product_id": row.product_id, "product_name": name_of(row.product_id),
                                        "currency": row.currency,
                                        "confirmed_minor": row.confirmed_minor, "orders": row.orders} for row in rows]}


def thanks(*, slug: str, order_id: str) -> tuple[dict, dict, list]:
    """What the thank-you page of the store at `slug` shows for one of its orders (after
    asking the provider): the store's published document, the order, and the jobs to send.
    Anyone holding the order id may open the page, so it names the customer's address only
    masked and not where the order ships (as GET /api/store/confirm names neither).
    Refused(`not_found`) when the store is not published or the order is not one of its."""
    document = page_source(slug, session=None, preview=False)
    order = CustomerOrder.get_or_none(CustomerOrder.id == order_id)
    if order is None or order.product_id != document.get("product_id"):
        raise Refused("not_found")
    order, _answered, jobs = _confirmed(order)
    payment = Payment.get_or_none(Payment.id == order.payment) if order.state == CustomerOrder.EXPIRED else None
    return document, {"order_id": order.id, "number": order_number(order.id), "state": order.state,
                      "expired_because": expired_because(order, payment.error if payment else None),
                      "quantity": order.quantity,
                      "amount_minor": order.amount_minor, "currency": order.currency, "product_id": order.product_id,
                      "receipt": receipt_state(order), "email_masked": masked(order.email)}, jobs


def masked(email: str) -> str:
    """An address its owner recognises and a passer-by cannot read: "b…@example.com"."""
    local, _at, domain = email.partition("@")
    return f"{local[:1]}…@{domain}"


@launch_fact("payments_ready")
def _payments_ready(owner, resolved) -> tuple[bool, str]:
    if not payments.configured():
        return False, "Payments are switched off on this service, so no store takes orders."
    _store, document = _published(resolved.claimed_product_id if resolved is not None else None)
    if document is None:
        return False, "Publish your store: its buy box takes payments once it is published."
    if document.get("checkout") is not True:
        return False, "Your published store was built before payments were on: rebuild and publish it to open checkout."
    provider = get_settings().payment_provider
    return True, f"Checkout is open on your published store, through the {provider} payment provider."
