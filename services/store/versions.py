"""Numbered store versions: each is the whole document plus the JSON Patch (RFC 6902) from
the version before, written once and never changed."""
from __future__ import annotations

import jsonpatch

from models.clock import utcnow
from models.db import is_sqlite
from models.store import Store, StoreVersion
from services.store.document import problems


def latest(product_id: str) -> StoreVersion | None:
    """The store's draft: the version the editor shows, previews and publishes (the newest
    unless undo or redo moved it)."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        return None
    return StoreVersion.get(StoreVersion.store == product_id, StoreVersion.number == store.draft)


def document_of(product_id: str, number: int) -> dict | None:
    row = StoreVersion.get_or_none(StoreVersion.store == product_id, StoreVersion.number == number)
    return row.document if row else None


def write_version(product_id: str, document: dict, *, summary: str, dropped: list | None = None) -> int:
    """Stores `document` as the store's next version; returns its number. Call it inside a
    transaction: the store row is locked first, so two writers never take one number (the
    primary key would refuse the second anyway)."""
    wrong = problems(document)
    if wrong:  # a version is never stored half-formed: rendering and every later patch rely on it
        raise ValueError("not a valid store document: " + "; ".join(wrong))
    query = Store.select().where(Store.product == product_id)
    store = (query if is_sqlite() else query.for_update()).get()
    parent = store.draft if store.version else None
    previous = document_of(product_id, parent) if parent else None
    number = store.version + 1
    patch = jsonpatch.make_patch(previous, document).patch if previous is not None else [
        {"op": "add", "path": "", "value": document}]
    now = utcnow()
    StoreVersion.create(store=product_id, number=number, document=document, patch=patch, summary=summary,
                        parent=parent, dropped=dropped or [], created_at=now)
    Store.update(version=number, draft_version=number, updated_at=now).where(Store.product == product_id).execute()
    return number


def apply_patches(product_id: str, upto: int) -> dict:
    """The document of version `upto`, rebuilt from the patches alone along its parents (a
    check that the stored patches really reproduce every version)."""
    rows = {row.number: row for row in StoreVersion.select().where(StoreVersion.store == product_id)}
    chain, number = [], upto
    while number is not None:
        chain.append(rows[number])
        number = rows[number].parent
    document = chain[-1].patch[0]["value"]
    for row in reversed(chain[:-1]):
        document = jsonpatch.apply_patch(document, row.patch)
    return document
