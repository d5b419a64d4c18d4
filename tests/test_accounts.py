"""Accounts and sign-in links: spec 2.1-2.3, 4.2, 5 and the reliability guide."""
import pytest

from models.account import Account, Milestone, SignInToken
from models.clock import clock
from models.session import Session
from services.sessions import hash_token
from tests.factories import FAILURE, SUCCESS, cookie_of, new_account, sign_in
from tests.factories import save_address as save
from tests.helpers import in_threads, wait_for
from tests.mailbox import LINK, last_link, links_to, messages_to, path_of, token_of
from tests.stand_ins import Recorder, parse


def test_account_is_null_until_the_session_saves_one(client):
    assert client.get("/api/account").get_json() == {"status": "ok", "account": None}


def test_saving_a_new_address_binds_at_once_and_mails_a_link(client, run_jobs):
    response = save(client, "Founder@Example.com", source="landing")
    assert response.status_code == 200
    body = response.get_json()
    assert body == {"status": "account_saved", "email": "founder@example.com", "verified": False, "tier": "free",
                    "tier_label": "Free", "adopted_claims": [], "source": "landing", "email_sent": True}
    assert client.get("/api/account").get_json()["account"] == "founder@example.com"
    run_jobs()
    link = last_link("founder@example.com")
    assert link.startswith("http://localhost/login?token=")


def test_addresses_differing_only_in_case_are_one_account(founder):
    save(founder(), "A@x.com")
    save(founder(), "a@X.COM")
    assert Account.select().count() == 1


def test_source_is_read_back_from_the_stored_account(founder):
    assert save(founder(), "s@x.com", source="ads").get_json()["source"] == "ads"
    assert save(founder(), "s@x.com", source="other").get_json()["source"] == "ads"
    assert save(founder(), "t@x.com").get_json()["source"] == "web"


@pytest.mark.parametrize("email", ["not-an-address", "a@", "@b.com", "a b@c.com", "x" * 400 + "@example.com"])
def test_a_string_that_cannot_be_an_address_is_400_account_required(client, email):
    response = save(client, email)
    assert response.status_code == 400
    assert response.get_json()["reason"] == "account_required"
    assert Account.select().count() == 0


@pytest.mark.parametrize("body", [{}, {"email": None}, {"email": 42}])
def test_a_missing_email_is_400_invalid_email(client, body):
    response = client.post("/api/account", json=body)
    assert response.status_code == 400 and response.get_json()["reason"] == "invalid_email"


def test_a_verified_address_is_not_bound_but_gets_a_link(founder, run_jobs):
    new_account(founder, run_jobs, "owner@x.com")
    before = len(links_to("owner@x.com"))
    stranger = founder()
    response = save(stranger, "owner@x.com")
    assert response.status_code == 409
    body = response.get_json()
    assert body["status"] == "refused" and body["reason"] == "account_required" and body["verified"] is True
    assert body["email_sent"] is True and body["explanation"]
    assert stranger.get("/api/account").get_json()["account"] is None
    run_jobs()
    assert len(links_to("owner@x.com")) == before + 1


def test_a_session_signed_in_elsewhere_cannot_save_another_address(founder, run_jobs):
    client = new_account(founder, run_jobs, "first@x.com")
    response = save(client, "second@x.com")
    assert response.status_code == 409 and response.get_json()["reason"] == "bound_to_another_account"
    assert client.get("/api/account").get_json()["account"] == "first@x.com"


def test_an_unproven_address_is_replaced_by_the_next_one_saved(client):
    """Nothing was adopted by an address nobody proved, so saving another one takes nothing from anyone."""
    save(client, "typo@x.con")
    response = save(client, "right@x.com")
    assert response.status_code == 200 and response.get_json()["verified"] is False
    assert client.get("/api/account").get_json()["account"] == "right@x.com"


def test_redeeming_the_link_verifies_rotates_the_cookie_and_records_account_saved(client, run_jobs):
    save(client, "new@x.com")
    run_jobs()
    old_cookie = cookie_of(client)
    response = client.get(path_of(last_link("new@x.com")))
    assert response.status_code == 303 and response.headers["Location"] == SUCCESS
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    new_cookie = cookie_of(client)
    assert new_cookie != old_cookie and len(new_cookie) == 32
    assert client.get("/api/account").get_json()["verified"] is True
    account = Account.get(Account.email == "new@x.com")
    assert account.verified and account.verified_at is not None
    assert Milestone.select().where(Milestone.account == account.id, Milestone.name == "account_saved").count() == 1
    # The old value no longer resolves to the account (fixation): it is replaced by a fresh session.
    assert Session.get_or_none(Session.token_hash == hash_token(old_cookie)) is None


