"""The research workspace of a signed-in account (GET and POST /api/research-workspace):
notes, a shortlist of catalog products and saved discovery queries.

The workspace is the account's, never a session's: every session signed in to the account
reads and changes the same one, and a session without an account has none (the route
answers it with the sign-in-to-research sentence). A product claimed by another founder
never reaches this account: it cannot be shortlisted, and an entry made before the claim
is left out of every answer (and of the count against the cap).

Races are the database's to settle: a product is shortlisted and a query saved at most
once per account (unique indexes; a repeated add answers as the first did), and the caps
are checked under a lock on the account's row (on SQLite the write transaction holds the
database's write lock already), so two adds at once cannot both take the last place.
"""
from __future__ import annotations

import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import is_sqlite, transaction
from models.discovery import Claim
from models.workspace import ResearchNote, SavedQuery, ShortlistEntry
from services.discovery.runs import MAX_QUERY_CHARS
from services.errors import Refused

MAX_NOTE_CHARS = 2000
MAX_NOTES = 200
MAX_SHORTLIST = 100
MAX_SAVED_QUERIES = 50

ADD_NOTE, DELETE_NOTE = "add_note", "delete_note"
SHORTLIST, UNSHORTLIST = "shortlist", "unshortlist"
SAVE_QUERY, DELETE_QUERY = "save_query", "delete_query"
OPS = (ADD_NOTE, DELETE_NOTE, SHORTLIST, UNSHORTLIST, SAVE_QUERY, DELETE_QUERY)


# --- Reading ------------------------------------------------------------------------------------

def _claims_elsewhere(account_id: int, product):
    """The claims on the product (a column or an id) that are not this account's: a claim
    made by an anonymous session is someone else's, as the resolver has it."""
    return Claim.select(Claim.id).where((Claim.product == product)
                                        & (Claim.account.is_null() | (Claim.account != account_id)))


def _visible_shortlist(account_id: int, *columns):
    return (ShortlistEntry.select(*columns).join(Product)
            .where(ShortlistEntry.account == account_id,
                   ~pw.fn.EXISTS(_claims_elsewhere(account_id, ShortlistEntry.product))))


def workspace(*, account_id: int) -> dict:
    """The account's notes, shortlist and saved queries, newest first."""
    notes = ResearchNote.select().where(ResearchNote.account == account_id).order_by(
        ResearchNote.created_at.desc(), ResearchNote.id.desc())
    shortlist = (_visible_shortlist(account_id, ShortlistEntry.product, Product.name, ShortlistEntry.added_at)
                 .order_by(ShortlistEntry.added_at.desc(), ShortlistEntry.id.desc()).tuples())
    queries = SavedQuery.select().where(SavedQuery.account == account_id).order_by(
        SavedQuery.created_at.desc(), SavedQuery.id.desc())
    return {
        "status": "ok",
        "notes": [_note(row) for row in notes],
        "shortlist": [{"product_id": product_id, "name": name, "added_at": iso(added_at)}
                      for product_id, name, added_at in shortlist],
        "saved_queries": [_saved_query(row) for row in queries],
    }


def _note(row: ResearchNote) -> dict:
    return {"id": row.id, "text": row.text, "created_at": iso(row.created_at)}


def _saved_query(row: SavedQuery) -> dict:
    return {"id": row.id, "query": row.query, "created_at": iso(row.created_at)}


# --- Changing -----------------------------------------------------------------------------------

def change(*, account_id: int, op: str, text: str | None = None, id: int | None = None,
           product_id: str | None = None, query: str | None = None) -> dict:
    """Applies one operation to the account's workspace and answers the whole workspace
    (with `op`, and the created `note` or `saved_query` for those operations)."""
    if op == ADD_NOTE:
        extra = {"note": _note(_add_note(account_id, text))}
    elif op == DELETE_NOTE:
        _delete(ResearchNote, account_id, _required_id(op, id), "You have no note with that id.")
        extra = {}
    elif op == SHORTLIST:
        _shortlist(account_id, product_id)
        extra = {}
    elif op == UNSHORTLIST:
        _unshortlist(account_id, product_id)
        extra = {}
    elif op == SAVE_QUERY:
        extra = {"saved_query": _saved_query(_save_query(account_id, query))}
    elif op == DELETE_QUERY:
        _delete(SavedQuery, account_id, _required_id(op, id), "You have no saved query with that id.")
        extra = {}
    else:  # the route validates op; a caller that did not is told the same way
        raise Refused("unknown_workspace_op", f"The research workspace knows these operations: {', '.join(OPS)}.")
    return {**workspace(account_id=account_id), "op": op, **extra}


