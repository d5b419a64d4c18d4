"""What a store may say about its product: the catalog record, its dated evidence and the
researched offer, read fresh for each build and each publish check."""
from __future__ import annotations

from dataclasses import dataclass

from models.catalog import Evidence, Product
from models.clock import utcnow
from services.research import records


@dataclass(frozen=True)
class StoreFacts:
    product: dict
    evidence: list[dict]
    offer: dict | None

    @property
    def price(self) -> float:
        """The price the store charges: the offer's recommended retail price (the catalog's
        market price when the product has no offer)."""
        return float(self.offer["price"]) if self.offer else float(self.product["price"])


def load(product_id: str) -> StoreFacts | None:
    """The product's facts, or None when it left the catalog."""
    product = Product.get_or_none(Product.product_id == product_id)
    if product is None:
        return None
    record = {"product_id": product.product_id, "name": product.name, "description": product.description,
              "category": product.category, "price": float(product.price), "cost": float(product.cost),
              "currency": product.currency, "images": list(product.images or []), **(product.extra or {})}
    rows = [{"date": e.date.isoformat(), "source": e.source, "metric": e.metric, "value": e.value, "note": e.note}
            for e in Evidence.select().where(Evidence.product == product_id).order_by(Evidence.date, Evidence.id)]
    researched = records.load(product_id)
    offer = None
    if researched is not None:
        offer, _analysis = records.compute(researched, utcnow().date())
        offer = {k: v for k, v in offer.items() if k not in ("figures", "inputs")}
    return StoreFacts(product=record, evidence=rows, offer=offer)
