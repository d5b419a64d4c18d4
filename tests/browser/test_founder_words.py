"""Every screen of the app in a founder's words: a founder who has signed in, claimed a
product and built its store walks every entry of the navigation, every subject's lessons on
the Learn screen, the account and the sign-in screens (and, signed out, the screens open to
anyone: Fix among them), then the published store's pages as a shopper reads them, and no
screen or page shows an API route, a setting's name, a JSON path, a code of the service's
(snake_case), a time as a machine writes it, a 32-character id, a product's id where its
name belongs, or the machinery's words (a worker, an intent). The footer (the API document's links) is left out:
it is for the operator. What sits in a closed <details> is small print for the operator
and is not visible text either (innerText skips what is not rendered)."""
from __future__ import annotations

import re

import pytest

from services import brief
from tests.browser.founder_words import FORBIDDEN
from tests.browser.steps import build_store, catalog, claim_own_card, publish_store, screen, sign_in_by_link

# The visible text of the page but its footer, as the founder reads it.
VISIBLE_TEXT = """() => [...document.body.children]
  .filter((node) => !node.matches("footer, script, style"))
  .map((node) => node.innerText || "").join("\\n")"""

# A code of the service's set as code (`unbacked_claim`): the lessons' Markdown shows `…` as
# <code>, so the backticks are gone from the visible text but the element is there.
SNAKE_CODE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")


def problems_on(page, ids: list[str]) -> list[str]:
    text = page.evaluate(VISIBLE_TEXT)
    found = [f"{what}: {match.group(0)!r} in …{text[max(0, match.start() - 60):match.end() + 40]!r}…"
             for what, pattern in FORBIDDEN.items() for match in pattern.finditer(text)]
    found += [f"a code as code: {code!r}" for code in page.locator("main code").all_inner_texts()
              if SNAKE_CODE.match(code.strip())]
    # A product's id (p00) where a founder reads its name: a heading or a line of text.
    found += [f"a product id as a heading: {heading!r}" for heading in page.locator("h1, h2, h3").all_inner_texts()
              if heading.strip() in ids]
    any_id = re.compile(r"\b(?:" + "|".join(map(re.escape, ids)) + r")\b")
    found += [f"a product id in the text: …{text[max(0, m.start() - 60):m.end() + 40]!r}…"
              for m in any_id.finditer(text)]
    return found


def walk(app, routes, ids, *, who: str) -> dict[str, list[str]]:
    found = {}
    for route in routes:
        # The screen is the route's first part after /app/ (#/app/find/yours is Find's view of your
        # products, #/app/learn/ads is Learn's page).
        name = "login" if route == "#login" else route.split("/")[2]
        page = screen(app, f"/{route}", name)
        app.shot(f"words-{route.removeprefix('#/app/').replace('/', '-').lstrip('#')}-{who}")
        if problems := problems_on(page, ids):
            found[f"{route} ({who})"] = problems
    return found


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_every_screen_speaks_a_founders_words(open_app, run_jobs, viewport):
    ids = catalog(3)
    app = open_app(viewport)
    sign_in_by_link(app, f"words-{viewport}@example.com", new=True)
    claim_own_card(app)
    run_jobs()  # the claim's research: the offer, the verdict and the analysis are there
    page = build_store(app)
    run_jobs()  # the ad the build sent, so Growth shows the ad rather than its progress
    brief.generate()  # the nightly brief, so Insights shows one rather than its empty state

    # A plain-language edit the store's bounds refuse ("$.faq: must have at most 6 items"),
    # and one in a founder's terms that the store's question about returning it answers.
    found = {}
    page = screen(app, "/#/app/edit", "edit")
    page.get_by_label("Your edit").fill("Add a question: Does it fold flat? Yes, it folds flat for storage.")
    page.get_by_role("button", name="Make this edit").click()
    refused = page.locator("[data-reason=too_long]")
    refused.wait_for()
    app.shot("words-edit-refused")
    if "The questions can hold at most 6 (this would make 7)" not in refused.inner_text():
        found["the edit refused"] = [refused.inner_text()] + problems_on(page, ids)
    page.get_by_label("Your edit").fill("Remove the question about returns")
    page.get_by_role("button", name="Make this edit").click()
    page.locator("[data-edited='2'], [data-reason=editor_unavailable]").wait_for()
    if page.locator("[data-edited='2']").count() != 1:
        found["removing the question about returns"] = [
            page.locator("[data-reason=editor_unavailable]").inner_text()]

    # Growth with a campaign and researched post ideas on screen, what each idea rests on opened.
    page = screen(app, "/#/app/growth", "growth")
    page.locator("form[data-form=campaign]").get_by_label("Campaign name").fill("Spring launch")
    page.get_by_role("button", name="Save the campaign").click()
    page.locator("article.campaign-card").first.wait_for()
    page.get_by_label("What do you want to find out?").fill("gift ideas for the holidays")
    page.get_by_role("button", name="Research post ideas").click()
    page.locator("article.organic-campaign").first.wait_for()
    for summary in page.locator("article.organic-campaign details > summary").all():
        summary.click()
    app.shot("words-growth-research")
    if problems := problems_on(page, ids):
        found["growth with post ideas"] = problems

    page = screen(app, "/#/app/home", "home")
    routes = [link.get_attribute("href") for link in page.locator("#nav a").all()]
    assert "#/app/offer" in routes and "#/app/launch" in routes, routes
    routes += [r for r in ("#/app/account",) if r not in routes]
    found.update(walk(app, routes, ids, who="signed-in"))
    # Every subject's lessons, as the Learn screen shows them (the links of its list).
    page = screen(app, "/#/app/learn", "learn")
    subjects = [link.get_attribute("href") for link in page.locator("main a.subject").all()]
    assert len(subjects) == 5 and all(s.startswith("#/app/learn/") for s in subjects), subjects
    found.update(walk(app, subjects, ids, who="signed-in"))
    # The published store's pages, as a shopper reads them.
    screen(app, "/#/app/store", "store")
    page = publish_store(app)
    public = page.get_by_role("link", name="Open the public store").get_attribute("href")
    for name in ("", "product", "faq", "shipping", "contact", "privacy", "terms"):
        page.goto(app.base_url + public + name)
        if problems := problems_on(page, ids):
            found[f"the public store's {name or 'home'} page"] = problems
    # Signed out, the sign-in screen and the screens that ask for an account speak too.
    page = screen(app, "/#/app/account", "account")
    page.get_by_role("button", name=re.compile("Sign out", re.I)).click()
    page.locator("#who").get_by_role("link", name="Sign in").wait_for()
    page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    found.update(walk(app, ["#login", "#/app/workspace", "#/app/meter", "#/app/fix"], ids, who="signed-out"))
    assert not found, "\n".join(f"{route}:\n  " + "\n  ".join(problems) for route, problems in found.items())
