"""Login CSRF (reliability guide, sessions and sign-in): a sign-in link opened in a browser
session other than the one that asked for it, while that session has work of its own or
another account, switches and merges nothing until the founder confirms on the app's
screen with a same-origin POST (one use, minutes long). Spec 5 rule 8 still holds: GET
/login answers 303 and sets the cookie in every case."""
import pytest

from models.account import Account, SignInConfirmation, SignInToken
from models.clock import clock
from models.discovery import Claim, Hold
from services.sign_in import CONFIRM_MINUTES
from tests.factories import FAILURE, SUCCESS, claim, cookie_of, find, item, load, session_of
from tests.mailbox import last_link, path_of, sign_in_here

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

ATTACKER = "attacker@example.com"
CONFIRM = "/#/app/confirm-sign-in"


@pytest.fixture
def planted(founder, run_jobs):
    """An attacker with a verified account asks for a link to their own address: the link
    they will get a victim to open. Answers the link's path."""
    load(item("p01", rank=10, name="Walnut Knife Strip"), item("p02", rank=5))
    attacker = founder()
    sign_in_here(attacker, run_jobs, ATTACKER)
    attacker.post("/api/login/request", json={"email": ATTACKER})
    run_jobs()
    return path_of(last_link(ATTACKER))


def code_of(location: str) -> str:
    assert location.startswith(CONFIRM + "?code="), location
    return location.split("?code=", 1)[1]


def confirm_get(client, code):
    return client.get(f"/api/login/confirm?code={code}")


def confirm_post(client, code, **headers):
    return client.post("/api/login/confirm", json={"code": code}, headers=headers)


def refused(response, status, reason):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["reason"] == reason and body["explanation"]
    return body


def test_a_planted_link_in_a_browser_with_work_is_held_and_only_a_same_origin_post_completes_it(planted, founder):
    victim = founder()
    assert find(victim).get_json()["product_id"] == "p01"
    before = cookie_of(victim)
    opened = victim.get(planted)
    assert opened.status_code == 303 and opened.headers["Cache-Control"] == "private, no-store, must-revalidate"
    code = code_of(opened.headers["Location"])
    assert "ff_session=" in opened.headers["Set-Cookie"] and cookie_of(victim) == before  # not rotated: nothing switched
    # Nothing switched, nothing merged, the link not spent.
    assert victim.get("/api/account").get_json()["account"] is None
    assert Hold.get().account_id is None and Hold.get().session_id == session_of(victim).id
    assert SignInToken.select().where(SignInToken.spent_at.is_null(False)).count() == 1  # the attacker's own sign-in
    # The screen names the account (masked) and what becomes of the work here.
    shown = confirm_get(victim, code)
    assert shown.status_code == 200
    body = shown.get_json()
    assert body["status"] == "confirm" and body["account"] == "at••••••@ex•••••.com" and ATTACKER not in str(body)
    assert body["work"] == [{"kind": "discovery", "items": ["the product you are holding, Walnut Knife Strip",
                                                            "a product you were shown"]}]
    assert body["kept"] == []
    assert body["signed_in_as"] is None and body["saved_as"] is None and body["expires_at"] > 0
    # Another site cannot complete it for the victim.
    refused(confirm_post(victim, code, Origin="https://evil.example"), 403, "cross_site_request")
    refused(confirm_post(victim, code, **{"Sec-Fetch-Site": "cross-site"}), 403, "cross_site_request")
    assert victim.get("/api/account").get_json()["account"] is None
    # The founder's own confirmation signs in, moves the work and rotates the cookie.
    done = confirm_post(victim, code, Origin="http://localhost")
    assert done.status_code == 200, done.get_data(as_text=True)
    assert done.get_json() == {"status": "signed_in", "account": ATTACKER, "location": SUCCESS}
    assert cookie_of(victim) != before
    assert victim.get("/api/account").get_json()["account"] == ATTACKER
    assert Hold.get().account_id == Account.get(Account.email == ATTACKER).id
    # One use.
    refused(confirm_post(victim, code), 400, "invalid_confirmation")
    refused(confirm_get(victim, code), 400, "invalid_confirmation")


def test_a_planted_link_in_a_signed_in_browser_does_not_switch_its_account(planted, founder, run_jobs):
    victim = founder()
    sign_in_here(victim, run_jobs, "victim@example.com")
    find(victim)
    assert claim(victim).get_json()["status"] == "claimed"
    code = code_of(victim.get(planted).headers["Location"])
    assert victim.get("/api/account").get_json()["account"] == "victim@example.com"
    body = confirm_get(victim, code).get_json()
    assert body["signed_in_as"] == "vi••••@ex•••••.com" and body["account"] == "at••••••@ex•••••.com"
    assert body["work"] == [] and body["kept"] == []  # the victim's claim is its account's and stays there
    assert confirm_post(victim, code).get_json()["account"] == ATTACKER
    # The victim's account keeps its claim; the attacker's account gained nothing of it.
    victim_account = Account.get(Account.email == "victim@example.com").id
    assert [c.account_id for c in Claim.select()] == [victim_account]


