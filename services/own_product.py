"""A founder's own product (issue 12, point 5): the name, description, price and images they
publish for their claimed product in place of the catalog's.

POST /api/product checks every field given (decisions.md, Store: name 1-120 characters,
description 1-5,000, price 0.01-100,000 in the store's currency, at most 8 images of at
most 5 MiB, PNG/JPEG/WebP by content: services/images.py), saves nothing unless all pass,
then saves them and the uploaded images in one transaction, and writes a new store version
with them when the store is built. What the uploads may cost is judged from their headers
before any is decoded (services/images.py), and uploads nothing names any more are deleted
by the clock's hourly prune (prune_unused_images). Builds and the publish check read them through
services/store/facts.load, so the next build, the AI's facts and the price the check holds
the store to are the founder's too.
"""
from __future__ import annotations

import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal, InvalidOperation

import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import is_sqlite, transaction
from models.discovery import Claim
from models.job import Job
from models.own_product import FounderImage, FounderProduct
from models.session import Session
from models.store import Store, StoreVersion
from services import images
from services.catalog import OWN_PRODUCT_PREFIX
from services.discovery import release_holds, resolve
from services.errors import Refused
from services.ownership import owner_of
from services.research import records as research
from services.store import builds, versions
from services.store import facts as store_facts
from services.store import own as own_details

