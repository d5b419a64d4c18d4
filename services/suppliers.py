"""Suppliers (decisions.md, Commerce and payments: Suppliers): sourcing options for a
product from the supplier feed (GET /api/suppliers), and the founder's one connected
supplier (GET, POST /api/supplier-connection), which makes the `supplier_connected` launch
fact true.

The feed is read through integrations.suppliers; the connection is one row per founder
(models/supplier.py), written with INSERT ... ON CONFLICT on its owner key, so connecting
again replaces it and two connects at once leave one row.
"""
from __future__ import annotations

import integrations.suppliers as feed
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import transaction
from models.session import Session
from models.supplier import SupplierConnection
from services.discovery import Resolved, resolve
from services.errors import Refused
from services.ownership import Owner, adopter, owner_of
from services.reasons import sentence
from services.research.launch import launch_fact

OK, NO_SUPPLIERS = "ok", "no_suppliers"
CONNECTED, NOT_CONNECTED = "connected", "not_connected"
CONNECT, DISCONNECT = "connect", "disconnect"
ACTIONS = [CONNECT, DISCONNECT]
MAX_OPTIONS = feed.MAX_OPTIONS
# A product named longer than this is read up to here (a catalog name is at most 200).
MAX_PRODUCT_CHARS = 300


def _option(option: feed.SupplierOption) -> dict:
    return {"supplier": option.supplier, "unit_cost": option.unit_cost, "currency": option.currency,
            "shipping_days": option.shipping_days, "moq": option.moq, "rating": option.rating,
            "ships_from": option.ships_from, "sku": option.sku}


def options(*, product: str | None) -> dict:
    """Sourcing options for a catalog product id, a feed product id or a product name."""
    asked = " ".join((product or "").split())[:MAX_PRODUCT_CHARS]
    if not asked:
        raise Refused("no_product_id", "Name a product: ?product= takes a catalog product id or a product's name.")
    row = Product.select(Product.product_id, Product.name).where(Product.product_id == asked).first()
    try:
        if row is not None:
            found = feed.options_for(row.product_id, name=row.name)
            named = {"product_id": row.product_id, "name": row.name}
        else:
            found = feed.options_for(asked)
            feed_name = feed.feed_name(asked)
            named = {"product_id": asked if feed_name else None, "name": feed_name or asked}
    except feed.SuppliersUnavailable as exc:
        return {"status": NO_SUPPLIERS, "reason": "suppliers_unavailable", "explanation": str(exc),
                "product": {"product_id": row.product_id if row else None, "name": row.name if row else asked},
                "options": []}
    if not found:
        return {"status": NO_SUPPLIERS, "reason": "no_suppliers", "explanation": sentence("no_suppliers"),
                "product": named, "options": []}
    return {"status": OK, "product": named, "options": [_option(option) for option in found]}


def _answer(row: SupplierConnection | None) -> dict:
    if row is None:
        return {"status": NOT_CONNECTED, "supplier": None, "product_id": None, "connected_at": None}
    return {"status": CONNECTED, "supplier": row.supplier, "product_id": row.product_id,
            "connected_at": iso(row.connected_at)}


def _row_of(owner: Owner) -> SupplierConnection | None:
    return SupplierConnection.get_or_none(SupplierConnection.owner == owner.key)


def connection(*, session: Session) -> dict:
    """The founder's connected supplier, or that none is connected."""
    return _answer(_row_of(owner_of(session)))


def _supplier(name: str | None) -> str:
    """The feed's spelling of the supplier named, or a refusal."""
    if name is None or not name.strip():
        raise Refused("unknown_supplier", "Name the supplier to connect: send {action: connect, supplier}.")
    try:
        known = feed.supplier_named(name)
    except feed.SuppliersUnavailable as exc:
        raise Refused("suppliers_unavailable", f"{exc} Nothing was connected.") from None
    if known is None:
        raise Refused("unknown_supplier")
    return known


def change(*, session: Session, action: str, supplier: str | None = None) -> dict:
    """Connects the named supplier (replacing any other) or disconnects the founder's one."""
    owner = owner_of(session)
    if action == DISCONNECT:
        # Disconnecting when nothing is connected changes nothing and says so: not_connected.
        SupplierConnection.delete().where(SupplierConnection.owner == owner.key).execute()
        return _answer(None)
    name = _supplier(supplier)
    resolved = resolve(session)
    values = {"supplier": name, "product": resolved.claimed_product_id if resolved else None,
              "session": owner.session_id, "connected_at": utcnow()}
    # One row per owner: the primary key settles two connects at once (the later write wins
    # and no second row is ever made), where a read-then-insert would race.
    with transaction():
        (SupplierConnection.insert(owner=owner.key, account=owner.account_id, **values)
         .on_conflict(conflict_target=[SupplierConnection.owner],
                      update={getattr(SupplierConnection, field): value for field, value in values.items()})
         .execute())
        row = _row_of(owner)
    return _answer(row)


@adopter
def adopt_supplier_connection(session_id: int, account_id: int) -> dict:
    """A session's connected supplier becomes its account's; when both have one, the one
    connected last stays."""
    session_key, account_key = f"session:{session_id}", f"account:{account_id}"
    mine = SupplierConnection.get_or_none(SupplierConnection.owner == session_key)
    if mine is None:
        return {}
    theirs = SupplierConnection.get_or_none(SupplierConnection.owner == account_key)
    if theirs is not None and theirs.connected_at > mine.connected_at:
        SupplierConnection.delete().where(SupplierConnection.owner == session_key).execute()
        return {}
    SupplierConnection.delete().where(SupplierConnection.owner == account_key).execute()
    (SupplierConnection.update(owner=account_key, account=account_id)
     .where(SupplierConnection.owner == session_key).execute())
    return {"supplier_connection": [mine.supplier]}


@launch_fact("supplier_connected")
def _supplier_connected(owner: Owner, resolved: Resolved | None) -> tuple[bool, str]:
    row = _row_of(owner)
    if row is None:
        return False, "Connect a supplier from the Suppliers screen (POST /api/supplier-connection)."
    claimed = resolved.claimed_product_id if resolved is not None else None
    if row.product_id is not None and claimed is not None and row.product_id != claimed:
        return False, (f"{row.supplier} is connected for {row.product_id}, not for {claimed}, the product you claimed "
                       "since; connect a supplier again for it.")
    return True, f"{row.supplier} is connected" + (f" for {row.product_id}." if row.product_id else ".")
