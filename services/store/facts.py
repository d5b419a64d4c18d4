"""What a store may say about its product: the catalog record (with the founder's own
values in place of the catalog's where they set them: services/store/own.py), its dated
evidence, the researched offer and the store owner's statements of their policy
(services/founder_statements.py), read fresh for each build and each publish check."""
from __future__ import annotations

from dataclasses import dataclass, field

from models.catalog import Evidence, Product
from models.clock import utcnow
from models.store import Store
from services import founder_statements
from services.research import records
from services.store import own as own_details


@dataclass(frozen=True)
class StoreFacts:
    product: dict
    evidence: list[dict]
    offer: dict | None
    own: tuple[str, ...] = ()  # the fields the founder set (services/store/own.py)
    # The store owner's policy in a shopper's words (founder_statements.sentences), () before the
    # product has a store: what every Facts built for the store's copy carries as `statements`.
    statements: tuple[str, ...] = ()
    # The same, by topic (returns, shipping, guarantee, ships_to): what a build writes into the
    # document's business block, which the store's pages show as the business's policy.
    policy: dict = field(default_factory=dict)

    @property
    def price(self) -> float:
        """The price the store charges: the founder's own price when they set one, else the
        offer's recommended retail price (the catalog's market price when the product has
        no offer). load() puts a founder's price in both the record and the offer, so the
        AI is given that one price and the publish check holds the store to it."""
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
    researched = records.load(product_id, with_peers=False)  # only the offer is wanted here
    offer = None
    if researched is not None:
        offer, _analysis = records.compute(researched, utcnow().date())
        offer = {k: v for k, v in offer.items() if k not in ("figures", "inputs")}
    own = own_details.override_of(product_id)
    record = own_details.apply(record, own)
    if offer is not None and own is not None and own.price is not None:
        # The store sells at the founder's price: the offer's other figures stay as researched.
        offer = {**offer, "price": float(own.price)}
    policy = store_policy(product_id)
    return StoreFacts(product=record, evidence=rows, offer=offer, own=tuple(own_details.own_fields(own)),
                      statements=tuple(policy.values()), policy=policy)


def store_policy(product_id: str) -> dict[str, str]:
    """The policy the owner of the product's store states ({} when the product has no store yet or
    its owner stated none): the store row names the owner, so every reader of these facts (a
    build, an edit, the publish check) gets the same owner's words."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.owner is None:
        return {}
    return founder_statements.sentences(founder_statements.of(store.owner))
