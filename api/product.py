"""The founder's own product (spec 2.13, 8.6; decisions.md, Store and Store editing): the
name, description, price and images a founder publishes for their claimed product, and the
images they uploaded, served at /media/<id>.<extension>."""
from __future__ import annotations

from marshmallow import Schema, fields

from api.errors import ApiError
from api.http import untrusted_bytes
from api.routing import Blueprint
from api.session import current_session, sent_session
from jobs.send import send_all
from services import images, own_product

bp = Blueprint("product", __name__, description="The founder's own product details and images.")

_MIB = 1024 * 1024

DECISIONS: list[str] = [
    "POST /api/product (spec 4.7: publish a founder's own product into the store engine), body {name?, "
    "description?, price?, images?, cost?}. With no product resolved it makes the founder's own product: name, "
    "description and price are needed (missing: 400 `invalid_name`, `invalid_description`, `invalid_price`), "
    "images and `cost` (what one unit costs the founder, 0 when not sent, so the offer's margin then counts no "
    f"unit cost) are optional; it answers `status: created` with the new `product_id` (`{own_product.OWN_PRODUCT_PREFIX}` "
    "and 16 hex digits, a prefix no catalog line may use) and `own_product: true`. The product is that founder's "
    "alone: it is claimed by them at once without spending the claim allowance, never appears in anyone's feed or "
    "search, sells in USD, and resolves like a claimed product for the offer (researched from the founder's "
    "figures), the dashboard, the store build, editing, publishing and checkout. With a claimed product the same "
    "body edits that product's details in place of the catalog's (`cost` only for an own product: 400 "
    "`invalid_cost` for a catalog product); with only a hold: 409 `claim_required` (details set on a hold would "
    "reach the product's next founder). The values' shapes are checked before any state is looked at.",
    "`create: true` makes a new own product from the body whatever the founder holds or claims (the same "
    "required fields and refusals as with no product; status `created`): any founder may sell something of their "
    "own, not only one with nothing claimed. It spends no claim allowance and never refuses for one "
    "(`claim_limit_reached` is not among its answers). The new product is the founder's most recent claim, so "
    "from then on it is the product their session resolves to (offer, dashboard, store, editing); the product "
    "they claimed before stays theirs alone, with its store. Without `create` the body means what it always "
    "meant: with a claimed product it edits that product's details.",
    "One figure for one fact (issue 47, points 4 and 5): a save on a product of the founder's own puts the new "
    "name, description, price and `cost` in the product's own record as well, in the same transaction (a `cost` "
    "sent is then a cost given: the offer stops counting it as not given yet), moves the record's update time "
    "(the research's fingerprint reads it) and sends the research again, so the next GET /api/offer and GET "
    "/api/dashboard read the price and cost the store sells at and compare the new name and description with "
    "similar catalog products. A price set in plain words (POST /api/ai/edit) is put in the record too, and the "
    "offer's next read researches it again. A null leaves that record as the last save made it; images are the "
    "store's alone. A catalog product's record is never changed by a founder's save: their values are kept over the "
    "catalog's, the offer and the verdict stay the researched ones, and the store sells at the founder's price. "
    "Making a product of one's own lets go of a product the founder held (not claimed) in the same transaction, "
    "so another founder can hold it at once rather than after the hold window.",
    f"Bounds: name 1-{own_product.MAX_NAME} characters (runs of whitespace become one space, ends trimmed), "
    f"description 1-{own_product.MAX_DESCRIPTION:,} characters (ends trimmed), price "
    f"{own_product.MIN_PRICE}-{own_product.MAX_PRICE:,} in the store's currency in whole cents (a third decimal "
    "is refused, not rounded); 400 `invalid_name`, `invalid_description`, `invalid_price` (also for a value of "
    "the wrong JSON type). A null field goes back to the catalog's value. A body with none of the four fields is "
    "400 `nothing_to_change` (not the outcome's `nothing_to_record`: that code speaks of outcomes). Every field "
    "sent is checked before anything is written, and nothing is saved unless all pass.",
    f"images: a list of at most {images.MAX_IMAGES} entries (more: 400 `invalid_images`), each a new upload as a "
    "base64 `data:` URL, or one already in use by this product: an earlier upload (its /media/ URL) or one of its "
    "catalog photos; any other URL, and another founder's upload, is 400 `invalid_images`. An upload is judged by "
    f"its content, never its declared type: at most {images.MAX_IMAGE_BYTES // _MIB} MiB decoded (413 "
    "`images_too_large`), PNG, JPEG or WebP (a GIF, an SVG, HTML or garbage: 400 `invalid_images`), nothing "
    "appended after the image and no markup, script or ZIP record in its metadata (a polyglot: 400 "
    "`invalid_images`), not animated. The explanation names the image by its position and says why.",
    "What an upload may cost is known from its header, read by the service itself (PNG IHDR, JPEG SOF, WebP "
    "VP8/VP8L/VP8X) before Pillow sees the file and before any image of the request is decoded, and is bounded "
    f"per image and per request. One image: at most {images.MAX_PIXELS // 1_000_000} megapixels, and at most "
    f"{images.MAX_DECODE_BYTES // _MIB} MiB held to clean it, estimated from the header (a PNG or WebP is decoded "
    f"whole, so its cap in pixels is lower: {images.megapixels(images.most_pixels('PNG'))} megapixels for an "
    f"opaque PNG, {images.megapixels(images.most_pixels('WEBP'))} for an opaque WebP, "
    f"{images.megapixels(images.most_pixels('WEBP', alpha=True))} for a WebP with transparency, whose encoder is "
    "hungry; a baseline JPEG is decoded at a reduced scale, so any of "
    f"{images.MAX_PIXELS // 1_000_000} megapixels fits): past either, 400 `invalid_images`, naming the image and "
    "the size it may have; Pillow's own decompression-bomb guard refuses too. One request: the new images' "
    f"estimated time to prepare, at most {images.MAX_REQUEST_MS} ms together (each step's cost per megabyte and "
    "per megapixel at its measured worst, on noise, on the development machine; eight 12-megapixel phone photos "
    "of 4 MB fit, a PNG or WebP takes several times a JPEG of the same size): past it, 413 `images_too_large`, "
    "naming the image that takes the request past it. Images kept from earlier saves by their URL count for "
    "nothing, so a founder can save photos in groups. bench/images_bench.py measures the dearest requests these "
    "caps accept against 1 s and 100 MB more memory on the development machine, and checks the memory estimate "
    "against what cleaning really holds.",
    f"An accepted upload is decoded (a JPEG at the smallest of 1/8, 1/4, 1/2 and 1/1 scale that still fills "
    f"{images.DECODE_SIDE} x {images.DECODE_SIDE}, as libjpeg scales while decoding), scaled down to fit "
    f"{images.MAX_SIDE} x {images.MAX_SIDE} (proportions kept; a store page is at most 1,120 CSS pixels wide), "
    "turned upright by its EXIF orientation and encoded again from its pixels alone: PNG stays PNG (zlib's "
    "fastest level), JPEG stays JPEG (quality 90), WebP stays WebP (quality 90, libwebp's fastest method); EXIF "
    "(GPS included), XMP, ICC profiles, text chunks and comments are dropped. A 4032 x 3024 phone photo is "
    "served at 2016 x 1512. It is stored in the database (every web host serves it) "
    "and served at GET /media/<32 hex characters>.<png|jpg|webp> with its type, `X-Content-Type-Options: "
    "nosniff`, `Content-Security-Policy: default-src 'none'; sandbox` and `Cross-Origin-Resource-Policy: "
    "same-origin`: to anyone once the published store shows it (`Cache-Control: public, max-age=300`), otherwise "
    "to its founder only (`private, max-age=300`; 404 `not_found` to anyone else). An image load never opens a "
    "session or sets the ff_session cookie: it only reads the cookie a founder's browser sends.",
    "Uploads nothing names any more are deleted by the clock's hourly `prune_images` job: an upload is kept while "
    "the founder's product names it, while any version of their store names it (undo, redo and publishing can "
    f"bring any version back), and for {own_product.IMAGE_GRACE.days} day after it was uploaded and after the "
    "founder's last save (a photo just replaced can still be put back by its URL); after that GET /media/ answers "
    "404 `not_found` for it. The conditions are checked inside the DELETE itself; a save that keeps an earlier "
    "upload locks it first (PostgreSQL: FOR SHARE, which the prune's FOR UPDATE SKIP LOCKED passes over; SQLite: "
    "one writer at a time), so an upload a save is keeping is never deleted, and a save that keeps one the prune "
    "has just deleted is 400 `invalid_images` and saves nothing.",
    f"The new photos of one save may come to {own_product.MAX_REQUEST_UPLOAD_BYTES // _MIB} MiB together, decoded "
    "(413 `images_too_large`, save them in groups): a body is held in a few copies while it is read, before any "
    "image is looked at, so its size bounds what a save costs in memory. POST /api/product alone reads bodies up "
    f"to {own_product.MAX_BODY_BYTES // _MIB} MiB (those photos base64, and 1 MiB for the rest; or MAX_BODY_BYTES "
    "when that is larger); past it 413 `payload_too_large`. Every other route keeps MAX_BODY_BYTES.",
    "The founder's values are the product's from then on: a built store gets a new version at once (summary "
    f"\"{own_product.SUMMARY}\") with the product's name, description, images and price replaced, so the preview "
    "shows them and GET /api/store's version moves; its copy keeps its words until the next build, less any "
    "sentence the new values no longer back (the old price, say), which is left out and reported as "
    "`unbacked_claim` with the store. Every later build and publish check reads them: the AI is given the "
    "founder's name, description and price as the product's facts, and the check holds the store to the "
    "founder's price (the price equals the offer's or the founder's own). While a build or publish of the store "
    "runs, POST /api/product is 409 `build_in_progress` and saves nothing.",
    "POST answers 200 {status: saved, product_id, product: {name, description, price, currency, images: [urls]}, "
    "own: [the fields the founder set], version: the new store version, or null before the store is built}. "
    "GET /api/product answers the same with status ok (the catalog's values, and the offer's price, where the "
    "founder set none; version: the store's newest, or null).",
]


