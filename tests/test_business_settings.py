"""Business settings and the payout destination (GET, POST /api/settings/business and
/api/settings/payout): defaults, saving key by key, every refusal, the support address at
the store's domain and its launch fact, the payout kept masked (never stored, answered or
logged whole), isolation between founders and adoption on sign-in."""
from __future__ import annotations

import logging
import re
import sys
import unicodedata

import jsonschema
import jsonschema_rs
import pytest

from api import bounds
from api.settings import SettingsFields
from models.business import BusinessSettings, PayoutDestination
from models.db import db, is_sqlite
from services import business, domains
from services.errors import Refused
from tests.factories import new_account, order, refusal, session_of, sign_in, store_founder

IBAN = "DE89 3704 0044 0532 0130 00"  # the standard example IBAN (valid check digits)


def settings_of(client) -> dict:
    response = client.get("/api/settings/business")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def save(client, **values):
    return client.post("/api/settings/business", json=values)


def fact(client, fact_id="support_address_set") -> dict:
    return {f["id"]: f for f in client.get("/api/launch").get_json()["facts"]}[fact_id]


def test_unsaved_settings_read_as_their_defaults(client):
    body = settings_of(client)
    assert body["status"] == "ok" and body["updated_at"] is None and body["support_email"] is None
    settings = body["settings"]
    assert set(settings) == {"business_name", "support_email_local", "default_canned_subject",
                             "default_canned_body", "ai_email_mode", "public_support_share",
                             # the founder's statements of their policy (tests/test_founder_statements.py)
                             "return_days", "free_returns", "shipping_days_min", "shipping_days_max", "guarantee",
                             "ships_to"}
    assert settings["business_name"] is None and settings["support_email_local"] is None
    assert settings["ai_email_mode"] == "off"
    assert settings["default_canned_subject"] and "Thank you" in settings["default_canned_body"]
    assert BusinessSettings.select().count() == 0  # reading saves nothing


def test_saving_keeps_the_fields_given_and_answers_the_whole_record(client):
    # A field the settings do not have is refused (tests/test_unknown_fields.py).
    body = save(client, business_name="  Acacia & Co  ", support_email_local="Help.Desk", ai_email_mode="draft").get_json()
    assert body["status"] == "ok" and body["updated_at"]
    assert body["settings"]["business_name"] == "Acacia & Co"
    assert body["settings"]["support_email_local"] == "help.desk"  # kept in lower case
    assert body["settings"]["ai_email_mode"] == "draft"
    # A later save of one field leaves the others as they were.
    again = save(client, default_canned_subject="About your order").get_json()["settings"]
    assert (again["business_name"], again["support_email_local"], again["ai_email_mode"]) == (
        "Acacia & Co", "help.desk", "draft")
    assert again["default_canned_subject"] == "About your order"
    assert settings_of(client)["settings"] == again
    assert BusinessSettings.select().count() == 1


def test_clearing_a_field(client):
    save(client, business_name="Acacia", default_canned_subject="Hi")
    body = save(client, business_name="", default_canned_subject=None).get_json()["settings"]
    assert body["business_name"] is None
    assert body["default_canned_subject"] == "Re: your message"  # a canned field goes back to its default


@pytest.mark.parametrize("values, field", [
    ({"ai_email_mode": "sometimes"}, "ai_email_mode"),
    ({"ai_email_mode": None}, "ai_email_mode"),
    ({"business_name": "x" * 81}, "business_name"),
    ({"business_name": 42}, "business_name"),
    ({"business_name": "Acacia\u202e"}, "business_name"),
    ({"support_email_local": "help desk"}, "support_email_local"),
    ({"support_email_local": ".help"}, "support_email_local"),
    ({"support_email_local": "help..desk"}, "support_email_local"),
    ({"support_email_local": "help@example.com"}, "support_email_local"),
    ({"support_email_local": "x" * 65}, "support_email_local"),
    ({"default_canned_subject": "line one\nline two"}, "default_canned_subject"),
    ({"default_canned_body": "x" * 5001}, "default_canned_body"),
])
def test_a_bad_value_is_400_invalid_setting_and_saves_nothing(client, values, field):
    save(client, business_name="Before")
    response = save(client, **{"default_canned_subject": "Kept?", **values})
    body = refusal(response, 400, "invalid_setting")
    assert body.get("field", field) == field
    assert settings_of(client)["settings"]["business_name"] == "Before"
    assert settings_of(client)["settings"]["default_canned_subject"] == "Re: your message"


