"""Suppliers (spec 4.7; decisions.md, Commerce and payments: Suppliers): sourcing options
from the supplier feed, and the founder's connected supplier (services/suppliers.py)."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from services import suppliers

bp = Blueprint("suppliers", __name__, description="Sourcing options from the supplier feed and the connected supplier.")

DECISIONS: list[str] = [
    "GET /api/suppliers?product=<a catalog product id, a supplier-feed product id, or a product's name> (session) "
    "answers 200 {status: ok, product: {product_id, name}, options: [{supplier, unit_cost, currency, "
    "shipping_days, moq, rating, ships_from, sku}]}, one option per supplier-feed line: the line of the product id "
    "asked for first (a catalog product discovered from the feed has one), then the lines whose names share the "
    "most words with the product's name (a catalog product's own name; a feed product's; else the words asked), "
    "among as many shared words those whose shared words are rarer across the feed first, then the cheapest "
    f"unit_cost (compared as numbers, whatever the currency), at most "
    f"{suppliers.MAX_OPTIONS}. Words are compared in lower case with plurals folded; numbers, one-letter words "
    "and packing words (set, pack, piece, pair, kit, and, with...) do not count. shipping_days is the line's "
    "lead_time_days; rating is the supplier's (3.5-5.0, one decimal, in the bundled feed; null when a feed line "
    "has none). product_id is null when the words asked are not a product id.",
    "GET /api/suppliers without product (or blank) is 400 `no_product_id`. A product no feed line shares a word "
    "with answers 200 {status: no_suppliers, reason: no_suppliers, explanation, product, options: []}. When "
    "SUPPLIER_FEED is an http(s) URL the service does not fetch it to answer (scripts/discover.py fetches it on "
    "its own schedule; a founder's request never waits on a remote feed): GET answers 200 {status: no_suppliers, "
    "reason: suppliers_unavailable, ...} and POST connect is 409 `suppliers_unavailable`. The feed (a file or a "
    "folder of *.jsonl / *.jsonl.gz) is read once per process and again when a file's size or modification time "
    "changes.",
    "GET /api/supplier-connection (session) answers {status: connected | not_connected, supplier, product_id, "
    "connected_at} (null fields when not connected). POST {action: connect | disconnect, supplier} answers the "
    "same object. connect needs a supplier the feed names (matched ignoring case and extra spaces; stored in the "
    "feed's spelling), else 400 `unknown_supplier` (also when supplier is missing or blank); another action is "
    "400 `invalid_action`. disconnect when nothing is connected changes nothing and answers 200 not_connected (it "
    "is idempotent); disconnect ignores supplier.",
    "A founder has one connected supplier (a bound session's account, else the anonymous session): connecting "
    "another replaces it, and connects racing each other leave exactly one row (one row per owner, written with "
    "INSERT ... ON CONFLICT). A founder may connect before claiming a product (sourcing comes before the claim): "
    "product_id is the product claimed when connecting, else null. When an anonymous session signs in to an "
    "account its connection becomes the account's; if the account has one too, the one connected last stays.",
    "The launch fact supplier_connected (GET /api/launch) is true when the founder has a connected supplier, for "
    "the product they have claimed or made before any claim (product_id null); its detail names the supplier. A "
    "connection made for another product than the one claimed now reads false and says to connect again.",
]


class SuppliersQuery(Schema):
    product = fields.String(metadata={"description": "A catalog product id, a supplier-feed product id or a "
                                                     "product's name"})


class ProductNamed(Schema):
    product_id = fields.String(required=True, allow_none=True,
                               metadata={"description": "The catalog or feed product id; null for a name"})
    name = fields.String(required=True, metadata={"description": "The name whose words were matched"})


class SupplierOptionSchema(Schema):
    supplier = fields.String(required=True)
    unit_cost = fields.Float(required=True)
    currency = fields.String(required=True)
    shipping_days = fields.Integer(required=True, allow_none=True, metadata={"description": "The lead time in days"})
    moq = fields.Integer(required=True, allow_none=True, metadata={"description": "Minimum order quantity"})
    rating = fields.Float(required=True, allow_none=True, metadata={"description": "The supplier's rating, 3.5-5.0"})
    ships_from = fields.String(required=True, allow_none=True, metadata={"description": "Country code"})
    sku = fields.String(required=True, allow_none=True)


class SuppliersAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [suppliers.OK, suppliers.NO_SUPPLIERS]})
    reason = fields.String(metadata={"enum": ["no_suppliers", "suppliers_unavailable"]})
    explanation = fields.String()
    product = fields.Nested(ProductNamed, required=True)
    options = fields.List(fields.Nested(SupplierOptionSchema), required=True)


class ConnectionBody(Schema):
    action = fields.String(required=True, validate=validate.OneOf(suppliers.ACTIONS),
                           metadata={"reason": "invalid_action"})
    supplier = fields.String(allow_none=True, metadata={"reason": "unknown_supplier",
                                                        "description": "The supplier to connect (connect only)"})


class ConnectionAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [suppliers.CONNECTED, suppliers.NOT_CONNECTED]})
    supplier = fields.String(required=True, allow_none=True)
    product_id = fields.String(required=True, allow_none=True,
                               metadata={"description": "The product claimed when connecting"})
    connected_at = fields.String(required=True, allow_none=True)


@bp.get("/api/suppliers")
@bp.declare(changes_state=False, refuses={400: ["no_product_id"]})
@bp.arguments(SuppliersQuery, location="query")
@bp.response(200, SuppliersAnswer)
def supplier_options(query):
    """Sourcing options from the supplier feed for a catalog product id or a product's name."""
    return suppliers.options(product=query.get("product"))


@bp.get("/api/supplier-connection")
@bp.declare(changes_state=False)
@bp.response(200, ConnectionAnswer)
def get_connection():
    """The founder's connected supplier, or that none is connected."""
    return suppliers.connection(session=current_session())


@bp.post("/api/supplier-connection")
@bp.declare(changes_state=True, refuses={400: ["invalid_action", "unknown_supplier"], 409: ["suppliers_unavailable"]})
@bp.arguments(ConnectionBody)
@bp.response(200, ConnectionAnswer)
def change_connection(body):
    """Connects a supplier from the feed (replacing any other) or disconnects the founder's supplier."""
    return suppliers.change(session=current_session(), action=body["action"], supplier=body.get("supplier"))
