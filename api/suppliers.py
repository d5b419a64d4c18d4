"""Suppliers (spec 4.7; decisions.md, Commerce and payments: Suppliers): the supplier feed's
offer lines for a product, and the founder's connected offer line (services/suppliers.py)."""
from marshmallow import Schema, fields, validate

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from services import suppliers

bp = Blueprint("suppliers", __name__, description="Offer lines from the supplier feed and the connected one.")

DECISIONS: list[str] = [
    "GET /api/suppliers?product=<a catalog product id, a supplier-feed product id, or a product's name> (session) "
    "answers 200 {status: ok, match: exact | similar_goods, product: {product_id, name}, options: [{supplier, sku, "
    "product_id, name, unit_cost, currency, shipping_days, moq, rating, ships_from}], explanation (similar_goods "
    "only)}. Each option is one offer line of the supplier feed: one supplier's offer of one product, named by "
    "supplier and sku together; product_id and name say which product the line offers. match exact: the options "
    "are the lines whose product_id is the product asked for (a catalog product's id, or a feed product's), "
    f"cheapest unit_cost first (then supplier, sku), at most {suppliers.MAX_OPTIONS}; nothing else is mixed in. "
    "match similar_goods, only when no line offers the product (a catalog other than the demo catalog, a "
    "founder's own product, or words): lines of other products whose names share the most words with the "
    "product's name (a catalog product's own name, else the words asked), among as many shared words those whose "
    "shared words are rarer across the feed first, then the cheapest (compared as numbers, whatever the "
    f"currency), at most {suppliers.MAX_OPTIONS}; the explanation says they are other goods. Words are compared in "
    "lower case with plurals folded; numbers, one-letter words and packing words (set, pack, piece, pair, kit, "
    "and, with...) do not count. shipping_days is the line's lead_time_days; ships_from a country code; rating "
    "is the supplier's (3.5-5.0, one decimal, in the bundled feed; null when a feed line has none). A feed line "
    "without a sku is named by its product id in the sku's place. product.product_id is null when the words "
    "asked are not a product id.",
    "The bundled feed (scripts/data/supplier_feed.jsonl.gz, made by scripts/make_supplier_feed.py with a fixed "
    "seed) offers every product of the demo catalog: 2 to 5 offer lines each, from different suppliers, at "
    "70-130 % of the catalog cost, in the catalog product's currency (so one product's options share one "
    "currency), with the supplier's minimum order, lead time and country (factories abroad cheaper and slower "
    "with larger minimums; a warehouse in the product's market dearer, in days, by the carton). No quantity "
    "tiers: a line has one unit cost, which is what a sample costs and what the table compares. Its other 3,000 "
    "lines are the feed products discovery adds to the catalog, each with one supplier's offer.",
    "GET /api/suppliers without product (or blank) is 400 `no_product_id`. A product no feed line shares a word "
    "with answers 200 {status: no_suppliers, reason: no_suppliers, explanation, product, options: []}. When "
    "SUPPLIER_FEED is an http(s) URL the service does not fetch it to answer (scripts/discover.py fetches it on "
    "its own schedule; a founder's request never waits on a remote feed): GET answers 200 {status: no_suppliers, "
    "reason: suppliers_unavailable, ...} and POST connect is 409 `suppliers_unavailable`. The feed (a file or a "
    "folder of *.jsonl / *.jsonl.gz) is read once per process and again when a file's size or modification time "
    "changes.",
    "GET /api/supplier-connection (session) answers {status: connected | not_connected, supplier, sku, name, "
    "offers_product_id, product_id, connected_at} (null fields when not connected): the offer line connected "
    "(supplier and sku), what it offers (name, offers_product_id), and product_id, the product claimed when "
    "connecting. POST {action: connect | disconnect, supplier, sku?} answers the same object. connect names an "
    "offer line: supplier (matched ignoring case and extra spaces; stored in the feed's spelling; missing, blank "
    "or unknown: 400 `unknown_supplier`) and sku (matched the same way; a line that supplier does not have: 400 "
    "`unknown_offer`). Without sku (the spec's {action, supplier}), the line is that supplier's line of the "
    "founder's product (claimed, else held) when it has one, else the supplier's only line; a supplier with "
    "several lines, none of them the founder's product, is 400 `unknown_offer` (a supplier's name alone never "
    "picks one of its other goods). Another action is 400 `invalid_action`. disconnect when nothing is "
    "connected changes nothing and answers 200 not_connected (it is idempotent); disconnect ignores supplier "
    "and sku. A connection made before migration m0024 named a supplier alone and answers sku, name and "
    "offers_product_id null.",
    "A founder has one connected offer line (a bound session's account, else the anonymous session): connecting "
    "another replaces it, and connects racing each other leave exactly one row (one row per owner, written with "
    "INSERT ... ON CONFLICT). A founder may connect before claiming a product (sourcing comes before the claim): "
    "product_id is the product claimed when connecting, else null. When an anonymous session signs in to an "
    "account its connection becomes the account's; if the account has one too, the one connected last stays.",
    "One figure for one fact (issue 47): the connected offer line's unit cost is the offer's cost. GET and POST "
    "/api/supplier-connection also answer the line's terms as the feed gives them today: unit_cost, currency, moq, "
    "minimum_order_quantity (moq, 1 when the line has none) and minimum_order_total (unit_cost x that quantity, "
    "rounded to cents: what the first order costs up front); all null when not connected, for a connection without "
    "a sku, or a line the feed no longer has. The connection counts for a product when it was made for it (the "
    "product claimed when connecting) or before any claim, as the supplier_connected fact counts it. For that "
    "product GET /api/offer answers `supplier`: {supplier, sku, name, unit_cost, currency, moq, "
    "minimum_order_quantity, minimum_order_total, used_as_cost, explanation} (null when no connection counts). "
    "used_as_cost true: cost is the line's unit_cost, its figure's inputs are [supplier_unit_cost] with the source "
    "{type: supplier, supplier, sku, currency}, the catalog cost and the supplier quote are no longer inputs, and "
    "every figure after the cost (unit_margin, margin_pct, break-even, price_for_target_margin) is computed from it "
    "by the same rules. used_as_cost false (the line is priced in another currency than the offer's; no exchange "
    "rate is assumed): the offer keeps the researched cost and explanation says why. GET /api/dashboard (its "
    "verdict, facts, a `cost` fact naming the supplier and the minimum order's total, offer.cost, the margin "
    "figure) and GET /api/analysis (the margin figure) read the same priced offer; so do GET /api/tracking's "
    "profit_minor and the assistant's price answer (which names the unit cost).",
    "The launch fact supplier_connected (GET /api/launch) is true when the founder has a connected offer line, "
    "for the product they have claimed or made before any claim (product_id null); its detail names the "
    "supplier and SKU. A connection made for another product than the one claimed now reads false and says to "
    "connect again.",
]