class ProductBody(Schema):
    create = fields.Boolean(metadata={"description": "true: make a new product of your own from these values, even "
                                                     "with a product held or claimed (which stays yours); absent or "
                                                     "false: as before"})
    name = fields.String(allow_none=True, metadata={"reason": "invalid_name", "description":
                         f"1-{own_product.MAX_NAME} characters; null: back to the catalog's"})
    description = fields.String(allow_none=True, metadata={"reason": "invalid_description", "description":
                                f"1-{own_product.MAX_DESCRIPTION} characters; null: back to the catalog's"})
    price = fields.Decimal(allow_none=True, metadata={"reason": "invalid_price", "description":
                          f"{own_product.MIN_PRICE}-{own_product.MAX_PRICE} in the store's currency, whole cents; "
                          "null: back to the offer's"})
    cost = fields.Decimal(metadata={"reason": "invalid_cost", "description":
                          f"What one unit costs you, 0-{own_product.MAX_PRICE:,}, whole cents; a product of your own "
                          "only"})
    images = fields.List(fields.String(), allow_none=True, metadata={
        "reason": "invalid_images", "also_refuses": ["images_too_large"],
        "description": f"At most {images.MAX_IMAGES}: base64 data: URLs (PNG, JPEG or WebP, at most "
                       f"{images.MAX_IMAGE_BYTES // _MIB} MiB and {images.MAX_PIXELS // 1_000_000} megapixels each, "
                       f"the new ones at most {images.MAX_REQUEST_MS} ms to prepare together) or this product's own "
                       "image URLs; null: back to the catalog's"})


