"""Suppliers (decisions.md, Commerce and payments: Suppliers): which suppliers offer a
product and on what terms, from the supplier feed (GET /api/suppliers), and the founder's
one connected offer line (GET, POST /api/supplier-connection), which makes the
`supplier_connected` launch fact true.

A product's options are the feed lines that offer that product (by product id). Only for a
product no line offers does the answer fall back on goods named like it, marked
`match: similar_goods`: they are other products, and the founder must know that before
connecting one or buying a sample of it.

A connection (and a sample, services/commerce/samples.py) names the offer line, supplier
and SKU, because a supplier offers many goods: `offer_line` is how a request's supplier
(and SKU) becomes one line, for both.

The connected line is the founder's unit cost: `priced_offer` gives the research's offer
of a product priced with it (services/research/offer.with_supplier), which the offer, the
dashboard, the analysis, the orders' profit and the assistant all read, so every screen
shows one cost.

The feed is read through integrations.suppliers; the connection is one row per founder
(models/supplier.py), written with INSERT ... ON CONFLICT on its owner key, so connecting
again replaces it and two connects at once leave one row.
"""
from __future__ import annotations

import integrations.suppliers as feed
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import KeptSQL, param, transaction
from models.session import Session
from models.supplier import SupplierConnection
from services.discovery import Resolved, resolve
from services.errors import Refused
from services.ownership import Owner, adopter, adoption_keys, owner_of, session_key
from services.reasons import sentence
from services.research import offer as offer_math
from services.research.launch import launch_fact

OK, NO_SUPPLIERS = "ok", "no_suppliers"
# What the options are: lines offering the product itself, or goods named like it.
EXACT, SIMILAR_GOODS = "exact", "similar_goods"
CONNECTED, NOT_CONNECTED = "connected", "not_connected"
CONNECT, DISCONNECT = "connect", "disconnect"
ACTIONS = [CONNECT, DISCONNECT]
MAX_OPTIONS = feed.MAX_OPTIONS
# A product named longer than this is read up to here (a catalog name is at most 200).
MAX_PRODUCT_CHARS = 300
MAX_NAME_CHARS = 300  # what the connection and sample rows keep of a line's name


def option(line: feed.SupplierOption) -> dict:
    return {"supplier": line.supplier, "sku": line.sku, "product_id": line.product_id, "name": line.name,
            "unit_cost": line.unit_cost, "currency": line.currency, "shipping_days": line.shipping_days,
            "moq": line.moq, "rating": line.rating, "ships_from": line.ships_from}


def similar_explanation(name: str) -> str:
    return (f"No supplier in the feed offers {name} itself. These are similar goods, other products named like "
            "it: check that one is what you sell before you connect it or order a sample.")


def options(*, product: str | None) -> dict:
    """The offer lines of a catalog or feed product id, else similar goods by name."""
    asked = " ".join((product or "").split())[:MAX_PRODUCT_CHARS]
    if not asked:
        raise Refused("no_product_id", "Name a product: ?product= takes a catalog product id or a product's name.")
    row = Product.select(Product.product_id, Product.name).where(Product.product_id == asked).first()
    named = {"product_id": row.product_id, "name": row.name} if row else {"product_id": None, "name": asked}
    try:
        if row is None and (in_feed := feed.feed_name(asked)) is not None:
            named = {"product_id": asked, "name": in_feed}
        found = feed.offers_for(named["product_id"]) if named["product_id"] else []
        match = EXACT
        if not found:
            found, match = feed.similar_goods(named["name"]), SIMILAR_GOODS
    except feed.SuppliersUnavailable as exc:
        return {"status": NO_SUPPLIERS, "reason": "suppliers_unavailable", "explanation": str(exc),
                "product": named, "options": []}
    if not found:
        return {"status": NO_SUPPLIERS, "reason": "no_suppliers", "explanation": sentence("no_suppliers"),
                "product": named, "options": []}
    answer = {"status": OK, "match": match, "product": named, "options": [option(line) for line in found]}
    if match == SIMILAR_GOODS:
        answer["explanation"] = similar_explanation(named["name"])
    return answer


def offer_line(*, supplier, sku, product_id: str | None,
               connected: SupplierConnection | None = None) -> feed.SupplierOption:
    """The offer line a request names: by supplier and SKU; with no SKU, the founder's
    connected line when it is that supplier's, else that supplier's line of the founder's
    product, else the supplier's only line. Refuses anything else."""
    if not isinstance(supplier, str) or not supplier.strip():
        raise Refused("unknown_supplier", "Name the supplier and the SKU of one of its offer lines; nothing was "
                                          "connected or ordered.")
    try:
        known = feed.supplier_named(supplier)
        if known is None:
            raise Refused("unknown_supplier")
        if sku is not None:
            line = feed.offer(known, sku) if isinstance(sku, str) and sku.strip() else None
            if line is None:
                raise Refused("unknown_offer", f"{known} has no offer line with the SKU {str(sku)[:120]!r}; nothing "
                                               "was connected or ordered.")
            return line
        if connected is not None and connected.supplier == known and connected.sku:
            line = feed.offer(known, connected.sku)
            if line is not None:
                return line
        if product_id:
            for line in feed.offers_for(product_id, limit=None):
                if line.supplier == known:
                    return line
        theirs = feed.offers_of(known)
    except feed.SuppliersUnavailable as exc:
        raise Refused("suppliers_unavailable", f"{exc} Nothing was connected or ordered.") from None
    if len(theirs) == 1:
        return theirs[0]
    raise Refused("unknown_offer", f"{known} offers {len(theirs)} different goods and none of them is your product: "
                                   "name the SKU of the offer line you mean; nothing was connected or ordered.")