def _characters() -> list[str]:
    """Every whitespace character, each end of each run of the characters no text keeps (controls,
    format marks, private use, as far as the astral planes) and the one on either side, and a spread
    of the rest (letters, marks, symbols, emoji; surrogates never reach a field)."""
    refused = set(bounds.UNSHOWN_POINTS)
    edges = {p + step for p in refused for step in (-1, 0, 1) if (p - 1 in refused) != (p + 1 in refused)
             or p - 1 not in refused}
    spaces = {p for p in range(sys.maxunicode + 1) if chr(p).isspace()}
    points = edges | spaces | set(range(0, sys.maxunicode + 1, 4099)) | {0x1F600, 0x1D518, 0x20000, 0xE0041}
    return [chr(p) for p in sorted(points) if 0 <= p <= sys.maxunicode and unicodedata.category(chr(p)) != "Cs"]


def _spread(most: int) -> list[str]:
    values = ["", " ", "\n", "\r\n", "Acacia & Co", "x" * most, "x" * (most + 1), " " + "x" * most,
              "x" * (most - 1) + "\n", "\t\nAcacia\n\nCo\t \n", "a \u00a0\u3000 b", "a\r\nb"]
    for ch in _characters():
        values += [ch, f"a{ch}b", f"{ch}a", f"a{ch}", f"{ch}{ch}a{ch}"]
    return values


def _kept(field: str, value: str, body: SettingsFields) -> bool:
    """Whether the service takes the value: the body's schema (its length), then services/business."""
    if body.validate({field: value}):
        return False
    try:
        business._checked(field, value)
        return True
    except Refused:
        return False


@pytest.mark.parametrize("field", ["business_name", "default_canned_subject", "default_canned_body",
                                   "support_email_local"])
def test_the_declared_pattern_and_length_are_what_the_service_takes(client, field):
    """A text the document allows (maxLength and pattern, read by Python's re as jsonschema does
    and by an ECMA 262 engine as the fuzzer's jsonschema_rs does) is one the service keeps, and one
    it refuses is refused (400 invalid_setting); null clears the field and is not a string."""
    document = client.get("/api/openapi.json").get_json()
    declared = {key: value for key, value in document["components"]["schemas"]["SettingsFields"]["properties"]
                [field].items() if key in ("type", "maxLength", "pattern")}
    assert set(declared) == {"type", "maxLength", "pattern"}
    in_python = jsonschema.Draft4Validator(declared, format_checker=None)
    in_ecma = jsonschema_rs.validator_for(declared)
    body = SettingsFields()
    mismatched = []
    for value in _spread(declared["maxLength"]):
        if (in_python.is_valid(value), in_ecma.is_valid(value)) != (_kept(field, value, body),) * 2:
            mismatched.append(value)
    assert not mismatched, [ascii(value) for value in mismatched[:10]]
    assert re.search(declared["pattern"], "") and not body.validate({field: None})  # blank clears


def test_the_canned_body_keeps_its_lines(client):
    text = "Hello,\n\n\tThank you.\n\nBest"
    assert save(client, default_canned_body=text).get_json()["settings"]["default_canned_body"] == text


def test_the_support_address_is_the_local_part_at_the_stores_domain(founder, run_jobs):
    client = store_founder(founder, run_jobs)
    first = fact(client)
    assert first["true_today"] is False and "Settings" in first["detail"]

    body = save(client, support_email_local="support").get_json()
    assert body["support_email"] is None and body["domain"] is None
    waiting = fact(client)
    assert waiting["true_today"] is False and "support@" in waiting["detail"] and "domain" in waiting["detail"]

    row = order(client, "knife-strip.shop")
    assert domains.connect_paid_domain(domain_order_id=row.id) is True
    body = settings_of(client)
    assert (body["support_email"], body["domain"]) == ("support@knife-strip.shop", "knife-strip.shop")
    done = fact(client)
    assert done["true_today"] is True and "support@knife-strip.shop" in done["detail"]


def test_another_founders_settings_are_never_answered(founder):
    alice, bob = founder(), founder()
    save(alice, business_name="Alice's shop", support_email_local="alice")
    body = settings_of(bob)
    assert body["settings"]["business_name"] is None and body["settings"]["support_email_local"] is None
    save(bob, business_name="Bob's")
    assert settings_of(alice)["settings"]["business_name"] == "Alice's shop"


