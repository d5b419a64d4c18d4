"""Storefronts: one store per product, built by the founder who holds or claimed it, and its
numbered versions.

A store version is the whole store document (services/store/document.py), the JSON Patch
(RFC 6902) that turns the previous version into it, and a one-line summary. Versions are
never changed once written, so any version (a published one included) can be rendered
again exactly as it was; undo is writing an older document as a new version.
"""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField


class Store(BaseModel):
    """A product's store. `version` is the newest version (0 before the first build
    finished); `published_version` the one the public pages serve (None: unpublished)."""

    @property
    def draft(self) -> int:
        return self.draft_version or self.version

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id", backref="+")
    slug = pw.CharField(max_length=80, unique=True)
    # Who built it (services.ownership.Owner.key): a store may be built on a hold, which
    # lapses, so the product's next founder must not find this one's draft.
    owner = pw.CharField(max_length=40, null=True, index=True)
    version = pw.IntegerField(default=0)
    # The version the editor shows, previews and publishes (None: the newest). Undo and redo
    # move it along the versions' parents without writing anything.
    draft_version = pw.IntegerField(null=True)
    published_version = pw.IntegerField(null=True)
    published_at = pw.DateTimeField(null=True)
    created_at = pw.DateTimeField(default=utcnow)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "store"


class StoreVersion(BaseModel):
    store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id", backref="+")
    number = pw.IntegerField()
    document = JSONField()
    patch = JSONField()  # RFC 6902 operations from the previous version's document ([] adds the whole first one)
    summary = pw.TextField()
    parent = pw.IntegerField(null=True)  # the version this one was made from (None for the first)
    dropped = JSONField(default=list)  # sentences the AI wrote that the product record could not back
    # The parts of the store (copy fields by name, and "lead") the founder changed along this
    # version's history (services/store/versions.py): what a rebuild puts back on its new draft.
    founder_changes = JSONField(null=True)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "store_version"
        primary_key = pw.CompositeKey("store", "number")


class StoreIntent(BaseModel):
    """An evidence-backed change applied to a store (POST /api/intent/apply): what it asked,
    the evidence row behind it, the version it was applied on and the one it made, and
    whether it was reverted. `previous_lead` lets a revert say what it restored."""

    APPLIED = "applied"
    REVERTED = "reverted"

    id = pw.BigAutoField()
    store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id", backref="+")
    surface = pw.CharField(max_length=20)
    requested = pw.TextField()
    change = JSONField()  # the signed intent_change as applied
    lead = pw.CharField(max_length=20)
    previous_lead = pw.CharField(max_length=20)
    reversible = pw.BooleanField()
    base_version = pw.IntegerField()  # the store version the change was applied on
    version = pw.IntegerField(null=True)  # the version it made (None until its job wrote it)
    status = pw.CharField(max_length=12, default=APPLIED)
    created_at = pw.DateTimeField(default=utcnow)
    reverted_at = pw.DateTimeField(null=True)
    # The version the revert made: the draft's line of versions says whether it still carries
    # the intent (a step back past the revert puts the intent back in force).
    reverted_version = pw.IntegerField(null=True)

    class Meta:
        table_name = "store_intent"
