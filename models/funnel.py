"""What the store pages report and where founders are: funnel events from a published
store's visitors (POST /api/track), and each session's last screen (POST /api/presence)."""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class FunnelEvent(BaseModel):
    """One funnel event of one store visitor on one day (UTC). The unique index keeps one row
    per (product, visitor session, event, day), however often or concurrently it is sent.
    `visitor_session` is the id the store's script made up in the visitor's browser: it is
    not an ff_session and refers to nothing."""

    id = pw.BigAutoField()
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+")
    visitor_session = pw.CharField(max_length=64)
    event = pw.CharField(max_length=16)
    day = pw.DateField()
    campaign = pw.CharField(max_length=64, null=True)  # the utm_campaign the visitor arrived by, if any
    created_at = pw.DateTimeField(default=utcnow)

    PAGE_VIEW, ADD_TO_CART, CHECKOUT, PAID = "page_view", "add_to_cart", "checkout", "paid"
    EVENTS = (PAGE_VIEW, ADD_TO_CART, CHECKOUT, PAID)

    class Meta:
        table_name = "funnel_event"
        indexes = (
            (("product", "visitor_session", "event", "day"), True),
            (("product", "event", "day"), False),  # the metrics' window, per event
        )


# The retention prune walks events by day, oldest first (migration m0040).
FunnelEvent.add_index(FunnelEvent.index(FunnelEvent.day, FunnelEvent.id, name="funnel_event_day"))


class Presence(BaseModel):
    """Where a session last was in the app (its latest area and screen), for support and the
    walkthrough; one row per session, overwritten each time."""

    session = pw.ForeignKeyField(Session, primary_key=True, on_delete="CASCADE", column_name="session_id",
                                 backref="+")
    area = pw.CharField(max_length=40)
    screen = pw.CharField(max_length=40)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "session_presence"
