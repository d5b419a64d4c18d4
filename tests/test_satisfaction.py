"""Customer satisfaction (issue 25 point 5; spec 4.6 GET /api/satisfaction): the one-click
rating link of a reply (signed, bound to its message, unforgeable, rated once), the public
page it opens (no cookie, records nothing on GET, the store's look, escaped, a CSP), and the
analysis of a founder's ratings (count, score, weekly trend, worst categories), never
another founder's."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from models.clock import clock
from models.desk import Ticket, TicketMessage
from models.satisfaction import SatisfactionRating
from services.desk.satisfaction import rating_link, token_for
from tests.factories import NOW, path_of, published_store, session_of
from tests.helpers import in_threads
from tests.mailbox import sign_in_here

NOW_MONDAY = NOW - timedelta(days=NOW.weekday())  # NOW is a Sunday: its week began the Monday before


def owner_key(client) -> str:
    session = session_of(client)
    return f"account:{session.account_id}" if session.account_id else f"session:{session.id}"


def reply(client, *, category="question", direction=TicketMessage.OUT, product_id=None, subject="Where is it?"):
    """A ticket of the client's desk with one reply sent (or another message), as the desk writes them."""
    if client.get_cookie("ff_session") is None:
        client.get("/api/usage")
    key = owner_key(client)
    session = session_of(client)
    ticket = Ticket.create(owner=key, session=session.id, account=session.account_id, subject=subject,
                           customer_email="buyer@example.com", support_address="help@shop.example",
                           category=category, product=product_id)
    TicketMessage.create(ticket=ticket.id, owner=key, direction=TicketMessage.IN, author=TicketMessage.CUSTOMER,
                         text="Where is my order?", message_id=f"<in-{ticket.id}@example.com>")
    return TicketMessage.create(ticket=ticket.id, owner=key, direction=direction, author=TicketMessage.FOUNDER,
                                text="It is on its way.", message_id=f"<out-{ticket.id}@shop.example>"
                                if direction == TicketMessage.OUT else None)


def rate(customer, message, score, comment="", token=None):
    return customer.post(f"/rate/{token or token_for(message.id)}", data={"score": str(score), "comment": comment})


# --- The link and the page -------------------------------------------------------------------

def test_a_reply_link_opens_a_page_of_one_click_choices_and_records_nothing(founder):
    message = reply(founder())
    link = rating_link(message.id)
    assert link.startswith("http://") and re.fullmatch(r"/rate/\d+\.[0-9a-f]{64}", path_of(link))
    customer = founder()
    for _ in range(3):  # a mail scanner prefetching the link rates nothing
        page = customer.get(path_of(link))
        assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert 'data-rating-state="ask"' in text
    assert re.findall(r'name="score" value="(\d)"', text) == ["1", "2", "3", "4", "5"]
    assert f'action="{path_of(link)}"' in text and 'method="post"' in text and "<script" not in text
    assert SatisfactionRating.select().count() == 0


def test_the_rating_routes_read_and_set_no_cookie(founder):
    message = reply(founder())
    customer = founder()
    for response in (customer.get(f"/rate/{token_for(message.id)}"), rate(customer, message, 5),
                     customer.get(f"/rate/{token_for(message.id)}"), customer.get("/rate/1.abc")):
        assert "Set-Cookie" not in response.headers
        assert response.headers["Cache-Control"] == "private, no-store"
        csp = response.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "form-action 'self'" in csp and "script-src" not in csp
    assert customer.get_cookie("ff_session") is None


def test_one_click_records_the_rating_once_and_a_second_says_it_was_recorded(founder):
    message = reply(founder())
    customer = founder()
    first = rate(customer, message, 4, "Quick and kind.")
    assert first.status_code == 200 and 'data-rating-state="recorded"' in first.get_data(as_text=True)
    again = rate(customer, message, 1, "changed my mind")
    assert again.status_code == 200 and 'data-rating-state="already"' in again.get_data(as_text=True)
    assert "4 out of 5" in again.get_data(as_text=True)
    rows = list(SatisfactionRating.select())
    assert [(r.message_id, r.score, r.comment) for r in rows] == [(message.id, 4, "Quick and kind.")]
    assert 'data-rating-state="already"' in customer.get(f"/rate/{token_for(message.id)}").get_data(as_text=True)


@pytest.mark.parametrize("tamper", [
    lambda token, other: token[:-1] + ("0" if token[-1] != "0" else "1"),  # one digit of the signature changed
    lambda token, other: f"{other}.{token.split('.')[1]}",  # this signature with another message's id
    lambda token, other: token.split(".")[0],  # no signature
    lambda token, other: f"{token.split('.')[0]}.{'0' * 64}",
    lambda token, other: token.upper(),
    lambda token, other: f"0{token}",
    lambda token, other: "x" * 80,
])
def test_a_forged_or_tampered_token_rates_nothing(founder, tamper):
    client = founder()
    message, other = reply(client), reply(client)
    forged = tamper(token_for(message.id), other.id)
    customer = founder()
    page = customer.get(f"/rate/{forged}")
    assert page.status_code == 404 and 'data-rating-state="invalid"' in page.get_data(as_text=True)
    assert rate(customer, message, 5, token=forged).status_code == 404
    assert SatisfactionRating.select().count() == 0