def _lock_workspace(account_id: int) -> None:
    """Serialises this account's workspace adds until the transaction ends, so the count
    read after it holds until the insert commits. PostgreSQL: the account's row, FOR NO KEY
    UPDATE (it leaves alone the inserts that reference the account, such as claims, which
    take only a key-share lock). SQLite: `transaction()` already holds the write lock."""
    if not is_sqlite():
        list(Account.select(Account.id).where(Account.id == account_id).for_update("FOR NO KEY UPDATE"))


def _full(what: str, cap: int) -> Refused:
    return Refused("workspace_full", f"Your research workspace already holds {cap} {what}, as many as it keeps; "
                                     "delete one first. Nothing was added.")


def _add_note(account_id: int, text: str | None) -> ResearchNote:
    text = (text or "").strip()
    if not text:
        raise Refused("empty_note", "add_note needs `text`: the note to keep. Nothing was saved.")
    if len(text) > MAX_NOTE_CHARS:
        raise Refused("note_too_long", f"A note holds at most {MAX_NOTE_CHARS} characters; this one has {len(text)}. "
                                       "Nothing was saved.")
    with transaction():
        _lock_workspace(account_id)
        if ResearchNote.select().where(ResearchNote.account == account_id).count() >= MAX_NOTES:
            raise _full("notes", MAX_NOTES)
        return ResearchNote.create(account=account_id, text=text, created_at=utcnow())


def _required_id(op: str, id: int | None) -> int:
    if id is None:
        raise Refused("invalid_request", f"{op} needs `id`: the id of the entry to delete. Nothing was changed.")
    return id


def _delete(model, account_id: int, row_id: int, explanation: str) -> None:
    # Another account's id answers exactly as an id that never existed.
    with transaction():
        if model.delete().where(model.id == row_id, model.account == account_id).execute() != 1:
            raise Refused("not_found", explanation + " Nothing was changed.")


def _named_product(product_id: str | None, op: str) -> str:
    if not product_id:
        raise Refused("no_product_id", f"{op} needs `product_id`: the catalog id of the product. Nothing was changed.")
    return product_id


def _shortlist(account_id: int, product_id: str | None) -> None:
    product_id = _named_product(product_id, SHORTLIST)
    if not Product.select().where(Product.product_id == product_id).exists():
        raise Refused("unknown_product", "There is no product with that id in the catalogue. Nothing was shortlisted.")
    if _claims_elsewhere(account_id, product_id).exists():
        raise Refused("claimed_by_another_founder")
    with transaction():
        _lock_workspace(account_id)
        mine = ShortlistEntry.select().where(ShortlistEntry.account == account_id,
                                             ShortlistEntry.product == product_id).exists()
        if not mine and _visible_shortlist(account_id, ShortlistEntry.id).count() >= MAX_SHORTLIST:
            raise _full("shortlisted products", MAX_SHORTLIST)
        # A repeated add (even two at once, from two sessions) keeps the first entry and its date.
        (ShortlistEntry.insert(account=account_id, product=product_id, added_at=utcnow())
         .on_conflict_ignore().execute())


def _unshortlist(account_id: int, product_id: str | None) -> None:
    product_id = _named_product(product_id, UNSHORTLIST)
    with transaction():
        removed = ShortlistEntry.delete().where(ShortlistEntry.account == account_id,
                                                ShortlistEntry.product == product_id).execute()
    if removed != 1:
        raise Refused("not_found", "That product is not on your shortlist. Nothing was changed.")


def _save_query(account_id: int, query: str | None) -> SavedQuery:
    query = (query or "").strip()
    if not query or len(query) > MAX_QUERY_CHARS:
        raise Refused("invalid_query", f"save_query needs `query`: the words of a discovery query, 1 to "
                                       f"{MAX_QUERY_CHARS} characters. Nothing was saved.")
    with transaction():
        _lock_workspace(account_id)
        saved = SavedQuery.get_or_none(SavedQuery.account == account_id, SavedQuery.query == query)
        if saved is not None:
            return saved  # saved once per account; saving it again answers the same entry
        if SavedQuery.select().where(SavedQuery.account == account_id).count() >= MAX_SAVED_QUERIES:
            raise _full("saved queries", MAX_SAVED_QUERIES)
        (SavedQuery.insert(account=account_id, query=query, created_at=utcnow())
         .on_conflict_ignore().execute())
        return SavedQuery.get(SavedQuery.account == account_id, SavedQuery.query == query)
