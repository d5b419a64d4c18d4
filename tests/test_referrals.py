"""Referral codes, coded links and the friends credited to them; adoption on sign-in."""
from models.account import Referral, ReferralCode
from models.session import Session
from services import referrals
from services.ownership import ADOPTERS, adopter
from services.sessions import hash_token
from tests.mailbox import last_link, path_of


def session_of(client):
    return Session.get(Session.token_hash == hash_token(client.get_cookie("ff_session").value))


def test_a_coded_link_credits_the_friend_when_their_account_is_verified(founder, run_jobs):
    sharer = founder()
    sharer.get("/api/health")
    code = referrals.code_for(session_of(sharer))
    friend = founder()
    response = friend.get(f"/r/{code}")
    assert response.status_code == 303 and response.headers["Location"] == "/"
    friend.post("/api/account", json={"email": "friend@x.com"})
    run_jobs()
    friend.get(path_of(last_link("friend@x.com")))
    referral = Referral.get()
    assert referral.code_id == code and referral.qualified_at is None
    # The sharer signs up later: the code, and the friend on it, become the sharer's account's.
    sharer.post("/api/account", json={"email": "sharer@x.com"})
    sharer_account = session_of(sharer).account_id
    assert ReferralCode.get_by_id(code).account_id == sharer_account
    assert referrals.qualified_count(sharer_account) == 0
    assert referrals.qualify(referral.friend_id)
    assert referrals.qualified_count(sharer_account) == 1


def test_your_own_code_and_unknown_codes_are_not_remembered(founder):
    client = founder()
    client.get("/api/health")
    own = referrals.code_for(session_of(client))
    client.get(f"/r/{own}")
    client.get("/r/doesnotexist")
    assert session_of(client).arrived_with_code is None


def test_every_account_has_a_durable_code_after_first_sign_in(client, run_jobs):
    client.post("/api/account", json={"email": "durable@x.com"})
    run_jobs()
    client.get(path_of(last_link("durable@x.com")))
    account_id = session_of(client).account_id
    code = referrals.settle_for_account(account_id)
    assert ReferralCode.select().where(ReferralCode.account == account_id).count() == 1
    assert referrals.code_for(session_of(client)) == code


def test_referral_multipliers_follow_spec_8_3():
    assert [referrals.multiplier_for(n) for n in range(8)] == [1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 4.0, 4.0]


ADOPTED = []


def test_saving_and_signing_in_adopt_only_what_the_opening_session_did(founder, run_jobs):
    @adopter(kind="recorded", held=lambda session_id: [])
    def record(session_id, account_id):
        ADOPTED.append((session_id, account_id))
        return {"claims": [f"p-{session_id}"]}

    try:
        visitor = founder()
        body = visitor.post("/api/account", json={"email": "adopt@x.com"}).get_json()
        # Saving an address proves nothing, so nothing is adopted until a link is opened.
        assert body["adopted_claims"] == [] and ADOPTED == []
        # Saving mailed the visitor a link too. Let that job finish before the guest asks:
        # both jobs wait on one per-address lock, so run together either could mail last.
        run_jobs()
        # A guest on the product surface asks for a link and it is opened in another browser:
        # only that browser's rows join the account; the guest that asked plants nothing.
        guest = founder()
        guest.post("/api/auth/request-link", json={"email": "adopt@x.com"})
        guest_session = session_of(guest).id
        run_jobs()
        other_browser = founder()
        other_browser.get(path_of(last_link("adopt@x.com", path="/api/auth/callback")))
        account_id = session_of(other_browser).account_id
        assert ADOPTED == [(session_of(other_browser).id, account_id)]
        assert guest_session not in [session_id for session_id, _ in ADOPTED]
    finally:
        ADOPTERS[:] = [entry for entry in ADOPTERS if entry.adopt is not record]