def test_a_sessions_settings_become_its_accounts_on_sign_in(founder, run_jobs):
    new_account(founder, run_jobs, "owner@example.com")
    phone = founder()
    save(phone, business_name="Saved before signing in")
    sign_in(phone, run_jobs, "owner@example.com")
    laptop = founder()
    sign_in(laptop, run_jobs, "owner@example.com")
    assert settings_of(laptop)["settings"]["business_name"] == "Saved before signing in"
    assert BusinessSettings.get().owner == f"account:{session_of(laptop).account_id}"


# --- Payout ---------------------------------------------------------------------------------

def payout(client, **body):
    return client.post("/api/settings/payout", json=body)


def every_stored_text() -> str:
    """Every text value of every table, as one string: what a database dump would show."""
    rows = []
    for (table,) in db.execute_sql("SELECT name FROM sqlite_master WHERE type='table'" if is_sqlite() else
                                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall():
        for row in db.execute_sql(f'SELECT * FROM "{table}"').fetchall():
            rows.extend(str(value) for value in row if value is not None)
    return "\n".join(rows)


def test_no_payout_reads_null(client):
    assert client.get("/api/settings/payout").get_json() == {"status": "ok", "payout": None}


def test_a_bank_payout_is_kept_masked_never_whole(client, caplog):
    caplog.set_level(logging.DEBUG)
    body = payout(client, method="bank", holder="Ada Founder", account=IBAN).get_json()
    assert body["status"] == "ok" and body["same_account"] is False
    assert body["payout"]["method"] == "bank" and body["payout"]["holder"] == "Ada Founder"
    assert (body["payout"]["account_masked"], body["payout"]["last4"]) == ("•••• 3000", "3000")
    read = client.get("/api/settings/payout")
    assert read.get_json()["payout"] == body["payout"]
    whole = IBAN.replace(" ", "")
    assert whole not in read.get_data(as_text=True)
    assert whole not in every_stored_text() and "370400440532013000" not in every_stored_text()
    assert whole not in caplog.text and IBAN not in caplog.text
    row = PayoutDestination.get()
    assert len(row.fingerprint) == 64 and whole not in row.fingerprint
    # The same account saved again is recognised by its fingerprint; another is not.
    assert payout(client, method="bank", holder="Ada Founder", account=whole.lower()).get_json()["same_account"]
    assert not payout(client, method="bank", holder="Ada", account="12345678").get_json()["same_account"]
    assert PayoutDestination.select().count() == 1


def test_a_paypal_payout_shows_the_first_letter_and_the_domain(client):
    body = payout(client, method="paypal", holder="Ada", account="ada.founder@example.com").get_json()
    assert body["payout"]["account_masked"] == "a••••@example.com" and body["payout"]["last4"] == ".com"
    assert "ada.founder" not in every_stored_text()


@pytest.mark.parametrize("body, reason, field", [
    ({"method": "cheque", "holder": "Ada", "account": "12345678"}, "invalid_action", None),
    ({"method": "bank", "holder": "", "account": "12345678"}, "invalid_payout", None),
    ({"method": "bank", "holder": "Ada", "account": "12"}, "invalid_payout", "account"),
    ({"method": "bank", "holder": "Ada", "account": "DE89 3704 0044 0532 0130 01"}, "invalid_payout", "account"),
    ({"method": "bank", "holder": "Ada", "account": "not a number"}, "invalid_payout", "account"),
    ({"method": "paypal", "holder": "Ada", "account": "not-an-address"}, "invalid_payout", "account"),
    ({"method": "bank", "holder": "Ada\u0007", "account": "12345678"}, "invalid_payout", "holder"),
    ({"method": "bank", "holder": "Ada"}, "invalid_payout", None),
])
def test_a_bad_payout_is_refused_and_saves_nothing(client, body, reason, field):
    response = payout(client, **body)
    answer = refusal(response, 400, reason)
    if field:
        assert answer["field"] == field
    assert PayoutDestination.select().count() == 0
    assert "0130 01" not in response.get_data(as_text=True)


def test_another_founders_payout_is_never_answered(founder):
    alice, bob = founder(), founder()
    payout(alice, method="bank", holder="Alice", account="12345678")
    assert bob.get("/api/settings/payout").get_json()["payout"] is None
