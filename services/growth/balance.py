"""The ad balance (GET, POST /api/adbalance; decisions.md "Growth"): money a founder sets
aside for ads, topped up through the payment provider.

A top-up is one more payment purpose (`ad_topup`, services/commerce/payments.py):
- The top-up and its payment are committed before the provider is asked for a checkout.
- The balance moves only in the transaction that marks the payment paid (one conditional
  UPDATE there), which writes the top-up's one ledger entry; the entry's `topup` is unique,
  so however often the payment is confirmed (the landing, the provider's notification, the
  clock's re-check, all replayed) it is credited once.
- A declined, abandoned or expired checkout marks the top-up failed or expired: nothing is
  credited and it leaves the pending list.
- GET /api/adbalance/confirm, the old client-driven confirmation, is retired (410
  `legacy_checkout_retired`) and credits nothing, whatever its query says.
"""
from __future__ import annotations

import logging
import secrets

import peewee as pw

from models.ad_balance import AdLedgerEntry, AdTopup
from models.campaign_book import CampaignBook
from models.clock import iso, utcnow
from models.db import transaction
from models.payment import Payment
from models.session import Session
from services.commerce import payments
from services.errors import Refused
from services.money import display
from services.ownership import Owner, adopter, owner_of
from services.research.launch import launch_fact

log = logging.getLogger("services.growth.balance")

CURRENCY = "USD"
MIN_MINOR, MAX_MINOR = 500, 500_000
LEDGER_SHOWN = 100  # the newest entries answered; the balance counts them all
PENDING_SHOWN = 20


def balance(*, session: Session) -> dict:
    """The founder's ad balance, its ledger (newest first) and the top-ups still open."""
    owner = owner_of(session)
    total = _total(owner)
    entries = list(AdLedgerEntry.select().where(owner.owns(AdLedgerEntry))
                   .order_by(AdLedgerEntry.created_at.desc(), AdLedgerEntry.id.desc()).limit(LEDGER_SHOWN))
    ledger, after = [], total
    names = _campaign_names(owner) if any(entry.campaign for entry in entries) else {}
    for entry in entries:  # walking back from the balance now: what each entry left it at
        ledger.append({"id": entry.id, "kind": entry.kind, "amount_minor": entry.amount_minor, "balance_minor": after,
                       "topup_id": entry.topup, "created_at": iso(entry.created_at),
                       # A day's spend of a campaign: which one, and which day (its report's key ends with it).
                       # null for a campaign removed from the book since (the screen says so in words)
                       "campaign": names.get(entry.campaign) if entry.campaign else None,
                       "day": entry.delivery.rsplit(":", 1)[-1] if entry.delivery else None})
        after -= entry.amount_minor
    open_rows = (AdTopup.select(AdTopup, Payment.checkout_url)
                 .join(Payment, on=(Payment.id == AdTopup.payment))
                 .where(owner.owns(AdTopup), AdTopup.state == AdTopup.OPEN, Payment.checkout_url.is_null(False),
                        # Past this the checkout has long expired at the provider, even if no
                        # answer ever said so: it is nothing the founder can still pay.
                        AdTopup.created_at > utcnow() - payments.RECHECK_FOR)
                 .order_by(AdTopup.created_at.desc(), AdTopup.id.desc()).limit(PENDING_SHOWN).objects())
    pending = [{"topup_id": row.id, "amount_minor": row.amount_minor, "currency": row.currency,
                "checkout_url": row.checkout_url, "created_at": iso(row.created_at)} for row in open_rows]
    return {"status": "ok", "currency": CURRENCY, "balance_minor": total, "ledger": ledger, "pending": pending,
            "min_minor": MIN_MINOR, "max_minor": MAX_MINOR, "topups_available": payments.configured()}


def start_topup(*, session: Session, amount_minor) -> dict:
    """Opens a top-up of the ad balance and starts its payment: answers where to pay."""
    if not isinstance(amount_minor, int) or isinstance(amount_minor, bool):
        raise Refused("invalid_amount", "Give the top-up as a whole number of cents, such as 2500 for $25.00; nothing "
                                        "was charged.", min_minor=MIN_MINOR, max_minor=MAX_MINOR)
    if not MIN_MINOR <= amount_minor <= MAX_MINOR:
        raise Refused("amount_out_of_bounds", f"A top-up is at least {display(MIN_MINOR, CURRENCY)} and at most "
                                              f"{display(MAX_MINOR, CURRENCY)}; nothing was charged.",
                      min_minor=MIN_MINOR, max_minor=MAX_MINOR)
    if not payments.configured():
        raise Refused("payment_unavailable", "Payments are switched off on this service, so your ad balance cannot "
                                             "be topped up here; nothing was charged or recorded.")
    topup_id = secrets.token_hex(16)
    with transaction():
        payment = payments.new_payment(purpose=Payment.AD_TOPUP, subject=topup_id, amount_minor=amount_minor,
                                       currency=CURRENCY, session_id=session.id, account_id=session.account_id)
        AdTopup.create(id=topup_id, session=session.id, account=session.account_id, payment=payment.id,
                       amount_minor=amount_minor, currency=CURRENCY, state=AdTopup.OPEN, created_at=utcnow())
    try:
        # When the provider cannot start, the payment fails and its `failed` step fails the top-up.
        url = payments.open_checkout(payment, description=f"Ad balance top-up, {display(amount_minor, CURRENCY)}")
    except Refused as refusal:
        refusal.fields["topup_id"] = topup_id
        raise
    return {"status": "pending", "topup_id": topup_id, "checkout_url": url, "amount_minor": amount_minor,
            "currency": CURRENCY}