def test_twenty_clicks_at_once_record_one_rating(app, founder):
    message = reply(founder())
    customers = [app.test_client() for _ in range(20)]
    pages = in_threads(20, lambda i: rate(customers[i], message, 1 + i % 5).get_data(as_text=True))
    states = [re.search(r'data-rating-state="(\w+)"', page).group(1) for page in pages]
    assert sorted(set(states)) in (["already", "recorded"], ["recorded"]) and states.count("recorded") == 1
    [row] = SatisfactionRating.select()
    assert row.score == 1 + states.index("recorded") % 5


def test_only_a_sent_reply_can_be_rated(founder):
    client = founder()
    for direction in (TicketMessage.NOTE, TicketMessage.DRAFT, TicketMessage.IN):
        message = reply(client, direction=direction)
        assert founder().get(f"/rate/{token_for(message.id)}").status_code == 404
        assert rate(founder(), message, 5).status_code == 404
    assert SatisfactionRating.select().count() == 0


def test_a_bad_score_or_an_overlong_comment_records_nothing(founder):
    message = reply(founder())
    for score in ("0", "6", "five", ""):
        response = founder().post(f"/rate/{token_for(message.id)}", data={"score": score})
        assert response.status_code == 400 and response.get_json()["reason"] == "invalid_rating"
    assert rate(founder(), message, 3, "x" * 1001).get_json()["reason"] == "invalid_rating"
    assert SatisfactionRating.select().count() == 0


def test_the_page_wears_the_published_store_look(founder, run_jobs):
    owner = published_store(founder, run_jobs)
    message = reply(owner, product_id="p00")
    text = founder().get(f"/rate/{token_for(message.id)}").get_data(as_text=True)
    assert 'class="site-header"' in text and 'class="site-footer"' in text and "/static/storefront/store.css" in text
    assert re.search(r'<body class="palette-\w+ page-rate">', text) and "Product p00" in text


def test_without_a_store_the_page_is_plain_and_escapes_the_business_name(founder):
    owner = founder()
    owner.post("/api/settings/business", json={"business_name": "<script>alert(1)</script> & Co"})
    message = reply(owner)
    text = founder().get(f"/rate/{token_for(message.id)}").get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in text and "<script" not in text
    assert 'class="site-footer"' not in text


# --- The analysis ---------------------------------------------------------------------------

def analysis(client) -> dict:
    response = client.get("/api/satisfaction")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def rated(client, score, *, category="question", days_ago=0):
    clock.freeze(NOW - timedelta(days=days_ago))
    message = reply(client, category=category)
    assert rate(client.application.test_client(), message, score).status_code == 200


def test_with_no_rating_the_analysis_says_so(client):
    body = analysis(client)
    assert (body["status"], body["reason"], body["count"], body["score"], body["worst_categories"]) == (
        "no_ratings_yet", "no_ratings_yet", 0, None, [])
    assert len(body["trend"]) == 8 and all(week["count"] == 0 and week["average"] is None for week in body["trend"])


def test_the_analysis_counts_scores_trends_and_names_the_worst_categories(client):
    rated(client, 5)
    rated(client, 4, category="order")
    rated(client, 2, category="shipping", days_ago=7)
    rated(client, 1, category="shipping", days_ago=8)
    rated(client, 3, category="order", days_ago=20)
    rated(client, 5, days_ago=100)  # outside the trend's eight weeks, still in the sample
    clock.freeze(NOW)
    body = analysis(client)
    assert body["status"] == "ok" and body["count"] == 6
    assert body["score"] == {"average": 3.33, "satisfied": 3, "satisfied_share": 0.5}
    weeks = body["trend"]
    assert [w["week"] for w in weeks] == [(NOW_MONDAY - timedelta(weeks=n)).date().isoformat() for n in range(7, -1, -1)]
    assert weeks[-1] == {"week": NOW_MONDAY.date().isoformat(), "count": 2, "average": 4.5, "satisfied_share": 1.0}
    assert weeks[-2] == {"week": (NOW_MONDAY - timedelta(weeks=1)).date().isoformat(), "count": 2, "average": 1.5,
                         "satisfied_share": 0.0}
    assert weeks[-3]["count"] == 1 and weeks[-3]["average"] == 3.0
    assert sum(w["count"] for w in weeks) == 5
    assert body["worst_categories"] == [
        {"category": "shipping", "count": 2, "average": 1.5, "satisfied_share": 0.0},
        {"category": "order", "count": 2, "average": 3.5, "satisfied_share": 0.5},
        {"category": "question", "count": 2, "average": 5.0, "satisfied_share": 1.0},
    ]


def test_the_worst_categories_follow_the_tickets_category_now(client):
    rated(client, 1, category="other")
    Ticket.update(category="billing").execute()
    assert analysis(client)["worst_categories"][0]["category"] == "billing"


def test_another_founders_ratings_are_never_visible(founder):
    alice, bob = founder(), founder()
    rated(alice, 1)
    rated(alice, 2, category="billing")
    assert analysis(bob)["status"] == "no_ratings_yet"
    rated(bob, 5)
    assert (analysis(bob)["count"], analysis(bob)["score"]["average"]) == (1, 5.0)
    assert (analysis(alice)["count"], analysis(alice)["score"]["average"]) == (2, 1.5)


def test_signing_in_keeps_the_sessions_ratings(founder, run_jobs):
    client = founder()
    rated(client, 2, category="billing")
    clock.reset()
    sign_in_here(client, run_jobs, "rated@example.com")
    body = analysis(client)
    assert (body["count"], body["worst_categories"][0]["category"]) == (1, "billing")
    assert SatisfactionRating.get().owner == owner_key(client)