class SuppliersQuery(Schema):
    product = fields.String(metadata={"description": "A catalog product id, a supplier-feed product id or a "
                                                     "product's name", "pattern": bounds.NOT_BLANK})

    # A missing or blank product is the service's 400 no_product_id (services/suppliers.options).
    QUERY_RULES = {"required": ["product"]}


class ProductNamed(Schema):
    product_id = fields.String(required=True, allow_none=True,
                               metadata={"description": "The catalog or feed product id; null for a name"})
    name = fields.String(required=True, metadata={"description": "The product's name"})


class SupplierOptionSchema(Schema):
    supplier = fields.String(required=True)
    sku = fields.String(required=True, metadata={"description": "The supplier's SKU: with supplier, names the "
                                                                "offer line"})
    product_id = fields.String(required=True, metadata={"description": "The product this line offers"})
    name = fields.String(required=True, metadata={"description": "What this line offers, as the feed names it"})
    unit_cost = fields.Float(required=True)
    currency = fields.String(required=True)
    shipping_days = fields.Integer(required=True, allow_none=True, metadata={"description": "The lead time in days"})
    moq = fields.Integer(required=True, allow_none=True, metadata={"description": "Minimum order quantity"})
    rating = fields.Float(required=True, allow_none=True, metadata={"description": "The supplier's rating, 3.5-5.0"})
    ships_from = fields.String(required=True, allow_none=True, metadata={"description": "Country code"})


class SuppliersAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [suppliers.OK, suppliers.NO_SUPPLIERS]})
    match = fields.String(metadata={"enum": [suppliers.EXACT, suppliers.SIMILAR_GOODS],
                                    "description": "exact: every option offers the product asked for; "
                                                   "similar_goods: none does, these are goods named like it"})
    reason = fields.String(metadata={"enum": ["no_suppliers", "suppliers_unavailable"]})
    explanation = fields.String()
    product = fields.Nested(ProductNamed, required=True)
    options = fields.List(fields.Nested(SupplierOptionSchema), required=True)


class ConnectionBody(Schema):
    action = fields.String(required=True, validate=validate.OneOf(suppliers.ACTIONS),
                           metadata={"reason": "invalid_action"})
    supplier = fields.String(allow_none=True, metadata={"reason": "unknown_supplier",
                                                        "description": "The supplier of the offer line to connect "
                                                                       "(connect only)"})
    sku = fields.String(allow_none=True, metadata={"reason": "unknown_offer",
                                                   "description": "The SKU of the offer line to connect; without "
                                                                  "it, the supplier's line of your product"})


class ConnectionAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [suppliers.CONNECTED, suppliers.NOT_CONNECTED]})
    supplier = fields.String(required=True, allow_none=True)
    sku = fields.String(required=True, allow_none=True, metadata={"description": "The connected offer line's SKU"})
    name = fields.String(required=True, allow_none=True, metadata={"description": "What the connected line offers"})
    offers_product_id = fields.String(required=True, allow_none=True,
                                      metadata={"description": "The product the connected line offers"})
    product_id = fields.String(required=True, allow_none=True,
                               metadata={"description": "The product claimed when connecting"})
    connected_at = fields.String(required=True, allow_none=True)
    unit_cost = fields.Float(required=True, allow_none=True, metadata={
        "description": "The connected line's unit cost as the feed gives it today (null: none, or not in the feed)"})
    currency = fields.String(required=True, allow_none=True)
    moq = fields.Integer(required=True, allow_none=True, metadata={"description": "The line's minimum order"})
    minimum_order_quantity = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The units a first order must buy: the minimum order, 1 when the line has none"})
    minimum_order_total = fields.Float(required=True, allow_none=True, metadata={
        "description": "What that first order costs up front: unit_cost x minimum_order_quantity"})


@bp.get("/api/suppliers")
@bp.declare(changes_state=False, refuses={400: ["no_product_id"]})
@bp.arguments(SuppliersQuery, location="query")
@bp.response(200, SuppliersAnswer)
def supplier_options(query):
    """The feed's offer lines of a product, else similar goods named like it."""
    return suppliers.options(product=query.get("product"))


@bp.get("/api/supplier-connection")
@bp.declare(changes_state=False)
@bp.response(200, ConnectionAnswer)
def get_connection():
    """The founder's connected offer line, or that none is connected."""
    return suppliers.connection(session=current_session())


@bp.post("/api/supplier-connection")
@bp.declare(changes_state=True, refuses={400: ["invalid_action", "unknown_supplier", "unknown_offer"],
                                         409: ["suppliers_unavailable"]})
@bp.arguments(ConnectionBody)
@bp.response(200, ConnectionAnswer)
def change_connection(body):
    """Connects a supplier's offer line from the feed (replacing any other) or disconnects it."""
    return suppliers.change(session=current_session(), action=body["action"], supplier=body.get("supplier"),
                            sku=body.get("sku"))