def test_the_token_is_32_random_bytes_stored_only_as_a_hash(client, run_jobs):
    save(client, "h@x.com")
    run_jobs()
    token = token_of(last_link("h@x.com"))
    assert len(token) == 43  # base64url of 32 bytes
    row = SignInToken.get()
    assert row.token_hash == hash_token(token) and token not in (row.token_hash, row.return_to or "")
    assert (row.expires_at - row.created_at).total_seconds() == 15 * 60
    assert row.requested_by_id == Session.get(Session.token_hash == hash_token(cookie_of(client))).id


def _failure(response):
    assert response.status_code == 303
    assert response.headers["Location"] == FAILURE
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert "ff_session=" in response.headers["Set-Cookie"]
    return (response.status_code, response.headers["Location"], response.get_data())


def test_spent_expired_and_unknown_links_fail_identically(founder, run_jobs):
    client = founder()
    save(client, "e@x.com")
    run_jobs()
    spent_link = path_of(last_link("e@x.com"))
    assert client.get(spent_link).headers["Location"] == SUCCESS
    spent = _failure(founder().get(spent_link))
    client.post("/api/login/request", json={"email": "e@x.com"})
    run_jobs()
    expiring = path_of(last_link("e@x.com"))
    clock.advance(minutes=15, seconds=1)
    expired = _failure(founder().get(expiring))
    unknown = _failure(founder().get("/login?token=" + "A" * 43))
    missing = _failure(founder().get("/login"))
    assert spent == expired == unknown == missing


def test_a_failed_redemption_keeps_the_anonymous_journey(client):
    client.get("/api/health")
    before = cookie_of(client)
    response = client.get("/login?token=nope")
    assert response.headers["Location"] == FAILURE
    assert cookie_of(client) == before


def test_head_never_spends_a_token(client, run_jobs):
    save(client, "head@x.com")
    run_jobs()
    link = path_of(last_link("head@x.com"))
    for _ in range(3):
        head = client.head(link)
        assert head.status_code == 303 and head.headers["Location"] == SUCCESS
    assert client.get(link).headers["Location"] == SUCCESS


def test_fifty_concurrent_redemptions_of_one_token_succeed_once(founder, run_jobs):
    client = founder()
    save(client, "race@x.com")
    run_jobs()
    link = path_of(last_link("race@x.com"))
    browsers = [founder() for _ in range(50)]
    locations = in_threads(50, lambda i: browsers[i].get(link).headers["Location"])
    assert locations.count(SUCCESS) == 1 and locations.count(FAILURE) == 49


def test_sessions_bound_while_unverified_are_unbound_on_verification(founder, run_jobs):
    """Pre-hijacking: an attacker saves the victim's address first; when the victim proves
    it, the attacker's session loses the account."""
    attacker = founder()
    save(attacker, "victim@x.com")
    assert attacker.get("/api/account").get_json()["account"] == "victim@x.com"
    victim = founder()
    assert sign_in(victim, run_jobs, "victim@x.com").headers["Location"] == SUCCESS
    assert victim.get("/api/account").get_json()["account"] == "victim@x.com"
    assert attacker.get("/api/account").get_json()["account"] is None


def test_a_planted_cookie_does_not_ride_along_after_sign_in(founder, run_jobs):
    """Fixation: the attacker's known cookie value, planted in the victim's browser, stops
    resolving once the victim signs in."""
    new_account(founder, run_jobs, "owner2@x.com")
    attacker = founder()
    attacker.get("/api/health")
    planted = cookie_of(attacker)
    victim = founder()
    victim.set_cookie("ff_session", planted)
    assert sign_in(victim, run_jobs, "owner2@x.com").headers["Location"] == SUCCESS
    assert cookie_of(victim) != planted
    assert attacker.get("/api/account").get_json()["account"] is None


def test_logout_unbinds_only_and_signing_in_again_shows_the_same_account(founder, run_jobs):
    client = new_account(founder, run_jobs, "back@x.com")
    account_id = Account.get(Account.email == "back@x.com").id
    assert client.post("/api/logout").get_json() == {"status": "signed_out"}
    assert client.get("/api/account").get_json()["account"] is None
    assert Account.get_by_id(account_id).verified
    assert sign_in(client, run_jobs, "back@x.com").headers["Location"] == SUCCESS
    body = client.get("/api/account").get_json()
    assert body["account"] == "back@x.com" and body["verified"] is True


