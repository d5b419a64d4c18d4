"""The store editor's history: the versions, the draft (the version the editor shows,
previews and publishes) and moving it with undo, redo and go-to-version.

Versions are never changed or removed. Each names the version it was made from (its
parent), so the history is a tree: undo moves the draft to its parent, redo to the newest
version made from it, and go-to-version anywhere. Moving the draft writes no version, so it
costs nothing; the next change is made from wherever the draft stands.
"""
from __future__ import annotations

from models.clock import iso, utcnow
from models.db import transaction
from models.store import Store, StoreVersion
from services.errors import Refused
from services.store import render
from services.store.sections import said

UNDO, REDO = "undo", "redo"


def _store(product_id: str) -> Store:
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        raise Refused("not_started")
    return store


def _entry(row: StoreVersion, store: Store) -> dict:
    return {"number": row.number, "created_at": iso(row.created_at), "summary": row.summary, "parent": row.parent,
            "draft": row.number == store.draft, "published": row.number == store.published_version}


def versions(product_id: str) -> dict:
    """GET /api/editor/versions: every version, newest first."""
    store = _store(product_id)
    rows = StoreVersion.select(StoreVersion.number, StoreVersion.created_at, StoreVersion.summary,
                               StoreVersion.parent).where(StoreVersion.store == product_id)
    entries = sorted((_entry(row, store) for row in rows), key=lambda e: -e["number"])
    return {"status": "ok", "product_id": product_id, "draft_version": store.draft,
            "published_version": store.published_version, "versions": entries}


def version(product_id: str, number: int) -> dict:
    """GET /api/editor/versions/<n>: one version with its document and its patch."""
    store = _store(product_id)
    row = StoreVersion.get_or_none(StoreVersion.store == product_id, StoreVersion.number == number)
    if row is None:
        raise Refused("unknown_version", f"Your store has no version {number}; it has versions 1 to {store.version}.")
    return {"status": "ok", "product_id": product_id, **_entry(row, store), "document": row.document,
            "patch": row.patch}


def draft(product_id: str) -> dict:
    """GET /api/editor/draft: the draft version and its document."""
    store = _store(product_id)
    row = StoreVersion.get(StoreVersion.store == product_id, StoreVersion.number == store.draft)
    return {"status": "ok", "product_id": product_id, **_entry(row, store), "document": row.document,
            "preview_url": f"/store/{store.slug}/preview/", "home_sections": home_sections(row.document)}


def home_sections(document: dict) -> list[dict]:
    """The home page as the founder's preview shows it, top to bottom, each section in the
    founder's words and whether shoppers see it: what the page shows (render.shown_sections),
    so the Store screen's drawing never lists a section the page does not have."""
    previewed, public = render.shown_sections(document)
    return [{"section": kind, "said": said(kind), "shoppers_see": kind in public} for kind in previewed]


def move(product_id: str, *, direction: str | None = None, to: int | None = None) -> dict:
    """Moves the draft (undo, redo, or to a version); answers where it stands."""
    with transaction():
        store = _store(product_id)
        if to is not None:
            if not StoreVersion.select().where(StoreVersion.store == product_id, StoreVersion.number == to).exists():
                raise Refused("unknown_version", f"Your store has no version {to}; it has versions 1 to "
                                                 f"{store.version}.")
            target = to
        elif direction not in (UNDO, REDO):
            raise Refused("no_direction", "Say undo or redo (direction), or name a version to go to.")
        elif store.version == 1:
            raise Refused("no_history", "Your store has one version only, so there is nothing to move between.")
        elif direction == UNDO:
            target = StoreVersion.get(StoreVersion.store == product_id, StoreVersion.number == store.draft).parent
            if target is None:
                raise Refused("nothing_to_undo", f"Version {store.draft} is the first: there is nothing before it.")
        else:
            child = (StoreVersion.select(StoreVersion.number)
                     .where(StoreVersion.store == product_id, StoreVersion.parent == store.draft)
                     .order_by(StoreVersion.number.desc()).first())
            if child is None:
                raise Refused("nothing_to_redo", f"No version was made from version {store.draft}, so there is "
                                                 "nothing to redo.")
            target = child.number
        Store.update(draft_version=target, updated_at=utcnow()).where(Store.product == product_id).execute()
    return {"status": "edited", "product_id": product_id, "version": target, "moved": direction or "to_version",
            "diff": []}
