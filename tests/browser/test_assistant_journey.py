"""The commerce assistant in Chromium on a phone (390 px): a founder holding a product types
three kinds of sentence into the assistant on Home: one names a screen and the app goes there,
one asks a question and the answer shows with what it read, one asks for a page and the app
links the page it wrote, which opens under its own address and is listed on Your pages."""
from __future__ import annotations

from models.page import Page
from tests.browser.steps import catalog, screen


def ask(page, sentence: str) -> None:
    box = page.get_by_label("Ask or tell the assistant")
    box.fill(sentence)
    page.get_by_role("button", name="Ask", exact=True).click()


def test_the_assistant_routes_three_kinds_of_sentence(open_app):
    catalog(2)
    app = open_app("phone")
    screen(app, "/#/app/find", "find")  # the feed holds a product for this founder
    page = screen(app, "/#/app/home", "home")
    page.get_by_role("heading", name="Assistant").wait_for()
    app.shot("assistant-on-home")

    ask(page, "show my orders")
    page.wait_for_selector("main[data-screen=orders][data-state=ready]", state="attached", timeout=30_000)
    assert page.url.endswith("#/app/orders")
    app.shot("assistant-navigated-to-orders")

    page = screen(app, "/#/app/home", "home")
    ask(page, "How many orders do I have?")
    answer = page.locator(".assistant-answer [data-kind=answer]")
    answer.wait_for()
    assert answer.inner_text() == "You have no orders yet: no customer has paid for one in your store."
    cite = page.locator(".assistant-answer .cites a")
    assert cite.inner_text() == "Your orders: 0 paid" and cite.get_attribute("href") == "#/app/orders"
    app.shot("assistant-answered-with-its-source")

    ask(page, "make a returns policy page")
    link = page.get_by_role("link", name="Open “Returns and refunds”")
    link.wait_for()
    (made,) = Page.select()
    assert made.kind == "returns" and link.get_attribute("href") == f"/store/p/{made.id}"
    app.shot("assistant-wrote-a-page")

    served = app.context.new_page()
    response = served.goto(app.base_url + f"/store/p/{made.id}")
    assert response.status == 200 and "script-src" not in response.headers["content-security-policy"]
    assert served.get_by_role("heading", level=1).inner_text() == "Returns and refunds"
    served.close()

    page = screen(app, "/#/app/pages", "pages")
    assert page.locator(f"li[data-page='{made.id}'] a").inner_text() == "Returns and refunds"
    app.shot("your-pages")


def test_a_guest_with_nothing_held_gets_a_draft_page_marked_on_your_pages(open_app):
    catalog(1)  # a catalog exists; this guest opens Home without holding any of it
    app = open_app("phone")
    page = screen(app, "/#/app/home", "home")
    ask(page, "make a page about shipping times")
    link = page.locator(".assistant-answer a", has_text="Open “")
    link.wait_for()
    (made,) = Page.select().where(Page.product_id == "")
    assert made.title.endswith("(draft)") and link.inner_text() == f"Open “{made.title}”"

    served = app.context.new_page()
    served.goto(app.base_url + f"/store/p/{made.id}")
    assert served.locator("meta[name=robots]").get_attribute("content") == "noindex"
    assert "This page is a draft" in served.locator("body").inner_text()
    served.close()

    page = screen(app, "/#/app/pages", "pages")
    row = page.locator(f"li[data-page='{made.id}']")
    assert row.locator("[data-draft]").inner_text() == "Draft, to fill in"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    app.shot("your-pages-with-a-draft")