@pytest.mark.parametrize("work", ["claim", "saved_address"])
def test_a_planted_link_is_held_for_a_claim_or_another_saved_address(planted, founder, work):
    victim = founder()
    if work == "claim":
        find(victim)
        claim(victim)
    else:
        victim.post("/api/account", json={"email": "not-yet-proven@example.com"})
    code_of(victim.get(planted).headers["Location"])
    expected = "not-yet-proven@example.com" if work == "saved_address" else None
    assert victim.get("/api/account").get_json()["account"] == expected


def test_a_link_opened_in_the_browser_that_asked_for_it_signs_in_at_once_with_its_work(founder, run_jobs):
    load(item("p01"))
    browser = founder()
    find(browser)
    browser.post("/api/account", json={"email": "mine@example.com"})
    run_jobs()
    assert browser.get(path_of(last_link("mine@example.com"))).headers["Location"] == SUCCESS
    assert Hold.get().account_id == Account.get(Account.email == "mine@example.com").id


def test_a_link_opened_in_an_empty_browser_signs_in_at_once(planted, founder):
    empty = founder()
    assert empty.get(planted).headers["Location"] == SUCCESS
    assert empty.get("/api/account").get_json()["account"] == ATTACKER
    assert SignInConfirmation.select().count() == 0


def test_head_on_a_planted_link_holds_and_spends_nothing(planted, founder):
    victim = founder()
    find(victim)
    head = victim.head(planted)
    assert head.status_code == 303 and head.headers["Location"] == CONFIRM
    assert SignInConfirmation.select().count() == 0
    assert SignInToken.select().where(SignInToken.spent_at.is_null()).count() == 1


def test_a_confirmation_works_only_in_the_browser_it_was_opened_in(planted, founder):
    victim = founder()
    find(victim)
    code = code_of(victim.get(planted).headers["Location"])
    stranger = founder()
    refused(confirm_get(stranger, code), 400, "invalid_confirmation")
    refused(confirm_post(stranger, code), 400, "invalid_confirmation")
    assert stranger.get("/api/account").get_json()["account"] is None
    assert confirm_post(victim, code).status_code == 200  # still the victim's to confirm


def test_a_confirmation_lapses_after_its_minutes(planted, founder):
    victim = founder()
    find(victim)
    code = code_of(victim.get(planted).headers["Location"])
    clock.advance(CONFIRM_MINUTES * 60 + 1)
    refused(confirm_post(victim, code), 400, "invalid_confirmation")
    assert victim.get("/api/account").get_json()["account"] is None


def test_a_link_spent_elsewhere_cannot_be_confirmed(planted, founder):
    victim = founder()
    find(victim)
    code = code_of(victim.get(planted).headers["Location"])
    assert founder().get(planted).headers["Location"] == SUCCESS  # an empty browser spends it first
    refused(confirm_post(victim, code), 400, "invalid_confirmation")
    assert victim.get("/api/account").get_json()["account"] is None
    assert victim.get(planted).headers["Location"] == FAILURE


@pytest.mark.parametrize("code", ["", "unknown", "x" * 201])
def test_an_unknown_or_malformed_code_is_400_invalid_confirmation(client, code):
    refused(confirm_post(client, code), 400, "invalid_confirmation")
    refused(confirm_get(client, code), 400, "invalid_confirmation")


def test_a_missing_code_is_400_invalid_confirmation(client):
    refused(client.post("/api/login/confirm", json={}), 400, "invalid_confirmation")
    refused(client.get("/api/login/confirm"), 400, "invalid_confirmation")


def test_a_product_surface_link_is_held_the_same_way_and_returns_where_it_began(founder, run_jobs):
    load(item("p01"))
    sign_in_here(founder(), run_jobs, ATTACKER)
    asker = founder()
    asker.post("/api/auth/request-link", json={"email": ATTACKER, "returnTo": "/app/pages/7"})
    run_jobs()
    victim = founder()
    find(victim)
    opened = victim.get(path_of(last_link(ATTACKER, path="/api/auth/callback")))
    code = code_of(opened.headers["Location"])
    assert confirm_post(victim, code).get_json()["location"] == "/app/pages/7"
