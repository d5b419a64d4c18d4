"""The founder's business settings and payout destination (GET, POST /api/settings/business
and /api/settings/payout; decisions.md "Desk, tasks and settings").

Settings: the five fields of spec 2.11 and the share of the support allowance the store's
visitors may use (issue 44), saved key by key (a key left out keeps its value; an empty
string clears an optional one). The support address customers write to is the local
part at the store's connected domain, so it exists only once a domain is connected; the
`support_address_set` launch fact reads it.

Payout: where the founder is paid. The whole account never reaches the database, an answer
or a log line: the row keeps its masked form, its last four characters and an HMAC
fingerprint keyed by SECRET_KEY (so saving the same account again is recognised). Payouts
themselves are made by the payment provider, where the founder gives the full details.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata

from email_validator import EmailNotValidError, validate_email

from config import get_settings
from models.business import BusinessSettings, PayoutDestination
from models.clock import iso, utcnow
from models.db import transaction
from models.session import Session
from services import founder_statements
from services.discovery import Resolved, resolve
from services.domains import connected_domain
from services.errors import Refused
from services.ownership import Owner, adopter, adoption_keys, owner_from_key, owner_of, session_key
from services.research.launch import launch_fact

AI_EMAIL_MODES = BusinessSettings.AI_EMAIL_MODES
PAYOUT_METHODS = PayoutDestination.METHODS
BANK, PAYPAL = PayoutDestination.BANK, PayoutDestination.PAYPAL
FIELDS = ("business_name", "support_email_local", "default_canned_subject", "default_canned_body", "ai_email_mode",
          "public_support_share")
# The percent of the founder's support allowance their store's visitors' questions may use
# (services/desk/public.py). At most 90, so the founder's own drafts and answers always keep
# a tenth of it at least.
MIN_SHARE, MAX_SHARE = 0, 90
MAX = {"business_name": 80, "support_email_local": 64, "default_canned_subject": 150, "default_canned_body": 5000}
DEFAULTS = {
    "business_name": None,
    "support_email_local": None,
    "default_canned_subject": "Re: your message",
    "default_canned_body": "Hello,\n\nThank you for writing to us. We have read your message and will get back to you "
                           "within one working day.\n\nBest wishes",
    "ai_email_mode": BusinessSettings.OFF,
    "public_support_share": 50,
}
# The words of a mailbox people can type and every mail host accepts: letters, digits and
# . _ + - (no leading, trailing or doubled dot).
LOCAL_PART = re.compile(r"^[a-z0-9_+-]+(?:\.[a-z0-9_+-]+)*$")
HOLDER_MAX = 120
# IBAN: two letters, two check digits, 11-30 letters or digits (ISO 13616); other bank
# accounts: 4 to 34 digits (US account numbers run 4-17, others up to the IBAN's length).
IBAN = re.compile(r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$")
ACCOUNT_DIGITS = re.compile(r"^[0-9]{4,34}$")
MASK = "••••"
# The canned body keeps its lines: only these are taken off its ends, and line breaks and tabs
# stay inside it (every other text is str.strip()ped and keeps no control character).
BODY_TRIM, BODY_KEEPS = "\n\r\t ", "\n\t"


# --- Settings ------------------------------------------------------------------------------

def settings_of(owner: Owner) -> dict:
    """The owner's settings, each field saved or its default, and the founder's statements of
    their policy (services/founder_statements.py) flat beside them."""
    row = BusinessSettings.get_or_none(BusinessSettings.owner == owner.key)
    return {**{name: (getattr(row, name) if row is not None else DEFAULTS[name]) for name in FIELDS},
            **founder_statements.from_row(row).values()}


def read(*, session: Session) -> dict:
    """GET /api/settings/business: the settings, the support address they make, and when they were saved."""
    owner = owner_of(session)
    row = BusinessSettings.get_or_none(BusinessSettings.owner == owner.key)
    settings = settings_of(owner)
    domain = _domain(owner, resolve(session))
    local = settings["support_email_local"]
    return {"status": "ok", "settings": settings, "support_email": f"{local}@{domain}" if local and domain else None,
            "domain": domain, "updated_at": iso(row.updated_at) if row is not None else None}


def save(*, session: Session, values: dict) -> dict:
    """POST /api/settings/business: saves the known fields given (checked first: one bad field saves nothing)."""
    owner = owner_of(session)
    changes = {name: _checked(name, values[name]) for name in FIELDS if name in values}
    changes.update(founder_statements.checked(values, founder_statements.of(owner.key)))
    now = utcnow()
    with transaction():
        (BusinessSettings.insert(owner=owner.key, session=session.id, account=session.account_id, updated_at=now,
                                 **{**DEFAULTS, **changes})
         .on_conflict(conflict_target=[BusinessSettings.owner],
                      update={**{getattr(BusinessSettings, k): v for k, v in changes.items()},
                              BusinessSettings.updated_at: now})
         .execute())
    return read(session=session)


def _checked(name: str, value):
    """A field's value as it is kept, or Refused `invalid_setting` naming the field."""
    if name == "ai_email_mode":
        if value not in BusinessSettings.AI_EMAIL_MODES:
            raise Refused("invalid_setting", "How the support agent answers mail must be off, draft (it drafts, you "
                                             "send) or auto (it answers what your store's facts back); nothing was "
                                             "saved.", field=name)
        return value
    if name == "public_support_share":
        if type(value) is not int or not MIN_SHARE <= value <= MAX_SHARE:
            raise Refused("invalid_setting", f"The share of your support assistant's allowance that visitors' "
                                             f"questions may use is a whole percent from {MIN_SHARE} to {MAX_SHARE}; "
                                             "nothing was saved.", field=name)
        return value
    if value is None:
        value = ""
    text = value.strip() if name != "default_canned_body" else value.strip(BODY_TRIM)
    if _has_controls(text, newlines=name == "default_canned_body"):
        raise Refused("invalid_setting", f"{_said(name).capitalize()} has characters that cannot be shown or sent; "
                                         "nothing was saved.", field=name)
    if len(text) > MAX[name]:
        raise Refused("invalid_setting", f"{_said(name).capitalize()} can be at most {MAX[name]} characters; "
                                         "nothing was saved.", field=name)
    if name == "support_email_local" and text:
        text = text.lower()
        if not LOCAL_PART.match(text):
            raise Refused("invalid_setting", "The support address's name can use letters, digits and . _ + - (no "
                                             "dot at either end or two together), like support or help.desk; "
                                             "nothing was saved.", field=name)
    if not text and name in ("default_canned_subject", "default_canned_body"):
        return DEFAULTS[name]  # a canned reply is never blank: clearing it puts the default back
    return text or None


