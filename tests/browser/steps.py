"""Steps a founder or a customer takes in Chromium, shared by the browser tests: a catalog with
the real demo photos, a screen opened until it is ready, a claim, a build, a sign-in by the
mailed link, and payment on the sandbox provider's hosted page. The fixtures are in
tests/browser/conftest.py."""
from __future__ import annotations

import re

from tests.conftest import ROOT
from tests.factories import item, load

DEMO_PHOTOS = sorted(p.name for p in (ROOT / "api" / "static" / "demo").glob("*-1.svg"))


def catalog(count: int):
    """`count` servable products p00, p01, ... (p00 ranked highest), with real demo photos."""
    products = []
    for n in range(count):
        product = item(f"p{n:02d}", rank=1000 - n, name=f"Demo product {n:02d}")
        # The id stays out of what a founder reads (test_founder_words looks for it on screen).
        product["description"] = f"A fine demo product, number {n:02d}."
        product["images"] = [f"/static/demo/{DEMO_PHOTOS[n % len(DEMO_PHOTOS)]}"]
        products.append(product)
    return load(*products)


def screen(app, route: str, name: str):
    """Opens a route of the app and waits until that screen has finished rendering (its
    polling included: `data-state` turns ready once the screen shows its final answer)."""
    app.goto(route)
    app.page.wait_for_selector(f"main[data-screen={name}][data-state=ready]", state="attached", timeout=30_000)
    return app.page


CLAIM = re.compile(r"^Claim it")  # "Claim it: uses your 1 claim", and so on


def claim_from(card) -> None:
    """Claims the product of a card (a locator): its claim button, then yes to the question
    the card asks before a claim spends the allowance."""
    card.get_by_role("button", name=CLAIM).click()
    card.locator("[data-confirm=claim]").get_by_role("button", name="Yes, claim it").click()


def claim_own_card(app):
    """Claims the card the feed holds for the founder; answers the Find screen."""
    page = screen(app, "/#/app/find", "find")
    claim_from(page.locator("article.card-yours"))
    page.locator("article.card-yours").get_by_text("Claimed by you").wait_for()
    return page


def build_store(app):
    """Builds the founder's store from the Store screen and waits until it is built."""
    page = screen(app, "/#/app/store", "store")
    page.get_by_role("button", name="Build my store").click()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    return page


def claimed_and_built(app, run_jobs):
    """The founder's first steps to a built store: claims the card the feed holds for them,
    lets the worker research it (the offer, the verdict and the analysis are there), and builds
    the store; answers the Store screen."""
    claim_own_card(app)
    run_jobs()
    return build_store(app)


def publish_store(app):
    """Publishes the built store from the Store screen and waits until it is live."""
    page = app.page
    page.get_by_role("button", name="Publish").click()
    page.locator("[data-store-status=published]").wait_for(timeout=60_000)
    return page


def api_answer(app, path: str) -> dict:
    """What the API answers this founder (their browser's cookie) at `path`, as JSON: what a
    screen was drawn from, to compare the screen with."""
    response = app.context.request.get(app.base_url + path)
    assert response.ok, f"{path}: {response.status}"
    return response.json()


def sign_in_by_link(app, address: str, *, new: bool = False) -> None:
    """Asks for a sign-in link (a `new` founder saves their progress to the address first:
    links go only to addresses that have an account) and opens it from the outbox."""
    if new:
        page = screen(app, "/#/app/account", "account")
        page.get_by_label("Email address").fill(address)
        page.get_by_role("button", name="Save and email me a link").click()
        page.get_by_text("Check your inbox", exact=True).wait_for()
    else:
        # The Sign in screen also holds the new founder's save form: the returning founder's is this one.
        form = screen(app, "/#login", "login").get_by_role("form", name="Saved your work before?")
        form.get_by_label("Email address").fill(address)
        form.get_by_role("button", name="Email me a sign-in link").click()
        form.get_by_text("Check your inbox").wait_for()
        page = app.page
    app.page.goto(app.outbox_link(address))
    page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    assert page.url.endswith("/?view=home#/app/home")
    page.locator("#who").get_by_text(address).wait_for()


# --- Paying on the sandbox provider's hosted page -----------------------------------------

HOSTED_PAGE = re.compile(r"/pay/sandbox/checkout/[^/?#]+$")
PAY = re.compile(r"^Pay ")


def ask_for_one(app, public_url: str, email: str):
    """A customer opens the public product page, asks for one with `email`, and is on the hosted page."""
    shop = app.page
    shop.goto(app.base_url + public_url + "product")
    buy_box = shop.locator("form.buy-form").first
    buy_box.get_by_label("Email for your receipt").fill(email)
    buy_box.locator("button[type=submit]").click()
    shop.wait_for_url(HOSTED_PAGE)
    return shop


def pay_on_the_hosted_page(app, shot_name: str) -> None:
    """On the sandbox provider's page: a screenshot, then Pay."""
    page = app.page
    page.wait_for_url(HOSTED_PAGE)
    page.get_by_role("heading", name=PAY).wait_for()
    app.shot(shot_name)
    page.get_by_role("button", name=PAY).click()


def order_a_paid_sample(app, *, quantity: int = 2):
    """Orders a sample of the connected offer on the Suppliers screen and pays for it on the
    hosted page; answers the Suppliers screen once it shows the payment as paid."""
    page = app.page
    page.get_by_label("Sample quantity").fill(str(quantity))
    page.get_by_role("button", name="Order a sample").click()
    pay_on_the_hosted_page(app, "hosted-checkout-sample")
    page.wait_for_url(re.compile(r"#/app/suppliers\?payment="))
    page.wait_for_selector("main[data-screen=suppliers][data-state=ready]", state="attached", timeout=30_000)
    page.locator("[data-payment-state=paid]").wait_for()
    return page


# --- On a phone ------------------------------------------------------------------------------

TOUCH_PX = 44

# What does not fit, on the page shown: the document wider than the viewport, and each button
# (in main, or primary anywhere) outside the width or shorter than a finger. A button hidden
# from sight (no box) is not one a founder can tap.
MEASURE = """([touch]) => {
  const width = window.innerWidth;
  const problems = [];
  const scroll = document.documentElement.scrollWidth;
  if (scroll > width) problems.push(`the page is ${scroll} px wide`);
  const buttons = new Set([...document.querySelectorAll("main button, main .btn, .btn-primary")]);
  for (const control of buttons) {
    const box = control.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    const named = `"${(control.getAttribute("aria-label") || control.textContent).trim().slice(0, 40)}"`;
    if (box.left < 0 || box.right > width) problems.push(`${named} lies at ${Math.round(box.left)}-${Math.round(box.right)} px`);
    if (box.height < touch) problems.push(`${named} is ${Math.round(box.height)} px tall`);
  }
  return problems;
}"""


def fix_run_done(app, address: str, *, email: str | None = None) -> tuple[object, str]:
    """Checks `address` on the Fix screen (with `email` when given) and waits for the report;
    answers (the page, the run's token)."""
    page = screen(app, "/#/app/fix", "fix")
    page.get_by_label("Your store's address").fill(address)
    if email is not None:
        page.get_by_label("Your email (if you like)").fill(email)
    page.get_by_role("button", name="Check and repair my store").click()
    page.wait_for_url(re.compile(r"#/app/fix\?token=[\w-]+$"))
    token = page.url.split("token=", 1)[1]
    page.wait_for_selector("main[data-screen=fix][data-state=ready] [data-run-stage=done]", state="attached",
                           timeout=60_000)
    return page, token
