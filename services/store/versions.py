"""Numbered store versions: each is the whole document plus the JSON Patch (RFC 6902) from
the version before, written once and never changed.

Each version also names the parts of the store the founder changed along its history
(`founder_changes`: copy fields by name, and "lead"): a version the founder made (a
plain-language edit, an applied intent, a leading section, a revert) adds the parts it
changed to those of the version it was made from; any other (a build, a regeneration, the
founder's product details) keeps its parent's, because a build puts those changes back
(services/store/builds.py). Undo and redo move the draft without writing, so what a rebuild
keeps is always what the draft the founder sees carries."""
from __future__ import annotations

import jsonpatch

from models.clock import utcnow
from models.db import is_sqlite
from models.store import Store, StoreVersion
from services.store.document import problems
from services.store.sections import COPY_PARTS


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


def write_version(product_id: str, document: dict, *, summary: str, dropped: list | None = None,
                  by_founder: bool = False) -> int:
    """Stores `document` as the store's next version; returns its number (`by_founder`: the
    founder made this change, so the parts it changes join those a rebuild keeps). Call it
    inside a transaction: the store row is locked first, so two writers never take one
    number (the primary key would refuse the second anyway)."""
    wrong = problems(document)
    if wrong:  # a version is never stored half-formed: rendering and every later patch rely on it
        raise ValueError("not a valid store document: " + "; ".join(wrong))
    query = Store.select().where(Store.product == product_id)
    store = (query if is_sqlite() else query.for_update()).get()
    parent = store.draft if store.version else None
    previous_row = StoreVersion.get_or_none(StoreVersion.store == product_id, StoreVersion.number == parent)
    previous = previous_row.document if previous_row else None
    founder_changes = set(previous_row.founder_changes or []) if previous_row else set()
    if by_founder and previous is not None:
        founder_changes |= changed_parts(previous, document)
    number = store.version + 1
    patch = jsonpatch.make_patch(previous, document).patch if previous is not None else [
        {"op": "add", "path": "", "value": document}]
    now = utcnow()
    StoreVersion.create(store=product_id, number=number, document=document, patch=patch, summary=summary,
                        parent=parent, dropped=dropped or [], founder_changes=sorted(founder_changes),
                        created_at=now)
    Store.update(version=number, draft_version=number, updated_at=now).where(Store.product == product_id).execute()
    return number


def changed_parts(before: dict, after: dict) -> set[str]:
    """The parts a founder can change (copy fields by name, and "lead") that differ between two documents."""
    copy_before, copy_after = before.get("copy") or {}, after.get("copy") or {}
    parts = {name for name in set(copy_before) | set(copy_after) if copy_before.get(name) != copy_after.get(name)}
    return parts | ({"lead"} if before.get("lead") != after.get("lead") else set())


# A part of the store the founder changed, as their screens name it: the copy's parts in the
# words its bounds are told in (sections.COPY_PARTS), and the home page's lead.
PART_WORDS = {field: whole[0].lower() + whole[1:] for field, (whole, _item) in COPY_PARTS.items()} \
    | {"lead": "the section the home page leads with"}


def parts_said(parts) -> list[dict]:
    """The founder's changed parts in the order their screens list them, each {part, said}."""
    order = list(PART_WORDS)
    return [{"part": part, "said": PART_WORDS.get(part, part)}
            for part in sorted(parts or [], key=lambda p: (order.index(p) if p in order else len(order), p))]


def with_lead(document: dict, section: str) -> dict:
    """The document with its home page leading with `section` (moved first, the rest in order)."""
    pages = []
    for page in document["pages"]:
        if page["id"] == "home":
            sections = sorted(page["sections"], key=lambda s: s.get("type") != section)
            if all(s.get("type") != section for s in sections):
                sections = [{"type": section}] + sections
            page = {**page, "sections": sections}
        pages.append(page)
    return {**document, "lead": section, "pages": pages}


def lineage(product_id: str, number: int) -> list[int]:
    """The version `number` and the versions it was made from, back to the first (newest first)."""
    parents = dict(StoreVersion.select(StoreVersion.number, StoreVersion.parent)
                   .where(StoreVersion.store == product_id).tuples())
    line = []
    while number is not None and number in parents and number not in line:
        line.append(number)
        number = parents[number]
    return line


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
