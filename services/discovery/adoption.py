"""Adoption: when a session is bound to an account (POST /api/account, sign-in), what it
did in discovery becomes the account's. Runs inside the binding transaction."""
from __future__ import annotations

import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.discovery import Claim, ClaimAllowance, Hold, Passed, Seen, ShareAction, Watch
from services.discovery.allowance import MAX_SHARE_LIFTS, ensure_allowance_row
from services.ownership import Owner, adopter, adoption_keys


def _counted(count: int, one: str, many: str) -> list[str]:
    return [one if count == 1 else many.format(count)] if count else []


def _discovery_held(session_id: int) -> list[str]:
    """The session's live hold and claims by product name, and how many products it was
    shown, passed on and watches, and how often it shared its link."""
    mine = Owner(session_id=session_id, account_id=None)

    def names(model, *conditions):
        return [row.name for row in Product.select(Product.name)
                .join(model, on=(model.product == Product.product_id))
                .where(mine.owns(model), *conditions).order_by(model.created_at)]

    def count(model):
        return model.select().where(mine.owns(model)).count()

    return ([f"the product you are holding, {name}" for name in names(Hold, Hold.expires_at > utcnow())]
            + [f"your claimed product {name} and its store" for name in names(Claim)]
            + _counted(count(Seen), "a product you were shown", "{} products you were shown")
            + _counted(count(Passed), "a product you passed on", "{} products you passed on")
            + _counted(count(Watch), "a price watch", "{} price watches")
            + _counted(count(ShareAction), "a share of your link", "{} shares of your link"))


@adopter(kind="discovery", held=_discovery_held)
def adopt_discovery(session_id: int, account_id: int) -> dict:
    """A session's claims, holds, seen and passed products, shares, watches and allowance
    become its account's."""
    claimed = [pid for (pid,) in Claim.select(Claim.product)
               .where(Claim.session == session_id, Claim.account.is_null()).tuples()]
    for model in (Claim, Hold, Seen, Passed, ShareAction, Watch):
        model.update(account=account_id).where(model.session == session_id, model.account.is_null()).execute()
    session_key, account_key = adoption_keys(session_id, account_id)
    row = ClaimAllowance.get_or_none(ClaimAllowance.owner == session_key)
    if row is not None:
        now = utcnow()
        ensure_allowance_row(account_key, now)
        lifts = ClaimAllowance.lifts + row.lifts
        (ClaimAllowance.update(claims_made=ClaimAllowance.claims_made + row.claims_made,
                               shares=ClaimAllowance.shares + row.shares,
                               lifts=pw.Case(None, [(lifts > MAX_SHARE_LIFTS, MAX_SHARE_LIFTS)], lifts),
                               updated_at=now)
         .where(ClaimAllowance.owner == account_key).execute())
        ClaimAllowance.delete().where(ClaimAllowance.owner == session_key).execute()
    return {"claims": claimed}