NO_TERMS = {"unit_cost": None, "currency": None, "moq": None, "minimum_order_quantity": None,
            "minimum_order_total": None}


def _answer(row: SupplierConnection | None) -> dict:
    if row is None:
        return {"status": NOT_CONNECTED, "supplier": None, "sku": None, "name": None, "offers_product_id": None,
                "product_id": None, "connected_at": None, **NO_TERMS}
    line = _line_of(row)
    terms = line.terms() if line is not None else {}
    return {"status": CONNECTED, "supplier": row.supplier, "sku": row.sku, "name": row.name,
            "offers_product_id": row.offers_product_id, "product_id": row.product_id,
            "connected_at": iso(row.connected_at),
            **{field: terms.get(field) for field in NO_TERMS}}


def _line_of(row: SupplierConnection) -> offer_math.SupplierLine | None:
    """A connection's offer line as the feed prices it today; None for a connection that
    names no SKU (made before m0024), or when the feed no longer has the line or cannot
    be read."""
    if not row.sku:
        return None
    try:
        line = feed.offer(row.supplier, row.sku)
    except feed.SuppliersUnavailable:
        return None
    if line is None:
        return None
    return offer_math.SupplierLine(supplier=line.supplier, sku=line.sku, name=line.name,
                                   unit_cost=offer_math.money(line.unit_cost), currency=line.currency, moq=line.moq)


def counts_for(row: SupplierConnection, product_id: str) -> bool:
    """Whether a connection is the supplier of `product_id`: it was made for that product,
    or before any claim (as the supplier_connected launch fact counts it)."""
    return row.product_id is None or row.product_id == product_id


def line_for(owner: Owner, product_id: str) -> offer_math.SupplierLine | None:
    """The offer line the founder connected for `product_id`, as the feed prices it today;
    None when none counts for it."""
    return line_from(_row_of(owner), product_id)


def line_from(row: SupplierConnection | None, product_id: str) -> offer_math.SupplierLine | None:
    """line_for of a connection already read (the dashboard reads it with its other reads)."""
    return _line_of(row) if row is not None and counts_for(row, product_id) else None


def priced_offer(owner: Owner, product_id: str, offer: dict) -> dict:
    """A product's researched offer as its founder reads it on every screen: priced with
    the offer line they connected for it, when there is one the feed still has, with
    `supplier` saying so (null when none counts)."""
    return offer_math.with_supplier(offer, line_for(owner, product_id))


def _row_of(owner: Owner) -> SupplierConnection | None:
    # The offer, the analysis and every dashboard poll ask this (line_for), so its SQL text
    # is kept (models/db.KeptSQL) and the row is made by peewee's own raw query.
    sql, values = _CONNECTION.sql(owner=owner.key)
    return next(iter(SupplierConnection.raw(sql, *values)), None)


_CONNECTION = KeptSQL(lambda: SupplierConnection.select().where(SupplierConnection.owner == param("owner")))


def connection(*, session: Session) -> dict:
    """The founder's connected supplier, or that none is connected."""
    return _answer(_row_of(owner_of(session)))


def connected_line(session: Session) -> SupplierConnection | None:
    """The founder's connection row, or None."""
    return _row_of(owner_of(session))


def change(*, session: Session, action: str, supplier=None, sku=None) -> dict:
    """Connects the offer line named (replacing any other) or disconnects the founder's one."""
    owner = owner_of(session)
    if action == DISCONNECT:
        # Disconnecting when nothing is connected changes nothing and says so: not_connected.
        SupplierConnection.delete().where(SupplierConnection.owner == owner.key).execute()
        return _answer(None)
    resolved = resolve(session)
    line = offer_line(supplier=supplier, sku=sku, product_id=resolved.product_id if resolved else None)
    values = {"supplier": line.supplier, "sku": line.sku, "name": line.name[:MAX_NAME_CHARS],
              "offers_product_id": line.product_id, "product": resolved.claimed_product_id if resolved else None,
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


def _supplier_held(session_id: int) -> list[str]:
    row = SupplierConnection.get_or_none(SupplierConnection.owner == session_key(session_id))
    return [f"your connected supplier {row.supplier}"] if row is not None else []


@adopter(kind="supplier", held=_supplier_held)
def adopt_supplier_connection(session_id: int, account_id: int) -> dict:
    """A session's connected supplier becomes its account's; when both have one, the one
    connected last stays."""
    session_key, account_key = adoption_keys(session_id, account_id)
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
        return False, "Connect one of your product's supplier offers on the Suppliers screen."
    line = f"{row.supplier} ({row.sku})" if row.sku else row.supplier
    claimed = resolved.claimed_product_id if resolved is not None else None
    if row.product_id is not None and claimed is not None and row.product_id != claimed:
        return False, (f"{line} is connected for {row.product_id}, not for {claimed}, the product you claimed "
                       "since; connect a supplier again for it.")
    return True, f"{line} is connected" + (f" for {row.product_id}." if row.product_id else ".")
