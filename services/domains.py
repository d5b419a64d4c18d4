"""Domains for a founder's store (GET /api/domains, and the orders a domain payment settles).

Suggestions and quotes come from the registrar (integrations/registrar, REGISTRAR). A
domain already connected to a store on this service is not available, whatever the
registrar says. Buying one is an order (models/domain.py): `start_domain_order` checks the
store and the quote and writes it `pending`; the payment code opens the checkout and,
in the transaction that marks the payment paid, calls `connect_paid_domain`, or
`fail_domain_order` when the payment fails or expires. Nothing here talks to a payment
provider, and nothing connects a domain except a confirmed payment.
"""
from __future__ import annotations

import secrets

import peewee as pw

from config import get_settings
from integrations.registrar import (
    MAX_INPUT,
    NOT_REGISTRABLE,
    TAKEN,
    InvalidDomain,
    Quote,
    display,
    normalize,
    registrar_for,
    sandbox,
)
from models.catalog import Product
from models.clock import utcnow
from models.db import transaction
from models.domain import DomainOrder
from models.own_product import FounderProduct
from models.session import Session
from models.store import Store
from services.discovery import Resolved, resolve
from services.errors import Refused
from services.ownership import Owner, adopter, owner_of
from services.research.launch import launch_fact
from services.store.builds import require_claim

PENDING, CONNECTED, FAILED = DomainOrder.PENDING, DomainOrder.CONNECTED, DomainOrder.FAILED
DEFAULT_SUGGESTIONS = 12
MAX_SUGGESTIONS = 30
MAX_QUERY = 200  # characters of ?q=
MAX_DOMAIN_INPUT = MAX_INPUT  # characters of ?domain= read at all
# The sandbox registrar's price list, for the published decisions.
SANDBOX_PRICES, SANDBOX_PREMIUMS = sandbox.BASE_PRICES, sandbox.SHORT_NAME_PREMIUM


# --- Reads: suggestions and quotes -----------------------------------------------------------

def checked_name(domain: str) -> str:
    """The name normalized (lower-case ASCII, punycode), or Refused `invalid_domain`."""
    try:
        return normalize(domain)
    except InvalidDomain as exc:
        raise Refused("invalid_domain", str(exc)) from None


def suggest(*, session: Session, query: str | None, limit: int | None = None) -> dict:
    """Domain suggestions for the query's words, or for the claimed product's name without one."""
    resolved = resolve(session)
    product_id = resolved.claimed_product_id if resolved is not None else None
    if query is None or not query.strip():
        if product_id is None:
            raise Refused("not_claimed", "Send ?q= with a few words about your business, or claim a product: "
                                         "without either there is nothing to make domain names from.")
        query = product_name(product_id)
    quotes = registrar_for(get_settings()).suggest(query, limit or DEFAULT_SUGGESTIONS)
    if not quotes:
        raise Refused("no_query_terms", "Those words have no letters or digits a domain name could be made of. "
                                        "Try a few plain words about your business.", query=query)
    connected = _connected_anywhere([quote.domain for quote in quotes])
    suggestions = [_shown(quote, connected) for quote in quotes]
    suggestions.sort(key=lambda item: not item["available"])  # stable, as the registrar ordered them
    return {"status": "ok", "query": query, "suggestions": suggestions,
            "connected": connected_domain(owner_of(session), product_id)}


def quote(*, session: Session, domain: str) -> dict:
    """The price of one domain, or Refused `not_available` when it cannot be bought."""
    name = checked_name(domain)
    owner = owner_of(session)
    resolved = resolve(session)
    product_id = resolved.claimed_product_id if resolved is not None else None
    found = _available_quote(name, owner)
    return {"status": "ok", "domain": found.domain, "available": True, "price_minor": found.price_minor,
            "currency": found.currency, "connected": connected_domain(owner, product_id)}


def _available_quote(name: str, owner: Owner) -> Quote:
    """The registrar's quote for a normalized name that can be bought, or Refused `not_available`."""
    connected = DomainOrder.get_or_none(DomainOrder.domain == name, DomainOrder.state == CONNECTED)
    if connected is not None:
        whose = "your store" if owner.has(connected) else "another store on this service"
        raise Refused("not_available", f"{display(name)} is already connected to {whose}. Try a different domain.",
                      domain=name)
    found = registrar_for(get_settings()).quote(name)
    if not found.available or found.price_minor is None or found.currency is None:
        raise Refused("not_available", _unavailable(found), domain=name)
    return found


def _unavailable(found: Quote) -> str:
    name = display(found.domain)
    if found.unavailable == TAKEN:
        return f"{name} is already registered by someone else. Try a different domain."
    if found.unavailable == NOT_REGISTRABLE:
        return (f"{name} is a name under another domain; only a name directly under a top-level domain (like "
                f"{'.'.join(found.domain.split('.')[-2:])}) can be bought. Try a different domain.")
    return (f"Domains ending in .{found.domain.rsplit('.', 1)[-1]} cannot be priced here, so {name} cannot be "
            "bought. Try a different domain.")


def _shown(found: Quote, connected: set[str]) -> dict:
    available = found.available and found.domain not in connected
    return {"domain": found.domain, "available": available,
            "price_minor": found.price_minor if available else None,
            "currency": found.currency if available else None}


