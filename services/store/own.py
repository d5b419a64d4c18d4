"""The founder's own product details as a store reads them: their values over the
catalog's (name, description, price, images) and the images they uploaded, served at
/media/<id>.<extension>.

Builds, the publish check and the AI's facts all read the product through facts.load,
which applies these; services/own_product.py is where a founder sets them."""
from __future__ import annotations

import copy
import re

from integrations import ai
from models.catalog import Product
from models.own_product import FounderImage, FounderProduct
from services import ai_facts

MEDIA_PREFIX = "/media/"
_MEDIA_URL = re.compile(r"^/media/([0-9a-f]{32})\.(png|jpg|webp)$")
FIELDS = ("name", "description", "price", "images")


def override_of(product_id: str) -> FounderProduct | None:
    return FounderProduct.get_or_none(FounderProduct.product == product_id)


def name_of(product_id: str | None) -> str | None:
    """The product's name as its store shows it (the founder's own where set, else the
    catalog's): what a founder's screens call it, never its id. None for no such product."""
    if product_id is None:
        return None
    own = override_of(product_id)
    if own is not None and own.name is not None:
        return own.name
    product = Product.get_or_none(Product.product_id == product_id)
    return product.name if product is not None else None


def own_fields(own: FounderProduct | None) -> list[str]:
    """The fields the founder set (the others are the catalog's)."""
    return [name for name in FIELDS if own is not None and getattr(own, name) is not None]


def apply(record: dict, own: FounderProduct | None) -> dict:
    """The catalog record with the founder's values in place of the catalog's."""
    if own is None:
        return record
    changed = dict(record)
    for name in ("name", "description"):
        if getattr(own, name) is not None:
            changed[name] = getattr(own, name)
    if own.images is not None:
        changed["images"] = list(own.images)
    if own.price is not None:
        changed["price"] = float(own.price)
    return changed


def image_url(image: FounderImage) -> str:
    return f"{MEDIA_PREFIX}{image.id}.{image.extension}"


def parse_media_url(url: str) -> tuple[str, str] | None:
    """(id, extension) of a /media/ URL, else None."""
    match = _MEDIA_URL.match(url)
    return (match.group(1), match.group(2)) if match else None


def image_of(url: str, product_id: str) -> FounderImage | None:
    """The uploaded image a /media/ URL names, when it is this product's; else None."""
    parsed = parse_media_url(url)
    if parsed is None:
        return None
    return (FounderImage.select(FounderImage.id, FounderImage.product, FounderImage.extension)
            .where(FounderImage.id == parsed[0], FounderImage.extension == parsed[1],
                   FounderImage.product == product_id).first())


def with_own_details(document: dict, facts) -> tuple[dict, list[dict]]:
    """The store document with the product's current details (the founder's values where
    set) and the price the store charges; the copy keeps its words, less any sentence the
    new facts no longer back (the old price, say), which is returned as dropped."""
    changed = copy.deepcopy(document)
    product = facts.product
    changed["product"].update(name=product["name"], description=product.get("description", ""),
                              images=list(product.get("images") or []))
    changed["price"] = round(facts.price, 2)
    for page in changed["pages"]:
        if page["id"] == "product":
            page["title"] = product["name"]
    changed["copy"], dropped = ai.backed_copy(
        changed["copy"], ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                                            statements=facts.statements))
    return changed, dropped
