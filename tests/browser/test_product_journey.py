"""Your product in Chromium: a founder who built their store changes its name and price and
uploads a photo (a real PNG made here), sees the new version on the Store screen and the new
name, price and photo in the preview; a photo over 5 MiB and an SVG are refused, and the app
says why."""
from __future__ import annotations

import os

from PIL import Image

from tests.browser.steps import build_store, catalog, claim_own_card, screen


def test_a_founder_publishes_their_own_name_price_and_photo_and_bad_photos_are_explained(open_app, run_jobs,
                                                                                          tmp_path):
    catalog(3)
    founder = open_app("desktop")
    claim_own_card(founder)
    build_store(founder)

    page = screen(founder, "/#/app/product", "product")
    assert page.get_by_label("Name", exact=True).input_value() == "Demo product 00"
    founder.shot("product-catalog-values")
    page.get_by_label("Name", exact=True).fill("Walnut knife rail")
    page.get_by_label("Price (USD)").fill("24.50")
    photo = tmp_path / "rail.png"
    Image.new("RGB", (320, 240), (150, 90, 40)).save(photo)
    page.get_by_label("Add photos").set_input_files(str(photo))
    page.get_by_role("img", name="New photo rail.png").wait_for()
    founder.shot("product-edited")
    page.get_by_role("button", name="Save my product").click()
    page.locator("[data-saved=true]").get_by_text("version 2").wait_for()
    founder.shot("product-saved")

    page = screen(founder, "/#/app/store", "store")
    page.locator("[data-store-status=built]").wait_for()
    assert page.locator("xpath=//dt[.='Newest version']/following-sibling::dd[1]").inner_text() == "2"
    founder.shot("store-after-own-product")
    preview_url = page.get_by_role("link", name="Open the preview").get_attribute("href")
    preview = founder.context.new_page()
    preview.goto(founder.base_url + preview_url + "product")
    assert preview.locator("h1").inner_text() == "Walnut knife rail"
    assert "24.50" in preview.content()
    uploaded = preview.locator("img[src^='/media/']").first
    uploaded.wait_for()
    assert uploaded.evaluate("img => img.complete && img.naturalWidth") == 320
    preview.close()

    # A photo over 5 MiB: noise does not compress, so its PNG stays larger than the limit.
    founder.allow_console(r"status of 413 .* at .*/api/product")
    founder.allow_console(r"status of 400 .* at .*/api/product")
    page = screen(founder, "/#/app/product", "product")
    big = tmp_path / "big.png"
    Image.frombytes("RGB", (1400, 1400), os.urandom(1400 * 1400 * 3)).save(big)
    assert big.stat().st_size > 5 * 1024 * 1024
    page.get_by_label("Add photos").set_input_files(str(big))
    page.get_by_role("img", name="New photo big.png").wait_for()
    page.get_by_role("button", name="Save my product").click()
    refused = page.locator("[data-reason=images_too_large]")
    refused.wait_for()
    assert "Image 3" in refused.inner_text() and "5 MiB" in refused.inner_text()
    founder.shot("product-photo-too-large")

    page.get_by_role("button", name="Remove new photo big.png").click()
    svg = tmp_path / "logo.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>')
    page.get_by_label("Add photos").set_input_files(str(svg))
    page.get_by_role("img", name="New photo logo.svg").wait_for(state="attached")
    page.get_by_role("button", name="Save my product").click()
    refused = page.locator("[data-reason=invalid_images]")
    refused.wait_for()
    assert "SVG" in refused.inner_text()
    founder.shot("product-svg-refused")
    # Nothing of either refusal was saved: the product is as it was (read afresh).
    page.reload()
    page.wait_for_selector("main[data-screen=product][data-state=ready]", state="attached")
    assert page.locator(".photo img").count() == 2  # the catalog photo and rail.png