def test_login_request_answers_identically_for_known_and_unknown_addresses(founder, run_jobs):
    new_account(founder, run_jobs, "known@x.com")
    known = founder().post("/api/login/request", json={"email": "known@x.com"})
    unknown = founder().post("/api/login/request", json={"email": "nobody@x.com"})
    assert known.status_code == unknown.status_code == 200
    assert known.get_data() == unknown.get_data()
    ignore = {"Set-Cookie", "X-Request-Id"}
    assert {k: v for k, v in known.headers if k not in ignore} == {k: v for k, v in unknown.headers if k not in ignore}
    body = known.get_json()
    assert body["status"] == "link_requested" and body["email_sent"] is True
    assert "once" in body["explanation"] and "15 minutes" in body["explanation"]
    run_jobs()
    assert messages_to("nobody@x.com") == []
    assert Account.get_or_none(Account.email == "nobody@x.com") is None


def test_one_address_gets_a_bounded_number_of_mails_an_hour(founder, run_jobs):
    new_account(founder, run_jobs, "busy@x.com")
    client = founder()
    answers = set()
    for _ in range(12):
        answers.add(client.post("/api/login/request", json={"email": "busy@x.com"}).get_data())
        run_jobs()
    assert len(answers) == 1
    assert len(messages_to("busy@x.com")) == 5  # the first link plus four requested ones
    clock.advance(hours=1, seconds=1)
    client.post("/api/login/request", json={"email": "busy@x.com"})
    run_jobs()
    assert len(messages_to("busy@x.com")) == 6


def test_login_request_with_a_bad_address_is_400_invalid_email(client):
    for body in ({}, {"email": "nope"}):
        response = client.post("/api/login/request", json=body)
        assert response.status_code == 400 and response.get_json()["reason"] == "invalid_email"


def test_request_link_answers_ok_for_any_well_formed_body(founder, run_jobs):
    new_account(founder, run_jobs, "p@x.com")
    for email in ("p@x.com", "stranger@x.com", "not an address"):
        response = founder().post("/api/auth/request-link", json={"email": email})
        assert response.status_code == 200 and response.get_json() == {"ok": True}


