"""Accounts for meter tests (tests/test_meter.py, tests/test_meter_ahead.py): an account of a
tier, with qualified referrals if asked, a founder's session signed in to it, and its counter row."""
from __future__ import annotations

import itertools

from models.account import Account, MeterUsage, Referral, ReferralCode
from models.clock import utcnow
from models.session import Session
from services.sessions import hash_token

_emails = itertools.count()


def make_account(tier="free", *, term_ends_at=None, referrals=0, unqualified=0) -> Account:
    account = Account.create(email=f"founder{next(_emails)}@example.com", tier=tier, term_ends_at=term_ends_at)
    if referrals or unqualified:
        code = ReferralCode.create(code=f"code{account.id}", account=account.id)
        for i in range(referrals + unqualified):
            friend = Account.create(email=f"friend{next(_emails)}@example.com")
            Referral.create(code=code.code, friend=friend.id, qualified_at=utcnow() if i < referrals else None)
    return account


def bind(client, account: Account) -> None:
    """Signs the client's session in to the account (as a redeemed link would)."""
    cookie = client.get_cookie("ff_session")
    if cookie is None:
        client.get("/api/usage")
        cookie = client.get_cookie("ff_session")
    updated = Session.update(account_id=account.id).where(Session.token_hash == hash_token(cookie.value)).execute()
    assert updated == 1


def row(account: Account, bucket: str = "find") -> MeterUsage | None:
    return MeterUsage.get_or_none((MeterUsage.account == account.id) & (MeterUsage.bucket == bucket))
