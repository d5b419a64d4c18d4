"""Words and numbers a founder and a customer read (issue 47, point 6), through HTTP: one style
for a day and a moment wherever the service writes one (services/day_words.py: evidence days,
the store's pages, the meter's refusal, the order mails); the order's short number, the one
Orders shows, on the thank-you page and in the mails; the shipping address as the lines of a
label in the receipt and the notice; a checkout its customer cancelled says cancelled (on the
hosted page, the thank-you page and in GET /api/tracking), not expired; and every registered
reason the app can meet has a heading in api/static/app/reasons.js."""
from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from models.clock import utcnow
from models.payment import CustomerOrder, Payment, SandboxCheckout
from services import evidence_kinds
from services.commerce import payments
from services.commerce.order_number import order_number
from services.commerce.orders import NOT_ON_SALE_ERROR
from services.day_words import day_words, moment_words
from services.meter import resets_in_words
from services.reasons import REASONS
from services.store import render
from tests.factories import (
    ADDRESS,
    built,
    choose,
    claim,
    demo_item,
    find,
    follow,
    load,
    path_of,
    payment_of,
    slug,
    started,
)
from tests.mailbox import html_of, messages_to, text_of

CUSTOMER = "buyer@example.com"
ADDRESS_LINES = ["Ada Lovelace", "12 Analytical Row", "Flat 3", "London, N1 7AA", "United Kingdom"]
# A day as the old helpers wrote it: "Nov 12, 2026", "12 Nov 2026", "05 December 2026".
OTHER_STYLES = re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}\b"
                          r"|\b\d{1,2} (?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}\b|\b0\d [A-Z][a-z]+ \d{4}\b")
ISO_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


# --- One style for a day and a moment -----------------------------------------------------------


@pytest.mark.parametrize(("value", "words"), [
    (date(2026, 12, 5), "5 December 2026"),
    (datetime(2026, 12, 5, 23, 59), "5 December 2026"),  # naive: UTC, as the service stores it
    (datetime(2026, 12, 6, 0, 30, tzinfo=timezone(timedelta(hours=2))), "5 December 2026"),  # 22:30 UTC
    ("2026-01-09", "9 January 2026"),
    ("2026-01-09T08:00:00Z", "9 January 2026"),
    ("not a day", "not a day"),
    (None, ""),
])
def test_a_day_is_written_in_words_with_the_month_spelled_out(value, words):
    assert day_words(value) == words


def test_a_moment_is_a_day_and_a_time_in_utc_that_names_its_zone():
    assert moment_words(1_796_472_000) == "5 December 2026, 12:00 UTC"
    assert moment_words(datetime(2026, 12, 5, 12, 0)) == "5 December 2026, 12:00 UTC"
    assert moment_words(datetime(2026, 12, 5, 13, 0, tzinfo=timezone(timedelta(hours=1)))) == \
        "5 December 2026, 12:00 UTC"
    assert moment_words(datetime(2027, 1, 15, 13, 0, tzinfo=UTC)) == "15 January 2027, 13:00 UTC"


def test_every_server_side_writer_of_a_day_uses_the_one_helper():
    assert evidence_kinds.day_label("2026-11-12") == "12 November 2026"
    # The store's evidence rows, as its pages print them.
    row = {"date": "2026-11-12", "source": "google_trends", "metric": "search_interest", "value": 80, "note": "Up"}
    assert render._evidence(row)["date_display"] == "12 November 2026"
    # The meter's refusal: the wait first, then the moment in the one style, never an ISO time.
    said = resets_in_words(1_796_472_000, 1_796_472_000 - 2 * 3600 - 5 * 60)
    assert said == "in 2 hours and 5 minutes (5 December 2026, 12:00 UTC)"
    assert not ISO_MOMENT.search(said) and not OTHER_STYLES.search(said)


def test_an_orders_number_is_the_first_eight_characters_of_its_id():
    assert order_number("3f9a0c1b" + "0" * 24) == "3f9a0c1b"