def _said(name: str) -> str:
    return {"business_name": "the business name", "support_email_local": "the support address's name",
            "default_canned_subject": "the subject of the canned reply",
            "default_canned_body": "the text of the canned reply"}[name]


def _has_controls(text: str, *, newlines: bool = False) -> bool:
    allowed = set(BODY_KEEPS) if newlines else set()
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") and ch not in allowed for ch in text)


def _domain(owner: Owner, resolved: Resolved | None) -> str | None:
    return connected_domain(owner, resolved.claimed_product_id) if resolved is not None else None


def support_address(owner: Owner, resolved: Resolved | None) -> str | None:
    """The address customers write to (local part @ the store's connected domain), or None."""
    local = settings_of(owner)["support_email_local"]
    domain = _domain(owner, resolved)
    return f"{local}@{domain}" if local and domain else None


def store_business(owner_key: str, product_id: str) -> dict:
    """What the owner's store of `product_id` says of the business behind it, as a build
    writes it into the store document: {name (None: the store goes by its product's name),
    support_email (the support address, None until a domain is connected)}."""
    owner = owner_from_key(owner_key)
    settings = settings_of(owner)
    local, domain = settings["support_email_local"], connected_domain(owner, product_id)
    return {"name": settings["business_name"], "support_email": f"{local}@{domain}" if local and domain else None}


@launch_fact("support_address_set")
def _support_address_set(owner: Owner, resolved: Resolved | None) -> tuple[bool, str]:
    local = settings_of(owner)["support_email_local"]
    if not local:
        return False, "Choose the address your customers write to in Settings (support, say)."
    address = support_address(owner, resolved)
    if address is None:
        return False, (f"Your support address will be {local}@ your store's domain: connect a domain on the Domains "
                       "screen.")
    return True, f"Customers write to {address}."


# --- Payout --------------------------------------------------------------------------------

def payout(*, session: Session) -> dict:
    """GET /api/settings/payout: the destination, masked, or null when none is saved."""
    row = PayoutDestination.get_or_none(PayoutDestination.owner == owner_of(session).key)
    return {"status": "ok", "payout": _payout_answer(row)}