def retired_confirm() -> None:
    """The old client-driven confirmation: always refused, and never credits anything."""
    log.info("retired ad balance confirmation called")
    raise Refused("legacy_checkout_retired", "This old checkout link no longer adds to your ad balance, and nothing "
                                             "was added. Your balance grows only once the payment provider confirms a "
                                             "top-up: start one from your ad balance.")


def _campaign_names(owner: Owner) -> dict[str, str]:
    book = CampaignBook.get_or_none(CampaignBook.owner == owner.key)
    return {c["key"]: c["name"] for c in (book.campaigns if book else []) if c.get("key")}


def _total(owner: Owner) -> int:
    total = AdLedgerEntry.select(pw.fn.SUM(AdLedgerEntry.amount_minor)).where(owner.owns(AdLedgerEntry)).scalar()
    return int(total or 0)


# --- The payment purpose ---------------------------------------------------------------------

def _topup_paid(payment: Payment, _answer) -> None:
    # Runs once, in the transaction that marked the payment paid (services/commerce/payments.py).
    topup = AdTopup.get_or_none(AdTopup.payment == payment.id)
    if topup is None:
        log.error("paid ad top-up has no top-up row", extra={"fields": {"payment_id": payment.id}})
        return
    now = utcnow()
    # Paid even if an earlier answer had failed it: the provider holds the money now.
    AdTopup.update(state=AdTopup.PAID, paid_at=now).where(AdTopup.id == topup.id,
                                                          AdTopup.state != AdTopup.PAID).execute()
    # The unique `topup` column is the second guard: a top-up can have one credit only.
    AdLedgerEntry.insert(session=topup.session_id, account=topup.account_id, kind=AdLedgerEntry.TOPUP,
                         amount_minor=payment.amount_minor, currency=payment.currency, topup=topup.id,
                         created_at=now).on_conflict_ignore().execute()


def _topup_failed(payment: Payment) -> None:
    AdTopup.update(state=payment.state).where(AdTopup.payment == payment.id, AdTopup.state == AdTopup.OPEN).execute()


def _topup_landing(payment: Payment, how: str) -> str:
    return f"/#/app/growth?topup={payment.subject}" + ("&cancelled=1" if how == "cancelled" else "")


payments.purpose(Payment.AD_TOPUP, paid=_topup_paid, failed=_topup_failed, landing=_topup_landing)


def _ad_balance_held(session_id: int) -> list[str]:
    mine = Owner(session_id=session_id, account_id=None)
    lines = []
    total = _total(mine)
    if total:
        lines.append(f"your ad balance of {display(total, CURRENCY)}")
    started = AdTopup.select().where(mine.owns(AdTopup), AdTopup.state != AdTopup.PAID).count()
    if started:
        lines.append(f"{started} ad balance top-up{'' if started == 1 else 's'} not paid yet")
    return lines


@adopter(kind="ad_balance", held=_ad_balance_held)
def adopt_ad_balance(session_id: int, account_id: int) -> dict:
    """A session's top-ups and ledger become its account's (the balance is their sum)."""
    moved = (AdTopup.update(account=account_id)
             .where(AdTopup.session == session_id, AdTopup.account.is_null()).execute())
    (AdLedgerEntry.update(account=account_id)
     .where(AdLedgerEntry.session == session_id, AdLedgerEntry.account.is_null()).execute())
    return {"ad_topups": [moved]} if moved else {}


@launch_fact("ad_balance_funded")
def _ad_balance_funded(owner: Owner, _resolved) -> tuple[bool, str]:
    total = _total(owner)
    if total <= 0:
        return False, "Top up your ad balance on the Growth screen, so your ads have money to run on."
    topups = AdLedgerEntry.select().where(owner.owns(AdLedgerEntry), AdLedgerEntry.kind == AdLedgerEntry.TOPUP).count()
    return True, f"Your ad balance holds {display(total, CURRENCY)} from {topups} top-up{'s' if topups != 1 else ''}."