def _connected_anywhere(names: list[str]) -> set[str]:
    if not names:
        return set()
    return {name for (name,) in DomainOrder.select(DomainOrder.domain)
            .where(DomainOrder.domain.in_(names), DomainOrder.state == CONNECTED).tuples()}


def product_name(product_id: str) -> str:
    """The claimed product's name as its store shows it (the founder's own, else the catalog's)."""
    own = FounderProduct.get_or_none(FounderProduct.product == product_id)
    if own is not None and own.name:
        return own.name
    product = Product.get_or_none(Product.product_id == product_id)
    return product.name if product is not None else product_id


def connected_domain(owner: Owner, product_id: str | None) -> str | None:
    """The domain connected to the owner's store of `product_id` (the latest connected), or None."""
    if product_id is None:
        return None
    row = (DomainOrder.select(DomainOrder.domain)
           .where(owner.owns(DomainOrder), DomainOrder.product == product_id, DomainOrder.state == CONNECTED)
           .order_by(DomainOrder.connected_at.desc(), DomainOrder.id.desc()).first())
    return row.domain if row is not None else None


# --- Serving: which store answers for a Host (api/hosts.py) -------------------------------------

def connected_store_slug(domain: str) -> str | None:
    """The slug of the store the domain (normalized: lower-case ASCII, no port, no trailing
    dot) is connected to, or None. Read on every request that names a foreign Host, with no
    cache, so a domain that stops being connected stops serving at the next request: one
    lookup on the partial unique index of connected names."""
    row = (Store.select(Store.slug)
           .join(DomainOrder, on=(DomainOrder.product == Store.product))
           .where(DomainOrder.domain == domain, DomainOrder.state == CONNECTED)
           .first())
    return row.slug if row is not None else None


def is_connected(*, domain: str) -> bool:
    """Whether a well-formed name is connected to a store here (a TLS proxy asks before it
    gets a certificate: GET /internal/domain-check); Refused `invalid_domain` for a malformed one."""
    return connected_store_slug(checked_name(domain)) is not None


# --- Orders: what the payment code calls -----------------------------------------------------

def start_domain_order(*, session: Session, domain: str) -> DomainOrder:
    """Writes a pending order of the domain for the founder's store, at the registrar's price."""
    name = checked_name(domain)
    resolved = resolve(session)
    product_id = require_claim(resolved)
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        raise Refused("not_started", "Your store has not been built yet, so there is nothing to connect a domain "
                                     "to. Build it first on the Store screen.")
    owner = owner_of(session)
    found = _available_quote(name, owner)
    with transaction():
        return DomainOrder.create(id=secrets.token_hex(16), session=session.id, account=session.account_id,
                                  product=product_id, domain=found.domain, price_minor=found.price_minor,
                                  currency=found.currency, state=PENDING, created_at=utcnow())


def connect_paid_domain(*, domain_order_id: str) -> bool:
    """Connects the paid order's domain to its store; False when it cannot (the order failed,
    or the domain was connected to another store first). Runs again harmlessly."""
    row = DomainOrder.get_or_none(DomainOrder.id == domain_order_id)
    if row is None:
        return False
    if row.state != PENDING:
        return row.state == CONNECTED
    try:
        # Inside the caller's transaction this is a savepoint: on PostgreSQL a unique
        # violation would otherwise abort the whole transaction (the one marking the payment
        # paid), not just this statement.
        with transaction():
            moved = (DomainOrder.update(state=CONNECTED, connected_at=utcnow())
                     .where(DomainOrder.id == domain_order_id, DomainOrder.state == PENDING).execute())
    except pw.IntegrityError:
        # The partial unique index: another store's order for this name connected first (on
        # PostgreSQL this update waited for that transaction to commit, then lost).
        fail_domain_order(domain_order_id=domain_order_id)
        return False
    if moved == 1:
        return True
    # Another call moved it between our read and our update; its outcome stands.
    return DomainOrder.get(DomainOrder.id == domain_order_id).state == CONNECTED


def fail_domain_order(*, domain_order_id: str) -> bool:
    """Marks a pending order failed (its payment failed or expired); False when it was not pending."""
    return (DomainOrder.update(state=FAILED)
            .where(DomainOrder.id == domain_order_id, DomainOrder.state == PENDING).execute()) == 1


def _domain_orders_held(session_id: int) -> list[str]:
    mine = Owner(session_id=session_id, account_id=None)
    return [f"your order of the domain {display(row.domain)}"
            for row in DomainOrder.select(DomainOrder.domain).where(mine.owns(DomainOrder)).order_by(DomainOrder.created_at)]


@adopter(kind="domain_orders", held=_domain_orders_held)
def adopt_domain_orders(session_id: int, account_id: int) -> dict:
    """A session's domain orders become its account's."""
    DomainOrder.update(account=account_id).where(DomainOrder.session == session_id,
                                                 DomainOrder.account.is_null()).execute()
    return {}


@launch_fact("domain_connected")
def _domain_connected(owner: Owner, resolved: Resolved | None) -> tuple[bool, str]:
    if resolved is None or resolved.claimed_product_id is None:
        return False, "Claim a product and build its store; then buy a domain for it on the Domains screen."
    domain = connected_domain(owner, resolved.claimed_product_id)
    if domain is None:
        return False, "Buy a domain for your store on the Domains screen: it suggests names and you pay there."
    return True, f"{display(domain)} is connected to your store."
