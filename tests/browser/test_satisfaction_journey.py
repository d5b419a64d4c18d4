"""Satisfaction in Chromium (issue 25 point 5): a customer opens the rating link of a reply
on a phone, sees one-click choices in the store's look, rates with one click and is thanked;
opening the link again says the rating was recorded. The founder's satisfaction picture
(api/static/app/desk/satisfaction.js) on the Desk screen, drawn from GET
/api/satisfaction says the figures the API answers, in a founder's words. Screenshots at each
step, axe on each, no console error, and the rating page sets no cookie."""
from __future__ import annotations

import re
from datetime import timedelta

from models.clock import utcnow
from models.desk import Ticket, TicketMessage
from models.satisfaction import SatisfactionRating
from services.day_words import day_words
from services.desk.satisfaction import rating_link
from services.sessions import find_session
from tests.browser.steps import (
    api_answer,
    catalog,
    claimed_and_built,
    publish_store,
    screen,
)

FOUNDER_WORDS_ONLY = re.compile(r"/api/|satisfied_share|worst_categories|\bnull\b|undefined|NaN")


def owner_key(app) -> str:
    cookie = next(c["value"] for c in app.context.cookies() if c["name"] == "ff_session")
    session = find_session(cookie)
    return f"account:{session.account_id}" if session.account_id else f"session:{session.id}"


def sent_reply(key: str, *, category="question", subject="Does it hold a chef's knife?") -> TicketMessage:
    """A ticket answered by the founder, as the desk keeps it (the desk's own tests mail it)."""
    ticket = Ticket.create(owner=key, subject=subject, customer_email="ana@example.net", product="p00",
                           support_address="help@knife-co.shop", category=category)
    TicketMessage.create(ticket=ticket.id, owner=key, direction="in", author="customer", text=subject,
                         message_id=f"<in-{ticket.id}@example.net>")
    return TicketMessage.create(ticket=ticket.id, owner=key, direction="out", author="founder",
                                text="Yes, it does.", message_id=f"<out-{ticket.id}@knife-co.shop>")


def day(iso: str) -> str:
    """A calendar day as every screen writes one (charts.js `day`, words.js `dayWords`)."""
    return day_words(iso[:10])


def number(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def trend_words(trend: list[dict]) -> str:
    """charts' words for the weekly picture (satisfaction.js trendWords), in Python."""
    rated = [w for w in trend if w["count"]]
    counted = lambda n: "1 rating" if n == 1 else f"{n} ratings"  # noqa: E731
    return (f"Average rating out of 5, week by week since {day(trend[0]['week'])}: "
            + ", ".join(f"week of {day(w['week'])} {number(w['average'])} ({counted(w['count'])})" for w in rated))


def test_a_customer_rates_a_reply_in_one_click_and_the_founder_sees_the_score(open_app, run_jobs):
    catalog(1)
    app = open_app("desktop")
    claimed_and_built(app, run_jobs)
    publish_store(app)
    key = owner_key(app)
    link = rating_link(sent_reply(key).id)

    customer = open_app("phone")
    path = link.removeprefix("http://localhost")
    response = customer.page.goto(customer.base_url + path)
    assert response.status == 200 and "set-cookie" not in response.headers
    page = customer.page
    assert page.locator("main[data-rating-state=ask]").count() == 1
    assert page.locator(".site-header").count() == 1  # the store's own look
    assert page.get_by_role("button").count() == 5
    customer.shot("rating-choices")

    page.get_by_label("Anything to add? (optional)").fill("Quick and kind, thank you.")
    page.get_by_role("button", name="5 · Very happy").click()
    page.locator("main[data-rating-state=recorded]").wait_for()
    assert "You rated the answer 5 out of 5." in page.locator("main").inner_text()
    customer.shot("rating-recorded")
    assert [(r.score, r.comment) for r in SatisfactionRating.select()] == [(5, "Quick and kind, thank you.")]

    page.goto(customer.base_url + path)  # the same link again: recorded once, and said so
    page.locator("main[data-rating-state=already]").wait_for()
    customer.shot("rating-already-recorded")
    assert SatisfactionRating.select().count() == 1
    assert [c for c in customer.context.cookies() if c["name"] == "ff_session"] == []

    # Two more customers, one unhappy with a shipping answer a week ago.
    for score, category, days in ((2, "shipping", 7), (4, "order", 0)):
        message = sent_reply(key, category=category, subject=f"About my {category}")
        SatisfactionRating.create(message=message.id, ticket=message.ticket_id, owner=key, score=score,
                                  rated_at=utcnow() - timedelta(days=days))

    page = screen(app, "/#/app/desk", "desk")
    figure = page.locator("section[aria-labelledby=rated-title] figure[data-picture=satisfaction]")
    label = figure.locator("svg").get_attribute("aria-label")
    analysis = api_answer(app, "/api/satisfaction")
    assert analysis["count"] == 3 and label == trend_words(analysis["trend"])
    text = figure.inner_text()
    assert (f"Customers rated 3 answers: on average {number(analysis['score']['average'])} out of 5, and "
            f"{round(analysis['score']['satisfied_share'] * 100)}% were happy with it (4 or 5).") in text
    assert "Shipping: 2 out of 5 (1 rating, 0% happy)" in text
    assert figure.locator("svg rect.bar:not(.bar-zero)").count() == len([w for w in analysis["trend"] if w["count"]])
    assert not FOUNDER_WORDS_ONLY.search(text)
    figure.scroll_into_view_if_needed()
    app.shot("satisfaction-picture")