def test_request_link_refuses_non_json_and_get(client):
    response = client.post("/api/auth/request-link", data="email=a@b.c", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400 and response.get_json()["reason"] == "invalid_json"
    response = client.get("/api/auth/request-link")
    assert response.status_code == 405 and response.headers["Allow"] == "POST"


@pytest.mark.parametrize("return_to, expected", [
    ("/app/pages/42?tab=1", "/app/pages/42?tab=1"),
    ("https://evil.example/", "/"),
    ("//evil.example/path", "/"),
    ("/\\evil.example", "/"),
    ("javascript:alert(1)", "/"),
    (None, "/"),
])
def test_callback_redirects_only_to_paths_on_this_service(founder, run_jobs, return_to, expected):
    new_account(founder, run_jobs, "r@x.com")
    guest = founder()
    guest.post("/api/auth/request-link", json={"email": "r@x.com", "returnTo": return_to})
    run_jobs()
    link = last_link("r@x.com")
    assert "/api/auth/callback?token=" in link
    response = guest.get(path_of(link))
    assert response.status_code == 303 and response.headers["Location"] == expected
    assert guest.get("/api/account").get_json()["account"] == "r@x.com"


def test_callback_failure_goes_to_the_invalid_link_page(client):
    assert _failure(client.get("/api/auth/callback?token=bogus"))


def test_tokens_reach_no_log_but_the_outbox_line(client, run_jobs, caplog):
    save(client, "quiet@x.com")
    run_jobs()
    link = last_link("quiet@x.com")
    client.get(path_of(link))
    client.get(path_of(link))
    token = token_of(link)
    leaked = [r for r in caplog.records if r.name != "outbox" and token in (r.getMessage() + str(getattr(r, "fields", "")))]
    assert leaked == []


@pytest.fixture
def mailer_down_client():
    from api import create_app
    from config import use_settings
    from tests.conftest import SETTINGS

    app = create_app(SETTINGS.but(smtp_url="smtp://127.0.0.1:1"))  # nothing listens on port 1
    try:
        yield app
    finally:
        use_settings(SETTINGS)


def test_mailer_down_answers_stay_identical_and_say_email_sent_false(mailer_down_client):
    Account.create(email="known@x.com")
    known = mailer_down_client.test_client().post("/api/login/request", json={"email": "known@x.com"})
    unknown = mailer_down_client.test_client().post("/api/login/request", json={"email": "other@x.com"})
    assert known.status_code == unknown.status_code == 200
    assert known.get_data() == unknown.get_data()
    assert known.get_json()["email_sent"] is False


def test_an_address_the_mail_server_refuses_for_good_ends_the_job_quietly(smtp_server, run_jobs, caplog):
    from api import create_app
    from config import use_settings
    from models.job import Job
    from tests.conftest import SETTINGS
    from tests.stand_ins import Recorder

    server = smtp_server(Recorder(refuse={"RCPT": "550 5.1.1 No such user here"}))
    app = create_app(SETTINGS.but(smtp_url=f"smtp://127.0.0.1:{server.port}"))
    try:
        response = app.test_client().post("/api/account", json={"email": "gone@x.com"})
        assert response.status_code == 200
        run_jobs()
        job = Job.get(Job.kind == "sign_in_mail")
        assert (job.status, job.result) == (Job.DONE, {"sent": False, "why": "rejected"})
        assert SignInToken.get().mailed_at is None
        assert not [r for r in caplog.records if r.exc_info]
    finally:
        use_settings(SETTINGS)


class _Refusing(Recorder):
    """A mail server that refuses every session while `down` (451 to NOOP and MAIL, as a
    server shedding load does), and takes mail again once it is not."""

    down = True

    async def handle_NOOP(self, server, session, envelope, arg):
        return "451 4.3.0 Try again later" if self.down else await super().handle_NOOP(server, session, envelope, arg)

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.down:
            return "451 4.3.0 Try again later"
        return await super().handle_MAIL(server, session, envelope, address, mail_options)


def test_a_mailer_refusing_then_back_mails_each_link_once_and_the_answers_never_tell(smtp_server, run_jobs):
    """The mailer fails mid-journey and comes back: the answers while it refuses are the
    same for a known and an unknown address and say email_sent false; each link asked for
    then is mailed once when it is back (the job tries again), none twice, none lost."""
    from api import create_app
    from config import use_settings
    from models.job import Job
    from tests.conftest import SETTINGS

    handler = _Refusing()
    server = smtp_server(handler)
    app = create_app(SETTINGS.but(smtp_url=f"smtp://127.0.0.1:{server.port}"))
    try:
        Account.create(email="known@x.com")
        known = app.test_client().post("/api/login/request", json={"email": "known@x.com"})
        unknown = app.test_client().post("/api/login/request", json={"email": "other@x.com"})
        assert known.status_code == unknown.status_code == 200
        assert known.get_data() == unknown.get_data()
        assert known.get_json()["email_sent"] is False
        saved = app.test_client().post("/api/account", json={"email": "new@x.com"})
        assert saved.status_code == 200 and saved.get_json()["email_sent"] is False
        # Each mailing job tried once and was put back for later (the refusal is transient).
        mailing = {"known@x.com", "new@x.com"}
        wait_for(lambda: {j.payload["email"] for j in Job.select().where(Job.kind == "sign_in_mail")
                          if j.status == Job.QUEUED and j.attempt == 1 and j.error} == mailing,
                 20, "both mailing jobs to meet the refusal")
        assert handler.received == []
        handler.down = False
        run_jobs()  # the retries are delayed messages: joined too
        received = [got["rcpt_tos"] for got in handler.received]
        assert sorted(received) == [["known@x.com"], ["new@x.com"]]  # once each; none to the unknown address
        jobs = {j.payload["email"]: (j.status, j.attempt, j.result) for j in Job.select().where(Job.kind == "sign_in_mail")}
        assert jobs == {"known@x.com": (Job.DONE, 2, {"sent": True}), "new@x.com": (Job.DONE, 2, {"sent": True}),
                        "other@x.com": (Job.DONE, 1, {"sent": False, "why": "no_account"})}
        # The mailed link is the one token marked mailed; the first attempt's token was never sent.
        for got in handler.received:
            text = parse(got["content"]).get_body(preferencelist=("plain",)).get_content()
            token = token_of(LINK.search(text).group(0))
            account = Account.get(Account.email == got["rcpt_tos"][0])
            mailed = SignInToken.select().where(SignInToken.account == account, SignInToken.mailed_at.is_null(False))
            assert [t.token_hash for t in mailed] == [hash_token(token)]
    finally:
        use_settings(SETTINGS)
