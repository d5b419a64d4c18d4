"""Three screen promises about a founder's own product, kept in Chromium at both widths (issue 47,
point 5): a founder who already claimed a catalog product finds "Sell something of your own" on
the Product screen and uses it, with a photo; the Store screen's drawing of the home page lists
exactly the sections the built page shows, in its order, also after the founder changes the
leading section; and the 3D preview on the Dashboard shows the uploaded photo the store shows."""
from __future__ import annotations

import re

import pytest
from PIL import Image

from services.health import record_worker_beat, worker_name
from tests.browser.steps import api_answer, catalog, claim_own_card, screen

PHOTO_WORDS = "A flat card textured with the product photo"


def preview_sections(app, preview_url: str) -> tuple[list[str], list[str]]:
    """The sections the preview's home page really shows, top to bottom (each is
    <section class="section section-<name>">, services/store/render.py), and its hero's photos."""
    preview = app.context.new_page()
    preview.goto(app.base_url + preview_url)
    classes = preview.locator("main section.section").evaluate_all("nodes => nodes.map(n => n.className)")
    images = preview.locator("main section.section-hero img").evaluate_all("nodes => nodes.map(n => n.getAttribute('src'))")
    preview.close()
    return [re.search(r"\bsection-([a-z]+)\b", c).group(1) for c in classes], images


def drawing_matches_the_page(app) -> list[str]:
    """Opens the Store screen and checks its drawing against the preview of the same version."""
    page = screen(app, "/#/app/store", "store")
    figure = page.locator("[data-picture=store-thumbnail]")
    figure.wait_for()
    drawn = figure.get_attribute("data-sections").split()
    shown, _images = preview_sections(app, api_answer(app, "/api/store")["preview_url"])
    assert drawn == shown, f"the drawing lists {drawn}, the page shows {shown}"
    # The words under the drawing name those sections, as many and in that order.
    caption = figure.locator("figcaption").inner_text()
    listed = caption.split("top to bottom: ", 1)[1].rstrip(".")
    assert len(re.split(r", (?=[A-Z])", listed)) == len(shown), caption
    return shown


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_founder_with_a_claim_sells_their_own_product_and_its_screens_keep_their_word(open_app, run_jobs,
                                                                                       tmp_path, viewport):
    catalog(2)
    app = open_app(viewport)
    claim_own_card(app)
    run_jobs()

    # "Sell something of your own", offered to a founder who has claimed a product.
    page = screen(app, "/#/app/product", "product")
    offer = page.locator("[data-panel=own-new]")
    offer.get_by_role("heading", name="Sell something of your own").wait_for()
    assert "does not use up one of your claims" in offer.inner_text()
    assert "instead of Demo product 00" in offer.inner_text()
    offer.get_by_role("button", name="Describe your own product").click()
    offer.get_by_label("Name").fill("Hand-thrown Espresso Cups")
    offer.get_by_label("Description").fill("Two stoneware cups, glazed by hand in our studio.")
    offer.get_by_label("Price (USD)").fill("38")
    offer.get_by_label("What one costs you (USD, optional)").fill("11.50")
    photo = tmp_path / "cups.png"
    Image.new("RGB", (320, 240), (190, 90, 50)).save(photo)
    offer.get_by_label("Add photos").set_input_files(str(photo))
    offer.get_by_role("img", name="New photo cups.png").wait_for()
    app.shot("own-product-form-with-a-claim")
    offer.get_by_role("button", name="Start selling it").click()
    page.locator("[data-created=true]").get_by_text("Hand-thrown Espresso Cups is yours").wait_for()
    app.shot("own-product-made-with-a-claim")
    mine = api_answer(app, "/api/product")
    assert mine["own_product"] is True and mine["product"]["images"][0].startswith("/media/")
    uploaded = mine["product"]["images"][0]
    run_jobs()  # its offer is researched from the founder's figures

    # Its store: the drawing lists the sections the home page shows, in its order.
    page.get_by_role("link", name="Build its store").click()
    page.wait_for_selector("main[data-screen=store][data-state=ready]", state="attached")
    page.get_by_role("button", name="Build my store").click()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    shown = drawing_matches_the_page(app)
    assert shown[0] == "hero" and "evidence" not in shown  # an own product has no dated evidence to show
    app.shot("store-drawing-of-own-product")
    _sections, hero_images = preview_sections(app, api_answer(app, "/api/store")["preview_url"])
    assert hero_images == [uploaded]

    # The founder leads with the price: the drawing follows the page.
    page = screen(app, "/#/app/edit", "edit")
    page.get_by_label("Lead the home page with").select_option("price")
    page.get_by_role("button", name="Set the leading section").click()
    page.get_by_text("Your home page leads with the price").wait_for()
    run_jobs()
    assert drawing_matches_the_page(app)[0] == "price"
    app.shot("store-drawing-after-the-lead-changed")

    # The 3D preview shows the photo the store shows, and says so.
    record_worker_beat(worker_name())
    page = screen(app, "/#/app/dashboard", "dashboard")
    page.locator(".model-canvas, .model-fallback").first.wait_for(timeout=30_000)
    page.get_by_text(PHOTO_WORDS).wait_for()
    assert page.get_by_text("could not be read").count() == 0
    model = api_answer(app, "/api/model")
    assert (model["status"], model["texture"], model["image"]) == ("ready", "photo", uploaded)
    if page.locator(".model-canvas").count():
        card = api_answer(app, model["url"])  # what WebGL draws: the card's picture is the photo
        assert card["images"][0]["name"] == "photo"
    else:  # no WebGL here: the photo itself, loaded
        fallback = page.locator("img.model-fallback")
        assert fallback.get_attribute("src") == uploaded
        assert fallback.evaluate("img => img.complete && img.naturalWidth") == 320
    app.shot("dashboard-3d-preview-of-the-upload")
