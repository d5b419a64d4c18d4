"""The billing provider's messages: checking their signature, and setting an account's plan
from a plan.changed event exactly once per event id.

The provider signs `"{t}." + raw body` with HMAC-SHA256 under the shared secret and sends
`Billing-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]`. Several v1 values let the
provider sign with an old and a new secret while the secret is being rotated. The
timestamp window bounds how long a captured message can be replayed; within it, the event
id (the primary key of BillingEvent) makes a replay harmless.
"""
from __future__ import annotations

import logging
from datetime import UTC, datetime

from integrations import signatures
from models.account import Account, BillingEvent
from models.clock import clock, iso, utcnow
from models.db import transaction
from services.accounts import normalize_email
from services.errors import Refused
from services.reasons import sentence

log = logging.getLogger("services.billing")

SIGNATURE_HEADER = "Billing-Signature"
WINDOW_SECONDS = 300  # a signature's timestamp may be this far behind or ahead of our clock
PLAN_CHANGED = "plan.changed"



def sign(*, secret: str, timestamp: int, payload: bytes) -> str:
    """The v1 signature of a payload sent at `timestamp` (hex HMAC-SHA256)."""
    return signatures.sign(key=secret.encode("utf-8"), timestamp=timestamp, payload=payload)


def verify_signature(*, secret: str | None, header: str | None, payload: bytes) -> None:
    """Accepts a message signed with the secret within the time window; refuses anything else.

    The checks run in the order decisions.md fixes: billing unconfigured, then unsigned,
    then a malformed, stale, future or wrong signature.
    """
    if not secret:
        raise Refused("billing_unconfigured", "Billing is not configured on this service (BILLING_WEBHOOK_SECRET "
                                              "is unset), so the message was not read and nothing changed.")
    if header is None:
        raise Refused("unsigned_callback", f"The message has no {SIGNATURE_HEADER} header, so it was not read "
                                           "and nothing changed.")
    timestamp, candidates = signatures.parse_header(header)
    if timestamp is None or not candidates:
        raise Refused("bad_signature", f"The {SIGNATURE_HEADER} header must read t=<unix seconds>,v1=<hex "
                                       "HMAC-SHA256>; nothing changed.")
    if abs(clock.time() - timestamp) > WINDOW_SECONDS:
        raise Refused("bad_signature", f"The signature's timestamp is more than {WINDOW_SECONDS} seconds away from "
                                       "the service's clock, so the message was refused and nothing changed.")
    if not signatures.matches(key=secret.encode("utf-8"), timestamp=timestamp, payload=payload,
                              candidates=candidates):
        raise Refused("bad_signature", "No signature in the message matches its body under the service's secret, "
                                       "so it was refused and nothing changed.")


def ignored(*, event_id: str, reason: str) -> dict:
    """The answer for a well-signed event that the service acknowledges without acting on."""
    log.info("billing event ignored", extra={"fields": {"event_id": event_id, "reason": reason}})
    return {"status": "ignored", "event_id": event_id, "reason": reason, "explanation": sentence(reason)}


def receive_event(*, event_id: str, type: str, data: dict, created: int | None) -> dict:
    """Acts on one signed event: a plan change is applied, any other type acknowledged."""
    if type != PLAN_CHANGED:
        return ignored(event_id=event_id, reason="unknown_event_type")
    when = datetime.fromtimestamp(created, tz=UTC) if created is not None else None
    return apply_plan_change(event_id=event_id, email=data["email"], tier=data["tier"],
                             term_ends_at=data["term_ends_at"], created=when)


def apply_plan_change(*, event_id: str, email: str, tier: str, term_ends_at: datetime | None,
                      created: datetime | None = None) -> dict:
    """Sets the plan of the account with this email from one provider event, once per event
    id, unless the plan in force comes from a newer event (`created`: when the provider made
    the event; arrival time when it does not say)."""
    if tier not in Account.TIERS:
        raise Refused("unknown_tier", f"The tier must be one of {', '.join(Account.TIERS)}; nothing changed.")
    # Free has no end date (spec 8.2), whatever the event says.
    ends = None if tier == Account.FREE else _naive_utc(term_ends_at)
    with transaction():
        account = _account_by_email(email)
        if account is None:
            # Not recorded: once the account exists, the provider can send the event again
            # and it applies.
            log.warning("billing event names no account", extra={"fields": {"event_id": event_id}})
            return ignored(event_id=event_id, reason="unknown_account")
        # The event id is the primary key: of any number of concurrent deliveries, one
        # inserts the row and applies the plan in this same transaction; the others insert
        # nothing (waiting, on PostgreSQL, for the first to commit) and change nothing.
        inserted = (BillingEvent.insert(event_id=event_id, account=account.id, tier=tier, received_at=utcnow())
                    .on_conflict_ignore().as_rowcount().execute())
        if not inserted:
            log.info("billing event replayed", extra={"fields": {"event_id": event_id}})
            return {"status": "duplicate", "event_id": event_id}
        occurred = _naive_utc(created) or utcnow()
        # Providers retry and reorder: a late older event is recorded (its replays stay
        # duplicates) but cannot overwrite a plan set by a newer one.
        changed = (Account.update(tier=tier, term_ends_at=ends, plan_changed_at=occurred)
                   .where(Account.id == account.id,
                          Account.plan_changed_at.is_null() | (Account.plan_changed_at <= occurred))
                   .execute())
        if not changed:
            log.info("billing event older than the plan in force", extra={"fields": {"event_id": event_id}})
            return {"status": "stale", "event_id": event_id,
                    "explanation": "A newer plan change is already in force, so this older one changed nothing."}
    log.info("billing event applied", extra={"fields": {"event_id": event_id, "account_id": account.id, "tier": tier}})
    return {"status": "applied", "event_id": event_id, "tier": tier, "term_ends_at": iso(ends)}


def _account_by_email(email: str) -> Account | None:
    try:
        address = normalize_email(email, reason="invalid_email")
    except Refused:
        return None  # no account can have an address of that shape
    return Account.get_or_none(Account.email == address)


def _naive_utc(moment: datetime | None) -> datetime | None:
    """Naive UTC, as every time is stored; a time without an offset is read as UTC."""
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)