MAX_NAME = 120
MAX_DESCRIPTION = 5000
MIN_PRICE = Decimal("0.01")
MAX_PRICE = Decimal("100000")
SUMMARY = "Founder's own product details"
SAVED = "saved"
CREATED = "created"  # POST /api/product made the founder's own product
# The category a founder's own product is filed under on the founder's screens; its store and
# its copy name no category for it (a shopper would read "Your own product" as the shop's words).
OWN_CATEGORY = "Your own product"
OWN_CURRENCY = "USD"  # the demo catalog's; an own product's store sells in it
# The largest body POST /api/product reads: every image at its largest, base64 in a data:
# URL, and 1 MiB for the rest (a 5,000-character description escaped is at most ~30 KB).
# The new uploads of one save, decoded, together: the server holds a body in a few copies
# while reading it (werkzeug's bytes, the parsed JSON strings) before any image code runs,
# so the body itself must stay small for a save to cost at most ~100 MB (bench/images_bench.py).
MAX_REQUEST_UPLOAD_BYTES = 16 * 1024 * 1024
MAX_BODY_BYTES = 4 * -(-MAX_REQUEST_UPLOAD_BYTES // 3) + images.MAX_IMAGES * 200 + 1024 * 1024


def read(*, session: Session) -> dict:
    """GET /api/product: the founder's product as their store uses it."""
    product_id = builds.require_claim(resolve(session))
    return _answer(product_id, status="ok", version=_store_version(product_id))


def save(*, session: Session, values: dict) -> tuple[dict, list[Job]]:
    """POST /api/product: with a claimed product, checks and saves the founder's own values
    for it, and writes a new store version with them when the store is built (a null field
    goes back to the catalog's value); with no product resolved, or when asked to (`create`),
    makes the founder's own product from them. For a product of the founder's own, the
    product row the research reads takes the new values too (_write_own_row). Answers the
    product and the jobs to send after commit."""
    given = {name: values[name] for name in (*own_details.FIELDS, "cost") if name in values}
    if not given:
        raise Refused("nothing_to_change")
    # The values' own shape first, before any state is looked at (images need the product).
    checked = _checked_values(given)
    # `create` says which of the two the founder meant: without it, the same body from a
    # founder with a claim would overwrite their claimed product's details instead.
    if values.get("create") is True:
        return _create_own(session, given, checked)
    resolved = resolve(session)
    if resolved is None:
        return _create_own(session, given, checked)
    product_id = builds.require_claim(resolved)
    is_own = product_id.startswith(OWN_PRODUCT_PREFIX)
    if "cost" in given and not is_own:
        raise Refused("invalid_cost", "A catalog product's unit cost is the catalog's; only a product of your own "
                                      "takes yours. Nothing was saved.")
    _refuse_while_a_store_job_runs(product_id)
    checked.update(_checked_images(product_id, given))  # every field, before anything is written
    cost = checked.pop("cost", None)
    with transaction():
        # A catalog product's row stays the catalog's (the founder's values are kept over it);
        # an own product's row is the founder's, and it is what the research reads.
        researched_again = is_own and _write_own_row(product_id, checked, cost)
        _write_details(product_id, checked)
        version = _write_store_version(product_id)
    jobs = []
    if researched_again:
        # The offer and the verdict speak of these figures from the next read on, not of the old.
        job, created = research.request(product_id)
        jobs = [job] if created else []
    return _answer(product_id, status=SAVED, version=version), jobs


def _write_own_row(product_id: str, checked: dict, cost: Decimal | None) -> bool:
    """Puts the founder's new name, description, price and unit cost of a product of their
    own in its product row, in the caller's transaction; answers whether the row changed.

    One figure for one fact: the research (services/research/records.py) reads the row, the
    store reads the founder's values over it, so both must say the same. A null (back to
    the product's own value) leaves the row as the last save made it; images are the
    store's alone. The row's `updated_at` is in the research's fingerprint, so it must move
    with every change even when the clock has not (two saves in one microsecond, a clock
    set back, a frozen test clock): it becomes the later of now and just after its value.
    The row is locked while it is read (SQLite: the transaction holds the write lock), so
    two saves at once cannot both read the same time and write the same one."""
    changes = {name: checked[name] for name in ("name", "description", "price") if checked.get(name) is not None}
    query = Product.select(Product.updated_at, Product.extra).where(Product.product_id == product_id)
    row = (query if is_sqlite() else query.for_update()).get()
    if cost is not None:
        # Said now, so given: the offer stops counting it as "not given yet".
        changes.update(cost=cost, extra={**(row.extra or {}), "cost_given": True})
    if not changes:
        return False
    changes["updated_at"] = max(utcnow(), row.updated_at + timedelta(microseconds=1))
    Product.update(**changes).where(Product.product_id == product_id).execute()
    return True


def _write_details(product_id: str, checked: dict) -> None:
    """Stores checked values and their new uploads, in the caller's transaction."""
    new_images, kept = checked.pop("_uploads", []), checked.pop("_kept", [])
    _keep_earlier_uploads(kept)
    for image in new_images:
        FounderImage.insert(id=image["id"], product=product_id, content_type=image["clean"].content_type,
                            extension=image["clean"].extension, width=image["clean"].width,
                            height=image["clean"].height, size=len(image["clean"].data),
                            sha256=image["clean"].sha256, data=image["clean"].data, created_at=utcnow()).execute()
    if not checked:
        return
    now = utcnow()
    FounderProduct.insert(product=product_id, updated_at=now, **checked).on_conflict(
        conflict_target=[FounderProduct.product],
        update={getattr(FounderProduct, name): value for name, value in {**checked, "updated_at": now}.items()},
    ).execute()


def _create_own(session: Session, given: dict, checked: dict) -> tuple[dict, list[Job]]:
    """Makes the founder's own product: a product row of theirs alone (an `own-` id no
    catalog line may take), claimed by them at once. The claim keeps it out of every feed
    and search of anyone else, and spends no claim allowance: the product never was the
    catalog's. From then on it resolves like a claimed product (offer, store, editing,
    publishing, checkout): being their most recent claim, it is the product the founder's
    screens work on even when they claimed another, which stays theirs. A product they held
    is let go at once (another founder need not wait out the hold window for it)."""
    for name, reason in (("name", "invalid_name"), ("description", "invalid_description"), ("price", "invalid_price")):
        if given.get(name) is None:
            raise Refused(reason, "A product of your own needs a name, a description and a price (images and what "
                                  "one unit costs you are optional). Nothing was saved.")
    product_id = f"{OWN_PRODUCT_PREFIX}{secrets.token_hex(8)}"
    checked.update(_checked_images(product_id, given))  # its images: new uploads only (it has no others yet)
    cost = checked.pop("cost", None)
    owner, now = owner_of(session), utcnow()
    with transaction():
        Product.insert(product_id=product_id, name=checked["name"], description=checked["description"],
                       category=OWN_CATEGORY, price=checked["price"], cost=cost if cost is not None else Decimal(0),
                       currency=OWN_CURRENCY, images=[], rank=0, extra={"own": True, "cost_given": cost is not None},
                       created_at=now, updated_at=now).execute()
        _write_details(product_id, checked)
        Claim.insert(product=product_id, session=owner.session_id, account=owner.account_id, created_at=now).execute()
        released = release_holds(owner, now)
    return _answer(product_id, status=CREATED, version=None), [*released, *research.request_if_missing(product_id)]


def set_price(product_id: str, value) -> None:
    """Keeps `value` as the founder's own price of the product (a plain-language edit asked
    for it); refuses `invalid_price` outside the bounds. Runs in the caller's transaction."""
    price = _price(value)
    FounderProduct.insert(product=product_id, price=price, updated_at=utcnow()).on_conflict(
        conflict_target=[FounderProduct.product],
        update={FounderProduct.price: price, FounderProduct.updated_at: utcnow()}).execute()
    if product_id.startswith(OWN_PRODUCT_PREFIX):
        _write_own_row(product_id, {"price": price}, None)  # the offer's next read re-researches it


def _refuse_while_a_store_job_runs(product_id: str) -> None:
    # A build reads the product's facts when it starts and writes its version when it ends:
    # saving meanwhile would be overwritten by a version made from the values before.
    if builds.busy(product_id):
        raise Refused("build_in_progress", "Your store is being built, published or changed right now; nothing was saved. "
                                           "Save your product again once it is done.")


def _write_store_version(product_id: str) -> int | None:
    """A new version of the built store with the product's current details; None before the first build."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        return None
    facts = store_facts.load(product_id)
    current = versions.latest(product_id)
    document, dropped = own_details.with_own_details(current.document, facts)
    return versions.write_version(product_id, document, summary=SUMMARY, dropped=dropped)


def _store_version(product_id: str) -> int | None:
    store = Store.get_or_none(Store.product == product_id)
    return store.version if store is not None and store.version else None


def _answer(product_id: str, *, status: str, version: int | None) -> dict:
    facts = store_facts.load(product_id)
    if facts is None:  # the claimed product left the catalog (a claim keeps its row: never in practice)
        raise Refused("not_claimed")
    product = facts.product
    return {"status": status, "product_id": product_id,
            "product": {"name": product["name"], "description": product.get("description", ""),
                        "price": round(facts.price, 2), "currency": product["currency"],
                        "images": list(product.get("images") or [])},
            "own": list(facts.own), "version": version, "own_product": product_id.startswith(OWN_PRODUCT_PREFIX)}


# --- Checking the values ----------------------------------------------------------------------

def _checked_values(given: dict) -> dict:
    """The values to store but the images (None: back to the catalog's), or Refused for the
    first bad field."""
    checked = {}
    if "cost" in given:
        checked["cost"] = _cost(given["cost"])
    if "name" in given:
        checked["name"] = None if given["name"] is None else _name(given["name"])
    if "description" in given:
        checked["description"] = None if given["description"] is None else _description(given["description"])
    if "price" in given:
        checked["price"] = None if given["price"] is None else _price(given["price"])
    return checked


def _checked_images(product_id: str, given: dict) -> dict:
    """The images to store for the product, with their uploads (none when not sent)."""
    if "images" not in given:
        return {}
    if given["images"] is None:
        return {"images": None}
    urls, uploads, kept = _images(product_id, given["images"])
    return {"images": urls, "_uploads": uploads, "_kept": kept}


def _name(value: str) -> str:
    name = " ".join(value.split())  # one line: runs of whitespace (newlines, tabs) become one space
    if not 1 <= len(name) <= MAX_NAME:
        raise Refused("invalid_name", f"A product name is 1 to {MAX_NAME} characters (not counting spaces at "
                                      f"either end); this one has {len(name)}. Nothing was saved.")
    return name


def _description(value: str) -> str:
    description = value.strip()
    if not 1 <= len(description) <= MAX_DESCRIPTION:
        raise Refused("invalid_description", f"A product description is 1 to {MAX_DESCRIPTION:,} characters (not "
                                             f"counting spaces at either end); this one has {len(description):,}. "
                                             "Nothing was saved.")
    return description


def _price(value) -> Decimal:
    try:
        price = Decimal(str(value))
    except InvalidOperation:
        price = None
    if price is None or not price.is_finite() or not MIN_PRICE <= price <= MAX_PRICE \
            or price != price.quantize(MIN_PRICE):
        raise Refused("invalid_price", f"A price is an amount from {MIN_PRICE} to {MAX_PRICE:,} in your store's "
                                       f"currency, in whole cents; {value} is not. Nothing was saved.")
    return price.quantize(MIN_PRICE)


def _cost(value) -> Decimal:
    try:
        cost = Decimal(str(value)) if value is not None else None
    except InvalidOperation:
        cost = None
    if cost is None or not cost.is_finite() or not Decimal(0) <= cost <= MAX_PRICE or cost != cost.quantize(MIN_PRICE):
        raise Refused("invalid_cost", f"What one unit costs you is an amount from 0 to {MAX_PRICE:,} in your store's "
                                      f"currency, in whole cents; {value} is not. Nothing was saved.")
    return cost.quantize(MIN_PRICE)


def _images(product_id: str, entries: list[str]) -> tuple[list[str], list[dict], list[tuple[int, str]]]:
    """The image URLs to store, the uploads to insert and the earlier uploads kept (position,
    id). An entry is a new upload (a data: URL), one of this product's uploads (/media/...),
    or one of its catalog photos. Every upload's header is read, and the request's estimated
    time checked, before any image is decoded (services/images.py)."""
    if len(entries) > images.MAX_IMAGES:
        raise Refused("invalid_images", f"A product has at most {images.MAX_IMAGES} images; {len(entries)} were "
                                        "sent. Nothing was saved.")
    sent = sum(len(entry) * 3 // 4 for entry in entries if entry.startswith("data:"))
    if sent > MAX_REQUEST_UPLOAD_BYTES:
        raise Refused("images_too_large", (
            f"The new photos of one save may come to {MAX_REQUEST_UPLOAD_BYTES // (1024 * 1024)} MiB together; these "
            f"come to about {sent / (1024 * 1024):.1f} MiB. Save them in smaller groups (photos you saved before "
            "count for nothing), or smaller. Nothing was saved."))
    catalog = set(_catalog_images(product_id))
    urls: list[str | None] = []
    headers, kept = [], []
    for position, entry in enumerate(entries, start=1):
        if entry.startswith("data:"):
            with _refused_as(position):
                headers.append((position, images.head_of_data_url(entry)))
            urls.append(None)  # its URL once it is cleaned
        elif entry in catalog:
            urls.append(entry)
        elif (earlier := own_details.image_of(entry, product_id)) is not None:
            urls.append(entry)
            kept.append((position, earlier.id))
        else:
            raise Refused("invalid_images", f"Image {position} is neither a new upload (a data: URL) nor one of "
                                            "your product's own images. Nothing was saved.")
    over = images.over_request_time([header for _, header in headers])
    if over is not None:
        index, total = over
        positions = [position for position, _ in headers]
        raise Refused("images_too_large", (
            f"The new images are too much to prepare in one save: they would take about {total / 1000:.1f} s, and "
            f"one save takes at most {images.MAX_REQUEST_MS / 1000:.1f} s (eight phone photos fit; a PNG or WebP "
            f"takes several times as long as a JPEG of the same size). Image {positions[index]} takes it past that. "
            "Save them in smaller groups, or smaller. Nothing was saved."))
    uploads = []
    for position, _ in headers:
        with _refused_as(position):
            clean = images.clean(images.decode_data_url(entries[position - 1]))
        image_id = secrets.token_hex(16)
        uploads.append({"id": image_id, "clean": clean})
        urls[position - 1] = f"{own_details.MEDIA_PREFIX}{image_id}.{clean.extension}"
    return urls, uploads, kept


@contextmanager
def _refused_as(position: int):
    try:
        yield
    except images.ImageRefused as refused:
        raise Refused(refused.reason, f"Image {position} cannot be used: {refused.detail}. Nothing was "
                                      "saved.") from None


def _keep_earlier_uploads(kept: list[tuple[int, str]]) -> None:
    """Makes sure the earlier uploads a save keeps are still there, and stay there until it
    commits. Runs first in the save's transaction. The hourly prune deletes uploads nothing
    names (prune_unused_images): on PostgreSQL this share lock makes a prune that comes
    later skip them and one that came first finish, after which they are missing here; on
    SQLite the two transactions never overlap (each takes the write lock first)."""
    if not kept:
        return
    ids = {image_id for _, image_id in kept}
    query = FounderImage.select(FounderImage.id).where(FounderImage.id.in_(ids))
    present = {row.id for row in (query if is_sqlite() else query.for_update("FOR SHARE"))}
    for position, image_id in kept:
        if image_id not in present:
            raise Refused("invalid_images", f"Image {position} was removed in the meantime (it had been unused for a "
                                            "while); upload it again. Nothing was saved.")


def _catalog_images(product_id: str) -> list[str]:
    product = Product.get_or_none(Product.product_id == product_id)
    return list(product.images or []) if product else []


# --- Pruning uploads nothing names -----------------------------------------------------------

# An upload is kept while the founder's product names it, while any version of their store
# names it (undo, redo and publishing can bring back any version), and for IMAGE_GRACE after
# it was uploaded and after the founder's last save: a founder who just replaced a photo can
# still put it back by its URL for a day.
IMAGE_GRACE = timedelta(days=1)
PRUNE_BATCH = 200


def _unused(cutoff):
    """The conditions under which an upload may be deleted, evaluated per row inside the
    statement (correlated NOT EXISTS), so they hold for what is committed when it runs.
    "Names it" is the upload's id anywhere in the text of the founder's images or of a store
    version's document: 32 random hex characters match nothing else."""
    def none(query):
        return ~pw.fn.EXISTS(query)

    def names(column):  # plain LIKE (peewee's .contains() is a case-sensitive GLOB on SQLite)
        return pw.NodeList((column, pw.SQL("LIKE"), pw.Value("%").concat(FounderImage.id).concat("%")))

    return ((FounderImage.created_at < cutoff)
            & none(FounderProduct.select(pw.SQL("1")).where(
                (FounderProduct.product == FounderImage.product)
                & ((FounderProduct.updated_at >= cutoff) | names(FounderProduct.images))))
            # An upload made once the store had a version is named by the version its save
            # wrote: kept without reading any document (most of them, and the cheap test).
            & none(StoreVersion.select(pw.SQL("1")).where(
                (StoreVersion.store == FounderImage.product) & (StoreVersion.created_at <= FounderImage.created_at)))
            & none(StoreVersion.select(pw.SQL("1")).where(
                (StoreVersion.store == FounderImage.product) & names(StoreVersion.document))))


def prune_unused_images(*, grace: timedelta = IMAGE_GRACE, batch_size: int = PRUNE_BATCH,
                        max_batches: int = 100) -> int:
    """Deletes uploads that neither the founder's product nor any version of their store
    names, older than `grace` and untouched by a save for as long; returns how many. The
    hourly clock runs it (jobs/maintenance.py prune_images); a second run finds nothing."""
    cutoff = utcnow() - grace
    oldest_first = (FounderImage.created_at, FounderImage.id)
    removed = 0
    for _ in range(max_batches):
        with transaction():
            if is_sqlite():
                # SQLite has one writer at a time (the transaction takes the write lock up
                # front), so no save can name an upload between the check and the delete.
                batch = (FounderImage.select(FounderImage.id).where(_unused(cutoff))
                         .order_by(*oldest_first).limit(batch_size))
                found = deleted = FounderImage.delete().where(FounderImage.id.in_(batch)).execute()
            else:
                # PostgreSQL: lock the candidates first, skipping any row a save holds (a
                # save that keeps an earlier upload takes a share lock on it first:
                # _keep_earlier_uploads). The DELETE then checks every condition again in
                # a fresh snapshot, so a save that committed meanwhile is seen; one that
                # comes later waits for these row locks and then finds its upload gone.
                candidates = [row.id for row in FounderImage.select(FounderImage.id).where(_unused(cutoff))
                              .order_by(*oldest_first).limit(batch_size).for_update(skip_locked=True)]
                found = len(candidates)
                deleted = FounderImage.delete().where(FounderImage.id.in_(candidates),
                                                      _unused(cutoff)).execute() if candidates else 0
        removed += deleted
        if found < batch_size:
            break
    return removed


# --- Serving uploaded images -----------------------------------------------------------------

@dataclass(frozen=True)
class Media:
    data: bytes
    content_type: str
    public: bool  # shown by the published store (anyone may fetch it) or only to its owner


def media(*, name: str, session_of) -> Media | None:
    """The uploaded image at /media/<name> for this visitor: to anyone when the published
    store shows it, to the founder whose product it is, else None. `session_of()` gives the
    visitor's session, or None when they sent no valid cookie; it is asked only when the
    image is not public (a store visitor gets no session for looking at a photo)."""
    parsed = own_details.parse_media_url(own_details.MEDIA_PREFIX + name)
    if parsed is None:
        return None
    image = FounderImage.get_or_none(FounderImage.id == parsed[0], FounderImage.extension == parsed[1])
    if image is None:
        return None
    if _published_shows(image):
        return Media(bytes(image.data), image.content_type, public=True)
    session = session_of()
    resolved = resolve(session) if session is not None else None
    if resolved is not None and resolved.claimed_product_id == image.product_id:
        return Media(bytes(image.data), image.content_type, public=False)
    return None


def _published_shows(image: FounderImage) -> bool:
    store = Store.get_or_none(Store.product == image.product_id)
    if store is None or store.published_version is None:
        return False
    document = versions.document_of(image.product_id, store.published_version) or {}
    return own_details.image_url(image) in (document.get("product") or {}).get("images", [])
