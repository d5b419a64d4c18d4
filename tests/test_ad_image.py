"""The ad's image (issue 24, point 7): an SVG composed from the store's own product photo and
the headline, rendered to PNG at each platform's sizes, served like other media: no cookie,
cacheable for good, nosniff."""
from __future__ import annotations

import io
from xml.etree import ElementTree

from PIL import Image

from models.session import Session
from services.growth import ad_image
from tests.ad_factories import PHOTO_COLOUR, ad_founder, ad_of, colours
from tests.factories import data_url, png_bytes, saved

UPLOAD_COLOUR = (20, 120, 200)


def fetch(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return response


def near(colour, found, tolerance=6) -> bool:
    return any(all(abs(a - b) <= tolerance for a, b in zip(colour, c, strict=True)) for c in found)


def test_each_platforms_images_are_pngs_of_its_sizes_showing_the_photo_and_the_headline(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    for platform, sizes in (("meta", [(1080, 1080), (1080, 1350)]), ("google", [(1200, 628)])):
        ad = ad_of(client, platform)
        assert [(i["width"], i["height"]) for i in ad["images"]] == sizes
        for entry in ad["images"]:
            response = fetch(client, entry["url"])
            assert response.mimetype == "image/png" and response.data.startswith(b"\x89PNG")
            size, found = colours(response.data)
            assert size == (entry["width"], entry["height"])
            assert len(found) > 20  # not blank, not one colour
            assert near(PHOTO_COLOUR, found)  # the product photo is in it
            assert near(ad_image.INK_RGB, found) and near(ad_image.BAND_RGB, found)  # the headline on its band


def test_an_ad_image_is_served_without_a_cookie_cacheable_for_good(founder, run_jobs, app):
    client = ad_founder(founder, run_jobs)
    url = ad_of(client)["image"]
    sessions = Session.select().count()
    for browser in (app.test_client(), client):  # a stranger, and the founder with their cookie
        response = fetch(browser, url)
        assert response.headers.getlist("Set-Cookie") == []
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert Session.select().count() == sessions


def test_an_unknown_ad_image_is_a_json_404(app):
    for url in ("/media/ad/" + "0" * 32 + ".png", "/media/ad/not-a-name.png", "/media/ad/" + "A" * 32 + ".png"):
        response = app.test_client().get(url)
        assert response.status_code == 404 and response.get_json()["reason"] == "not_found", url
        assert response.headers.getlist("Set-Cookie") == []


def test_the_founders_own_upload_is_the_photo_of_a_rebuilt_ad(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    saved(client, images=[data_url(png_bytes((96, 96), UPLOAD_COLOUR))])
    client.post("/api/store")
    run_jobs()
    ad = ad_of(client)
    assert ad["version"] == 2
    _size, found = colours(fetch(client, ad["images"][1]["url"]).data)
    assert near(UPLOAD_COLOUR, found) and not near(PHOTO_COLOUR, found)
    webp = io.BytesIO()
    Image.new("RGB", (64, 64), (180, 30, 160)).save(webp, "WEBP")
    photo = ad_image.Photo("image/webp", webp.getvalue())
    png = ad_image.render(ad_image.compose(width=1200, height=628, headline="Hi", name="x", photo=photo),
                          width=1200, height=628)
    assert near((180, 30, 160), colours(png)[1])


def test_the_headline_is_escaped_text_wrapped_to_its_band():
    headline = '<script>alert(1)</script> & "quotes" </text><image href="http://evil.example/x.png"/>'
    svg = ad_image.compose(width=1080, height=1080, headline=headline, name="Thing", photo=None)
    root = ElementTree.fromstring(svg)
    tags = {element.tag.split("}")[-1] for element in root.iter()}
    assert tags <= {"svg", "rect", "text", "tspan", "image"} and "script" not in tags
    assert not any("evil" in (element.get("href") or "") for element in root.iter())
    lines = [span.text for span in root.iter("{http://www.w3.org/2000/svg}tspan")]
    assert "<script>alert(1)</script>" in " ".join(lines[1:])  # the name panel's line, then the headline's
    assert all(len(line) <= 40 for line in lines)


def test_a_photo_hosted_elsewhere_is_never_fetched_and_the_name_is_shown_instead():
    product = {"product_id": "p00", "name": "Acacia Knife Strip", "images": ["https://example.com/photo.png"]}
    assert ad_image.photo_of(product) is None
    assert ad_image.photo_of({**product, "images": ["/static/../config.py"]}) is None
    [(width, height, png)] = ad_image.images_for(sizes=((1080, 1350),), headline="Knives off the counter",
                                                 product=product)
    size, found = colours(png)
    assert size == (1080, 1350) and len(found) > 20 and near(ad_image.ACCENT_RGB, found)
