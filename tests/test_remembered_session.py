"""Find and feed act on the session this process remembers for the cookie without reading it
first (api/discovery._as_remembered, services/sessions.remembered_session): their own statement
reads the token's row again, and a session that changed since it was remembered (signed in by
a link opened elsewhere, given a new token, pruned) is never acted on as it was. Each change
here is made in the database behind this process's back, as another web process would."""
from __future__ import annotations

import pytest

from models.account import Account
from models.clock import utcnow
from models.session import Session
from services import sessions
from services.kept import Kept
from tests.factories import catalog, cookie_of, find, looks_up_session, session_of, statements

pytestmark = pytest.mark.usefixtures("frozen_clock")
PATHS = ["/api/feed", "/api/find"]


def _own(response) -> str:
    """The product id of the founder's own card (the feed's first, or find's card)."""
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    card = body[0] if isinstance(body, list) else body
    assert card["yours"] is True
    return card["product_id"]


def _looked_up(seen) -> bool:
    """Whether the session was looked up by a statement of its own (not within the state's)."""
    return any(map(looks_up_session, seen))


@pytest.mark.parametrize("path", PATHS)
def test_a_repeat_request_does_not_look_the_session_up_and_answers_the_same(founder, path):
    catalog(5)
    client = founder()
    client.get("/api/health")  # a newcomer's session is made, not read: the next request reads it
    first = client.get(path)
    with statements() as seen:
        again = client.get(path)
    assert again.status_code == 200 and again.get_json() == first.get_json()
    assert not _looked_up(seen), seen
    assert "ff_session" not in again.headers.get("Set-Cookie", "")


@pytest.mark.parametrize("path", PATHS)
def test_a_session_signed_in_elsewhere_is_served_as_its_account(founder, signed_in, path):
    """The browser's session is signed in by a link opened in another web process: this one
    still remembers it anonymous. The account holds another product (from its own device);
    the next request must serve the account's hold, not the anonymous one."""
    catalog(5)
    browser = founder()
    assert _own(browser.get(path)) == "p00"  # remembered here, anonymous
    phone = signed_in("founder@example.com")
    assert _own(phone.get(path)) == "p01"  # the account's hold
    account = Account.get(Account.email == "founder@example.com")
    Session.update(account_id=account.id, bound_at=utcnow()).where(Session.id == session_of(browser).id).execute()
    assert _own(browser.get(path)) == "p01"
    assert _own(browser.get(path)) == "p01"  # and remembered as it is now


@pytest.mark.parametrize("path", PATHS)
def test_an_old_token_is_never_acted_on_after_the_session_gets_a_new_one(founder, path):
    """A sign-in gives the session a new token (services/sessions.rotate): the old cookie value
    no longer names it, so a request still carrying it is a newcomer, with a cookie of its own."""
    catalog(5)
    browser = founder()
    assert _own(browser.get(path)) == "p00"
    old = cookie_of(browser)
    sessions.rotate(session_of(browser))
    stranger = founder()
    stranger.set_cookie("ff_session", old)
    response = stranger.get(path)
    assert _own(response) == "p01"  # p00 is still held by the session, now under its new token
    assert cookie_of(stranger) != old


@pytest.mark.parametrize("path", PATHS)
def test_a_pruned_session_is_a_newcomer(founder, path):
    catalog(5)
    browser = founder()
    assert _own(browser.get(path)) == "p00"
    old = cookie_of(browser)
    Session.delete().where(Session.id == session_of(browser).id).execute()
    response = browser.get(path)
    assert response.status_code == 200 and cookie_of(browser) != old


def test_this_process_remembers_at_most_its_bound(founder, monkeypatch):
    monkeypatch.setattr(sessions, "_remembered", Kept(3))
    catalog(8)
    browsers = [founder() for _ in range(6)]
    for browser in browsers:
        assert find(browser).status_code == 200  # the first: looked up and remembered
        assert find(browser).status_code == 200
    assert len(sessions._remembered) == 3
    # The first ones were dropped: they are looked up again, and answered as before.
    with statements() as seen:
        assert _own(find(browsers[0])) == "p00"
    assert _looked_up(seen), seen
