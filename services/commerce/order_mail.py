"""The mail after a sale: the customer's receipt and the founder's new-order notice.

The `order_mail` job (jobs/payments.py) sends both for one paid order. It is created in
the transaction that marks the order paid (services/commerce/orders._order_paid), under the
subject `receipt:<order id>`, and sent after that commit by the one confirmation that made
the order paid (the landing, GET /api/store/confirm, the notification job or the clock),
so however many confirmations race there is one job. Each mail is marked on the order
once the mail server took it (a conditional UPDATE), and a run sends only what is not
marked yet: a retry after the mailer was down, or a message delivered twice, sends nothing
again. Only a worker that dies between the server's acceptance and the mark can send one
twice, and a receipt sent twice is better than none.

The notice goes to the address of the account that claimed the product, once that account
is verified (an address saved but never proven may be anyone's, and the notice carries a
customer's name and address). A store whose founder has no verified account gets no notice:
the order is on their Orders screen all the same.

The receipt comes from the business: its name (the store's, as the version the customer
bought from says it) is the From address's name, and its Reply-To reaches the founder's desk
(the store's support address, else the order's reply address at the service's mail domain:
services/desk/inbound.py), so a customer's answer to it becomes a ticket.
"""
from __future__ import annotations

from config import get_settings
from integrations.mail import get_mailer
from models.account import Account
from models.clock import utcnow
from models.discovery import Claim
from models.payment import CustomerOrder
from models.store import Store, StoreVersion
from services.commerce.order_number import order_number
from services.commerce.shipping import address_lines, order_address
from services.day_words import day_words
from services.desk.inbound import order_reply_address, support_address_of
from services.mailing import send_mail
from services.money import display

ORDER_MAIL = "order_mail"

# What the founder and the thank-you page read of the receipt.
NOT_PAID, SENDING, SENT, REFUSED = "not_paid", "sending", "sent", "refused"


def mail_subject(order_id: str) -> str:
    """The job subject of an order's mail: one active job per order."""
    return f"receipt:{order_id}"


def receipt_state(order: CustomerOrder) -> str:
    """not_paid, sending (paid; the job has not mailed it yet), sent, or refused (the mail
    server refused the customer's address for good)."""
    if order.state != CustomerOrder.PAID:
        return NOT_PAID
    if order.receipt_sent_at is not None:
        return SENT
    return REFUSED if order.receipt_error else SENDING


def send_order_mail(order_id: str) -> dict:
    """Mails a paid order's receipt to the customer and its notice to the founder, each
    once; the job's result. Raises TransientError while the mailer cannot take mail."""
    order = CustomerOrder.get_or_none(CustomerOrder.id == order_id)
    if order is None or order.state != CustomerOrder.PAID:
        return {"receipt": "no_paid_order", "notice": "no_paid_order"}
    settings = get_settings()
    facts = _facts(order, settings.base_url)
    mailer = get_mailer(settings)
    return {"receipt": _receipt(order, facts, mailer), "notice": _notice(order, facts, mailer)}


def _receipt(order: CustomerOrder, facts: dict, mailer) -> str:
    if order.receipt_sent_at is not None:
        return "sent_before"
    if order.receipt_error:
        return "refused_before"
    outcome = _send_receipt(mailer, order, facts)
    if outcome == SENT:
        CustomerOrder.update(receipt_sent_at=utcnow()).where(CustomerOrder.id == order.id,
                                                            CustomerOrder.receipt_sent_at.is_null()).execute()
    else:
        CustomerOrder.update(receipt_error="mail_refused").where(CustomerOrder.id == order.id,
                                                                 CustomerOrder.receipt_error.is_null()).execute()
    return outcome


def _notice(order: CustomerOrder, facts: dict, mailer) -> str:
    if order.notice_sent_at is not None:
        return "sent_before"
    founder = founder_address(order.product_id)
    if founder is None:
        return "no_founder_account"
    outcome = _send(mailer, founder, "order_notice", facts)
    if outcome == SENT:
        CustomerOrder.update(notice_sent_at=utcnow()).where(CustomerOrder.id == order.id,
                                                           CustomerOrder.notice_sent_at.is_null()).execute()
    return outcome


def founder_address(product_id: str) -> str | None:
    """The verified address of the account that claimed the product (None: an anonymous
    founder, or an address not proven yet)."""
    row = (Account.select(Account.email).join(Claim, on=(Claim.account == Account.id))
           .where(Claim.product == product_id, Account.verified == True).first())  # noqa: E712
    return row.email if row else None


def _send(mailer, to: str, template: str, facts: dict, *, from_name: str | None = None,
          reply_to: str | None = None) -> str:
    """sent, or refused when the server refused the address for good; TransientError when
    the mailer cannot take mail now (the job tries again later)."""
    return SENT if send_mail(to, template, mailer=mailer, from_name=from_name, reply_to=reply_to, **facts) else REFUSED


def _send_receipt(mailer, order: CustomerOrder, facts: dict) -> str:
    """The receipt, from the business's name with a Reply-To that reaches its desk."""
    return _send(mailer, order.email, "order_receipt", facts, from_name=facts["store_name"],
                 reply_to=facts["answers_to"])


def _facts(order: CustomerOrder, base_url: str) -> dict:
    """What both mails say, from the order and the store version the customer bought from."""
    version = StoreVersion.get_or_none(StoreVersion.store == order.product_id,
                                       StoreVersion.number == order.store_version)
    document = version.document if version is not None and isinstance(version.document, dict) else {}
    business = document.get("business") if isinstance(document.get("business"), dict) else {}
    product = document.get("product") if isinstance(document.get("product"), dict) else {}
    product_name = _text(product.get("name")) or _text(business.get("name")) or order.product_id
    # Where the customer's answer reaches the desk now (the support address may have come or
    # changed since the version was built): the receipt says it and replies go to it.
    support = support_address_of(order.product_id)
    store = Store.get_or_none(Store.product == order.product_id)
    order_link = f"{base_url}/store/{store.slug}/thanks?order={order.id}" if store is not None else None
    return {
        "store_name": _text(business.get("name")) or product_name,
        "support_email": support,
        "answers_to": support or order_reply_address(order.id),
        "product_name": product_name,
        "quantity": order.quantity,
        "unit_price": display(order.unit_price_minor, order.currency),
        "amount": display(order.amount_minor, order.currency),
        "currency": order.currency,
        "order_id": order.id,
        "order_number": order_number(order.id),
        "paid_on": day_words(order.paid_at) if order.paid_at else "",
        "customer_email": order.email,
        "address_lines": address_lines(order_address(order)),
        "order_link": order_link,
        "orders_link": f"{base_url}/#/app/orders",
    }


def _text(value) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""