class OwnProduct(Schema):
    name = fields.String(required=True)
    description = fields.String(required=True)
    price = fields.Float(required=True)
    currency = fields.String(required=True)
    images = fields.List(fields.String(), required=True)


class ProductAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", own_product.SAVED, own_product.CREATED]})
    product_id = fields.String(required=True)
    product = fields.Nested(OwnProduct, required=True)
    own = fields.List(fields.String(), required=True, metadata={"description": "The fields the founder set"})
    version = fields.Integer(required=True, allow_none=True)
    own_product = fields.Boolean(required=True, metadata={"description": "A product of the founder's own, not the "
                                                                          "catalog's"})


@bp.get("/api/product")
@bp.declare(changes_state=False, refuses={200: ["not_claimed"], 409: ["claim_required"]})
@bp.response(200, ProductAnswer)
def get_product():
    """The founder's product as their store uses it: their own values where they set them, else the catalog's."""
    return own_product.read(session=current_session())


@bp.post("/api/product")
@bp.declare(changes_state=True, max_body_bytes=own_product.MAX_BODY_BYTES,
            refuses={400: ["nothing_to_change", "invalid_name", "invalid_description", "invalid_price",
                           "invalid_images", "invalid_cost"],
                     409: ["build_in_progress", "claim_required"], 413: ["images_too_large"]})
@bp.arguments(ProductBody)
@bp.response(200, ProductAnswer)
def save_product(body):
    """Publishes a founder's own product, or their own name, description, price and images for their claimed one."""
    answer, jobs = own_product.save(session=current_session(), values=body)
    send_all(jobs)
    return answer


# An image load neither opens a session nor issues the cookie (a published store's visitors
# load them, and a public answer must carry no Set-Cookie): it reads a cookie the founder's
# browser sent, to show them their own unpublished uploads.
@bp.get("/media/<name>")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.doc(parameters=[{"in": "cookie", "name": "ff_session", "required": False, "schema": {"type": "string"},
                     "description": "Read, never issued: shows a founder their own unpublished uploads."}])
@bp.response(200, {"type": "string", "format": "binary", "description": "An uploaded image"},
             content_type="image/png")
def media(name):
    """An image a founder uploaded: to anyone once their published store shows it, else to that founder only."""
    found = own_product.media(name=name, session_of=sent_session)
    if found is None:
        raise ApiError(404, "not_found")
    # The bytes behind a URL never change; who may see them can (publishing), so caches keep them briefly.
    return untrusted_bytes(found.data, content_type=found.content_type,
                           cache_control="public, max-age=300" if found.public else "private, max-age=300",
                           Cross_Origin_Resource_Policy="same-origin",
                           Content_Disposition=f"inline; filename=\"{name}\"")