def save_payout(*, session: Session, method: str, holder: str, account: str) -> dict:
    """POST /api/settings/payout: checks and keeps the destination masked; the whole account is never stored."""
    owner = owner_of(session)
    holder = (holder or "").strip()
    if not holder or len(holder) > HOLDER_MAX or _has_controls(holder):
        raise Refused("invalid_payout", f"The account holder's name must be 1 to {HOLDER_MAX} characters; nothing "
                                        "was saved.", field="holder")
    normalised, masked = _normalised(method, account)
    fingerprint = hmac.new(get_settings().secret_key.encode(), f"{method}:{normalised}".encode(),
                           hashlib.sha256).hexdigest()
    now = utcnow()
    values = {"method": method, "holder": holder, "account_masked": masked, "last4": normalised[-4:],
              "fingerprint": fingerprint, "updated_at": now}
    with transaction():
        previous = PayoutDestination.get_or_none(PayoutDestination.owner == owner.key)
        (PayoutDestination.insert(owner=owner.key, session=session.id, account=session.account_id, **values)
         .on_conflict(conflict_target=[PayoutDestination.owner],
                      update={getattr(PayoutDestination, k): v for k, v in values.items()})
         .execute())
    row = PayoutDestination.get(PayoutDestination.owner == owner.key)
    return {"status": "ok", "payout": _payout_answer(row),
            "same_account": previous is not None and hmac.compare_digest(previous.fingerprint, fingerprint)}


def _normalised(method: str, account: str) -> tuple[str, str]:
    """(the account as compared, its masked form); Refused `invalid_payout` when it is not one."""
    raw = account or ""
    if method == PayoutDestination.PAYPAL:
        try:
            address = validate_email(raw.strip(), check_deliverability=False).normalized
        except EmailNotValidError:
            raise Refused("invalid_payout", "A PayPal payout needs the email address of your PayPal account; "
                                            "nothing was saved.", field="account") from None
        local, _, domain = address.rpartition("@")
        return address.lower(), f"{local[:1]}{MASK}@{domain}"
    compact = re.sub(r"[\s-]", "", raw).upper()
    if IBAN.match(compact):
        if _iban_remainder(compact) != 1:
            raise Refused("invalid_payout", "That IBAN's check digits do not match it: check it for a typing "
                                            "mistake; nothing was saved.", field="account")
    elif not ACCOUNT_DIGITS.match(compact):
        raise Refused("invalid_payout", "A bank payout needs an IBAN or an account number of 4 to 34 digits; "
                                        "nothing was saved.", field="account")
    return compact, f"{MASK} {compact[-4:]}"


def _iban_remainder(iban: str) -> int:
    """ISO 7064 MOD 97-10 over the IBAN (country and check digits moved to the end): 1 when valid."""
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97


def _payout_answer(row: PayoutDestination | None) -> dict | None:
    if row is None:
        return None
    return {"method": row.method, "holder": row.holder, "account_masked": row.account_masked, "last4": row.last4,
            "updated_at": iso(row.updated_at)}


# --- Adoption ------------------------------------------------------------------------------

# Each record with what the sign-in confirmation screen calls it.
_RECORDS = ((BusinessSettings, "business settings", "your business settings (name, support address, AI email mode)"),
            (PayoutDestination, "payout destination", "your payout destination"))


def _records_held(session_id: int) -> list[str]:
    key = session_key(session_id)
    return [held for model, _, held in _RECORDS if model.select().where(model.owner == key).exists()]


def _records_kept(session_id: int, account_id: int) -> list[str]:
    mine, theirs = adoption_keys(session_id, account_id)
    return [f"The account keeps its own {name}; the one set in this browser does not replace it."
            for model, name, _ in _RECORDS
            if model.select().where(model.owner == mine).exists() and model.select().where(model.owner == theirs).exists()]


@adopter(kind="business", held=_records_held, kept=_records_kept)
def adopt_business_records(session_id: int, account_id: int) -> dict:
    """A session's settings and payout become its account's when the account has none. An
    account's own settings and payout are never replaced by a sign-in (where payouts go and
    who answers support mail are the account's to change, on its own screens): the
    session's then stay behind with the session, which acts for the account from now on,
    so they are no longer used."""
    session_key_, account_key = adoption_keys(session_id, account_id)
    adopted = []
    for model, name in ((BusinessSettings, "business_settings"), (PayoutDestination, "payout")):
        if model.get_or_none(model.owner == session_key_) is None:
            continue
        if model.select().where(model.owner == account_key).exists():
            continue
        model.update(owner=account_key, account=account_id).where(model.owner == session_key_).execute()
        adopted.append(name)
    return {"business": adopted} if adopted else {}
