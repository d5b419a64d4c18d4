"""The launch state of a claimed product (POST /api/product-launch): one row per product,
moved only by conditional updates (services/launch_state.py)."""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel


class ProductLaunch(BaseModel):
    """Where a product stands on its way to customers. No row reads as `draft`."""

    DRAFT, READY, LIVE, PAUSED, RETIRED = "draft", "ready", "live", "paused", "retired"
    STATES = (DRAFT, READY, LIVE, PAUSED, RETIRED)

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id", backref="+")
    state = pw.CharField(max_length=16, default=DRAFT)
    previous = pw.CharField(max_length=16, null=True)  # the state before the last transition
    changed_at = pw.DateTimeField(default=utcnow)

    # Launch states in which customers cannot buy the product: its store's buy box says so, a
    # new checkout is refused and the checkouts still open are closed (issues 44, 47). A
    # published store sells until its founder pauses or retires the product: a product with
    # no row (draft), ready or live is on sale once its store is published.
    NOT_ON_SALE = (PAUSED, RETIRED)

    class Meta:
        table_name = "product_launch"

    @classmethod
    def on_sale(cls, product_id: str) -> bool:
        """Whether customers may buy the product now, by its launch state."""
        return not cls.select().where(cls.product == product_id, cls.state.in_(cls.NOT_ON_SALE)).exists()