# --- The order's number, its day and its address in the mails and on the thank-you page ---------


def plain(text: str) -> str:
    """A mail's text with its line ends as Python writes them (mail travels with CRLF)."""
    return text.replace("\r\n", "\n")


def paid_order(customer) -> dict:
    order = started(customer, quantity=2, email=CUSTOMER)
    landing = follow(customer, choose(customer, order["checkout_url"], "pay", ADDRESS))
    assert "/thanks?order=" in landing.headers["Location"]
    return order


def test_the_mails_and_the_thank_you_page_give_the_short_number_the_day_in_words_and_the_address_as_lines(
        shop, founder, run_jobs):
    customer = founder()
    order = paid_order(customer)
    run_jobs()
    number, whole = order["order_id"][:8], order["order_id"]
    paid_on = day_words(CustomerOrder.get_by_id(whole).paid_at)

    # Orders says this number: the mails and the thank-you page say the same.
    tracked = shop.get(f"/api/tracking?order_id={whole}").get_json()["orders"][0]
    assert tracked["order_number"] == number

    [receipt] = [m for m in messages_to(CUSTOMER) if m["Subject"].startswith("Your receipt from")]
    text, html = plain(text_of(receipt)), html_of(receipt)
    assert f"Order number: {number}\n" in text and f"Paid on: {paid_on}\n" in text
    # The whole id only in the link to the order, never as the number a customer reads.
    assert text.count(whole) == 1 and f"thanks?order={whole}" in text
    assert f">{number}</td>" in html and f">{paid_on}</td>" in html
    assert not OTHER_STYLES.search(text), text
    # The address as a label: one line each, in order, nothing of a dict or JSON.
    lines = [line.strip() for line in text.splitlines()]
    start = lines.index("Shipping to:") + 1
    assert lines[start:start + len(ADDRESS_LINES)] == ADDRESS_LINES, lines
    assert not re.search(r"[{}\[\]]|'line1'|\"line1\"|postal_code", text + html)
    assert "<br>".join(ADDRESS_LINES) in html

    page = customer.get(f"/store/{slug()}/thanks?order={whole}").get_data(as_text=True)
    assert f'<span class="order-id">{number}</span>' in page and whole not in page


def test_the_founders_notice_gives_the_short_number_and_the_address_as_lines(signed_in, run_jobs, founder):
    load(demo_item())
    owner = signed_in("maker@example.com")
    find(owner)
    assert claim(owner).get_json()["status"] == "claimed"
    built(owner, run_jobs)
    assert owner.post("/api/store/publish").get_json()["status"] == "published"
    order = paid_order(founder())
    run_jobs()
    [notice] = [m for m in messages_to("maker@example.com") if m["Subject"].startswith("New order in")]
    text = plain(text_of(notice))
    assert f"Order number: {order['order_id'][:8]}\n" in text and order["order_id"] not in text
    lines = [line.strip() for line in text.splitlines()]
    start = lines.index("Ship it to:") + 1
    assert lines[start:start + len(ADDRESS_LINES)] == ADDRESS_LINES, lines


# --- A cancelled checkout says cancelled -------------------------------------------------------


def test_a_checkout_its_customer_cancelled_says_cancelled_not_expired(shop, founder, run_jobs):
    customer = founder()
    order = started(customer, email=CUSTOMER)
    back = choose(customer, order["checkout_url"], "abandon", {})  # "Cancel and go back"
    landing = follow(customer, back)
    assert landing.headers["Location"].endswith(f"/thanks?order={order['order_id']}&cancelled=1")
    page = follow(customer, landing).get_data(as_text=True)
    assert 'data-expired-because="cancelled"' in page
    assert "You cancelled this order" in page and "nothing was charged" in page
    assert "expired" not in re.sub(r"<[^>]*>", " ", page)  # in no word the customer reads
    run_jobs()  # the provider's notification changes nothing of that

    payment = payment_of(order["order_id"])
    assert (payment.state, payment.error) == (Payment.EXPIRED, payments.CANCELLED_BY_CUSTOMER)
    [row] = shop.get("/api/tracking").get_json()["checkouts"]
    assert (row["state"], row["expired_because"], row["order_number"]) == (
        "expired", "cancelled", order["order_id"][:8])

    # The hosted page, opened again, says who ended it.
    hosted = customer.get(path_of(order["checkout_url"])).get_data(as_text=True)
    assert "You cancelled this payment" in hosted and "has expired" not in hosted


