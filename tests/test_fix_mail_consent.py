"""Fix mails only an address that asked for it (issue 44): anyone may start a check and type
anyone's address, so the report and its follow-up go only to the signed-in founder's own
verified address, or to an address that opened the one-time link mailed to it; one address is
sent at most a day's few such mails however many sessions ask, and each answer says which."""
import logging
from datetime import timedelta

import pytest

from models.clock import clock, utcnow
from models.fix import FixMailLink, FixRun
from services.fix import mail
from services.tokens import hash_token
from tests.conftest import SETTINGS
from tests.fix_site import Site
from tests.helpers import in_threads
from tests.mailbox import last_link, messages_to, path_of, token_of

pytestmark = pytest.mark.usefixtures("jobs_drained")

BYSTANDER = "bystander@example.com"
CONFIRM = "Did you ask for a store check report?"
REPORT = "store check is ready"
FOLLOW_UP = "check your store again"


@pytest.fixture
def site(settings_with):
    with Site() as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


def start(client, site, email) -> dict:
    answer = client.post("/api/fix", json={"url": site.origin + "/", "email": email})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def run_of(client, token) -> dict:
    return client.get(f"/api/fix/mine?token={token}").get_json()["run"]


def subjects(address: str) -> list[str]:
    return [message["Subject"] for message in messages_to(address)]


def count(address: str, words: str) -> int:
    return sum(words in subject for subject in subjects(address))


def follow_ups_due() -> int:
    return mail.send_follow_ups(now=utcnow() + timedelta(days=SETTINGS.fix_follow_up_days, hours=1))


def confirmation_link(address: str) -> str:
    return path_of(last_link(address, path=mail.CONFIRM_PATH))


def test_eight_fresh_sessions_naming_a_bystander_mail_no_report_and_one_link(founder, run_jobs, site):
    answers = [start(founder(), site, BYSTANDER) for _ in range(8)]
    run_jobs()
    assert [a["mail"] for a in answers] == ["needs_confirmation"] + ["refused_daily_cap"] * 7
    assert "link" in answers[0]["mail_explanation"] and "in a day" in answers[1]["mail_explanation"]
    assert BYSTANDER not in answers[0]["mail_explanation"]  # whoever holds the token reads it
    assert subjects(BYSTANDER) == [CONFIRM]
    assert follow_ups_due() == 0
    assert count(BYSTANDER, REPORT) == 0 and count(BYSTANDER, FOLLOW_UP) == 0
    assert run_of(founder(), answers[0]["token"])["mail"] == "confirmation_sent"
    assert run_of(founder(), answers[1]["token"])["mail"] == "refused_daily_cap"


@pytest.mark.race
def test_eight_sessions_at_once_take_one_link_between_them(founder, run_jobs, site):
    browsers = [founder() for _ in range(8)]
    answers = in_threads(8, lambda i: start(browsers[i], site, BYSTANDER)["mail"])
    run_jobs()
    assert sorted(answers) == ["needs_confirmation"] + ["refused_daily_cap"] * 7
    assert subjects(BYSTANDER) == [CONFIRM]


@pytest.mark.race
def test_five_browsers_of_one_founder_at_once_take_the_days_reports_and_no_more(signed_in, run_jobs, site):
    browsers = [signed_in("owner@example.com") for _ in range(5)]
    answers = in_threads(5, lambda i: start(browsers[i], site, "owner@example.com")["mail"])
    run_jobs()
    assert sorted(answers) == ["refused_daily_cap"] * (5 - mail.REPORTS_PER_DAY) + ["will_send"] * mail.REPORTS_PER_DAY
    assert count("owner@example.com", REPORT) == mail.REPORTS_PER_DAY


def test_opening_the_link_mails_the_report_and_later_its_follow_up(founder, run_jobs, site):
    visitor = founder()
    token = start(visitor, site, BYSTANDER)["token"]
    run_jobs()
    link = confirmation_link(BYSTANDER)
    assert count(BYSTANDER, REPORT) == 0 and follow_ups_due() == 0
    for _ in range(2):  # a link checker's HEAD spends nothing
        head = founder().head(link)
        assert head.status_code == 303 and head.headers["Location"] == f"/#/app/fix?token={token}"
    assert run_of(visitor, token)["mail"] == "confirmation_sent"
    opened = founder().get(link)
    assert opened.status_code == 303 and opened.headers["Location"] == f"/#/app/fix?token={token}"
    run_jobs()
    assert count(BYSTANDER, REPORT) == 1
    run = run_of(visitor, token)
    assert run["mail"] == "sent" and "mailed" in run["mail_explanation"]
    assert follow_ups_due() == 1 and count(BYSTANDER, FOLLOW_UP) == 1