def test_a_checkout_past_its_day_says_expired_and_one_the_shop_closed_says_so(shop, founder, run_jobs):
    customer = founder()
    late, closed = started(customer), started(customer)
    # A day later: the provider's checkout and the payment are both past their day.
    SandboxCheckout.update(expires_at=utcnow() - timedelta(seconds=1)).where(
        SandboxCheckout.id == payment_of(late["order_id"]).provider_ref).execute()
    Payment.update(created_at=utcnow() - timedelta(days=1, minutes=1)).where(
        Payment.id == payment_of(late["order_id"]).id).execute()
    payments.close(payment_of(closed["order_id"]).id, why=NOT_ON_SALE_ERROR)

    page = customer.get(f"/store/{slug()}/thanks?order={late['order_id']}").get_data(as_text=True)
    assert 'data-expired-because="timed_out"' in page and "This checkout has expired" in page
    assert "cancelled" not in page
    page = customer.get(f"/store/{slug()}/thanks?order={closed['order_id']}").get_data(as_text=True)
    assert 'data-expired-because="not_on_sale"' in page and "not on sale right now" in page
    rows = {row["order_id"]: row["expired_because"] for row in shop.get("/api/tracking").get_json()["checkouts"]}
    assert rows == {late["order_id"]: "timed_out", closed["order_id"]: "not_on_sale"}


def test_an_open_checkout_and_a_declined_one_have_no_expiry_reason(shop, founder):
    customer = founder()
    still_open, declined = started(customer), started(customer)
    choose(customer, declined["checkout_url"], "decline", {})
    customer.get(f"/store/{slug()}/thanks?order={declined['order_id']}")
    rows = {row["order_id"]: (row["state"], row["expired_because"])
            for row in shop.get("/api/tracking").get_json()["checkouts"]}
    assert rows == {still_open["order_id"]: ("open", None), declined["order_id"]: ("failed", None)}


# --- Every reason the app can meet has a heading ------------------------------------------------

REASONS_JS = Path(__file__).resolve().parents[1] / "api/static/app/reasons.js"


def test_every_registered_reason_has_a_heading_in_the_app_or_is_named_as_never_on_a_screen():
    source = REASONS_JS.read_text()
    table = source[source.index("const KNOWN = {"):source.index("\n};", source.index("const KNOWN = {"))]
    headed = set(re.findall(r"^  ([a-z0-9_]+): \[", table, re.M))
    listed = source[source.index("export const NOT_ON_SCREENS"):]
    never = set(re.findall(r'"([a-z0-9_]+)"', listed[:listed.index("];")]))
    assert not headed & never, headed & never
    assert sorted(set(REASONS) - headed - never) == []
    assert sorted((headed | never) - set(REASONS)) == []  # nothing unregistered either


def test_no_heading_speaks_of_workers_intents_or_settings():
    source = REASONS_JS.read_text()
    table = source[source.index("const KNOWN = {"):source.index("\n};", source.index("const KNOWN = {"))]
    headings = re.findall(r'^  [a-z0-9_]+: \["([^"]+)"', table, re.M)
    assert headings
    for heading in headings:
        assert not re.search(r"\bworker|\bintents?\b|[A-Z]{2,}_[A-Z]|\b[a-z]+_[a-z_]+\b", heading), heading