def test_the_link_works_once_and_not_after_it_expires(founder, run_jobs, site):
    start(founder(), site, BYSTANDER)
    run_jobs()
    link = confirmation_link(BYSTANDER)
    assert founder().get(link).headers["Location"].startswith("/#/app/fix?token=")
    for _ in range(2):
        assert founder().get(link).headers["Location"] == "/#/app/fix?link=used"
    run_jobs()
    assert count(BYSTANDER, REPORT) == 1

    late = "late@example.com"  # another address's link, left to expire
    start(founder(), site, late)
    run_jobs()
    clock.advance(hours=mail.CONFIRM_HOURS, minutes=1)
    assert founder().head(confirmation_link(late)).headers["Location"] == "/#/app/fix?link=used"
    assert founder().get(confirmation_link(late)).headers["Location"] == "/#/app/fix?link=used"
    run_jobs()
    assert count(late, REPORT) == 0


def test_the_link_token_is_kept_only_as_its_hash_and_never_logged(founder, run_jobs, site, caplog):
    start(founder(), site, BYSTANDER)
    run_jobs()
    link = last_link(BYSTANDER, path=mail.CONFIRM_PATH)
    raw = token_of(link)
    assert len(raw) >= 43  # 32 random bytes
    assert [row.token_hash for row in FixMailLink.select()] == [hash_token(raw)]
    with caplog.at_level(logging.INFO):
        founder().head(path_of(link))
        founder().get(path_of(link))
    opened = [r for r in caplog.records if r.name == "api.request" and r.fields["route"] == mail.CONFIRM_PATH]
    assert [(r.fields["method"], r.fields["path"]) for r in opened] == [("HEAD", mail.CONFIRM_PATH),
                                                                        ("GET", mail.CONFIRM_PATH)]
    # The outbox, the mailer of dev and embedded mode, logs a mail's links on purpose (it is
    # how a founder there reads a sign-in link: integrations/mail/outbox.py); nothing else does.
    logged = [r for r in caplog.records if r.name != "outbox"]
    assert not any(raw in r.getMessage() or raw in repr(getattr(r, "fields", {})) for r in logged)


def test_a_signed_in_founders_own_verified_address_gets_the_report_at_once(founder, signed_in, run_jobs, site):
    owner = signed_in("owner@example.com")
    answer = start(owner, site, "Owner@Example.com ")
    assert answer["mail"] == "will_send"
    run_jobs()
    assert count("owner@example.com", REPORT) == 1 and count("owner@example.com", CONFIRM) == 0
    assert run_of(owner, answer["token"])["mail"] == "sent"
    # Signed in, but naming another address; or an address saved and never proven: a link first.
    assert start(owner, site, "friend@example.com")["mail"] == "needs_confirmation"
    unproven = founder()
    assert unproven.post("/api/account", json={"email": "unproven@example.com"}).status_code == 200
    assert start(unproven, site, "unproven@example.com")["mail"] == "needs_confirmation"
    run_jobs()
    assert count("friend@example.com", REPORT) == 0 and count("unproven@example.com", REPORT) == 0
    assert count("friend@example.com", CONFIRM) == 1 and count("unproven@example.com", CONFIRM) == 1


def test_one_address_gets_a_few_reports_a_day_however_many_sessions_ask(founder, signed_in, run_jobs, site):
    owner = signed_in("owner@example.com")
    tokens = []
    for _ in range(mail.REPORTS_PER_DAY):
        tokens.append(start(owner, site, "owner@example.com")["token"])
        run_jobs()
    assert count("owner@example.com", REPORT) == mail.REPORTS_PER_DAY
    # The same founder signed in in another browser changes nothing: the bound is the address's.
    other = signed_in("owner@example.com")
    refused = start(other, site, "owner@example.com")
    assert refused["mail"] == "refused_daily_cap" and "in a day" in refused["mail_explanation"]
    run_jobs()
    assert count("owner@example.com", REPORT) == mail.REPORTS_PER_DAY
    assert run_of(other, refused["token"])["mail"] == "refused_daily_cap"
    clock.advance(days=1)  # a new day: mailed again
    assert start(other, site, "owner@example.com")["mail"] == "will_send"
    run_jobs()
    assert count("owner@example.com", REPORT) == mail.REPORTS_PER_DAY + 1
    # The follow-ups obey it too: four due on one day, three go; the fourth waits for the next day.
    assert follow_ups_due() == mail.REPORTS_PER_DAY
    assert follow_ups_due() == 0
    assert mail.send_follow_ups(now=utcnow() + timedelta(days=SETTINGS.fix_follow_up_days + 1, hours=1)) == 1
    assert count("owner@example.com", FOLLOW_UP) == mail.REPORTS_PER_DAY + 1


def test_a_report_confirmed_on_a_day_its_address_had_its_reports_is_not_mailed(founder, signed_in, run_jobs, site):
    start(founder(), site, "owner@example.com")  # a stranger first: a link
    run_jobs()
    owner = signed_in("owner@example.com")
    for _ in range(mail.REPORTS_PER_DAY):
        start(owner, site, "owner@example.com")
        run_jobs()
    founder().get(confirmation_link("owner@example.com"))
    run_jobs()
    assert count("owner@example.com", REPORT) == mail.REPORTS_PER_DAY
    capped = FixRun.get(FixRun.mail == FixRun.MAIL_CAPPED)
    assert capped.report_mailed_at is None and capped.session_id != FixRun.get(FixRun.mail == "owner").session_id
