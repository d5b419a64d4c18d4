"""A founder's own product through HTTP (issue 12, point 5; decisions.md, Store): the bounds on
their edges, images checked by content (polyglots, SVG, GIF, garbage, decompression bombs,
size), re-encoded without EXIF and served with their type and nosniff, another founder's
images out of reach, atomic saves, the store version written at once, and the next build
and the publish check holding the store to the founder's values."""
from __future__ import annotations

import io
import zipfile

import pytest
from PIL import Image

from models.own_product import FounderImage, FounderProduct
from models.store import StoreVersion
from services import images, own_product
from tests.conftest import SETTINGS
from tests.factories import (
    MEDIA,
    built,
    chunk,
    claim,
    claimed_founder,
    data_url,
    demo_item,
    find,
    jpeg_with_gps,
    load,
    new_account,
    png_bytes,
    png_declaring,
    product_of,
    refusal,
    saved,
    sign_in,
    unchanged_after,
)
from tests.factories import save_product as save

# --- Images made here, with Pillow ----------------------------------------------------------------

def webp_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (30, 20), (10, 200, 10, 128)).save(out, "WEBP")
    return out.getvalue()


def png_of_exactly(size: int) -> bytes:
    """A valid PNG of exactly `size` bytes: a real image with a harmless text chunk as filler."""
    image = png_bytes()
    filler = size - len(image) - 12 - len(b"Comment\0")
    assert filler >= 0
    return image[:33] + chunk(b"tEXt", b"Comment\0" + b"a" * filler) + image[33:]


def a_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("index.html", "<script>alert(1)</script>")
    return out.getvalue()


# --- Who may ------------------------------------------------------------------------------------

def test_a_held_product_s_details_need_the_claim(founder):
    load(demo_item())
    client = founder()
    find(client)  # a hold is not enough: the details would reach the product's next founder
    refusal(save(client, name="Mine"), 409, "claim_required")
    refusal(client.get("/api/product"), 409, "claim_required")
    assert FounderProduct.select().count() == 0


def test_before_any_change_the_product_is_the_catalogs(founder):
    client = claimed_founder(founder)
    answer = product_of(client)
    assert answer["status"] == "ok" and answer["own"] == [] and answer["version"] is None
    assert answer["product"] == {"name": "Product p00", "description": demo_item()["description"],
                                 "price": 30.0, "currency": "USD",
                                 "images": ["/static/demo/kitchen-magnetic-knife-strip-1.svg"]}


def test_a_body_without_any_field_changes_nothing(founder):
    client = claimed_founder(founder)
    refusal(save(client), 400, "nothing_to_change")
    assert refusal(save(client, title="Not a field"), 400, "unknown_field")["field"] == "title"
    assert FounderProduct.select().count() == 0


def test_an_anonymous_founder_saves_and_reads_back_their_values(founder):
    client = claimed_founder(founder)
    answer = saved(client, name="  Acacia   knife strip ", description=" Holds eight knives. ", price=24.5)
    assert answer["product"]["name"] == "Acacia knife strip"
    assert answer["product"]["description"] == "Holds eight knives."
    assert answer["product"]["price"] == 24.5 and answer["product"]["currency"] == "USD"
    assert answer["own"] == ["name", "description", "price"] and answer["version"] is None
    assert product_of(client) == answer | {"status": "ok"}


def test_a_signed_in_founder_saves_and_sees_it_on_another_device(founder, run_jobs):
    load(demo_item())
    client = new_account(founder, run_jobs, "own-product@example.com")
    find(client)
    assert claim(client).get_json()["status"] == "claimed"
    url = saved(client, name="Signed-in strip", images=[data_url(png_bytes())])["product"]["images"][0]
    other_device = founder()
    sign_in(other_device, run_jobs, "own-product@example.com")
    assert product_of(other_device)["product"]["name"] == "Signed-in strip"
    assert other_device.get(url).status_code == 200


def test_a_null_field_goes_back_to_the_catalogs_value(founder):
    client = claimed_founder(founder)
    saved(client, name="Mine", price=12)
    answer = saved(client, name=None)
    assert answer["product"]["name"] == "Product p00" and answer["product"]["price"] == 12.0
    assert answer["own"] == ["price"]


# --- Bounds ---------------------------------------------------------------------------------------

def test_a_name_is_1_to_120_characters(founder):
    client = claimed_founder(founder)
    assert saved(client, name="n" * 120)["product"]["name"] == "n" * 120
    for bad in ("n" * 121, "", "   \n\t", 42, ["a"]):
        unchanged_after(client, lambda bad=bad: save(client, name=bad), 400, "invalid_name")


def test_a_description_is_1_to_5000_characters(founder):
    client = claimed_founder(founder)
    assert saved(client, description="d" * 5000)["product"]["description"] == "d" * 5000
    for bad in ("d" * 5001, "", "  ", {"text": "x"}):
        unchanged_after(client, lambda bad=bad: save(client, description=bad), 400, "invalid_description")


def test_a_price_is_001_to_100000_in_whole_cents(founder):
    client = claimed_founder(founder)
    assert saved(client, price=0.01)["product"]["price"] == 0.01
    assert saved(client, price=100000)["product"]["price"] == 100000.0
    assert saved(client, price=19.99)["product"]["price"] == 19.99
    for bad in (0, 0.009, -5, 100000.01, 1.005, "10", True, 2 ** 63 - 1):
        unchanged_after(client, lambda bad=bad: save(client, price=bad), 400, "invalid_price")
    # Past 64 bits the JSON reader refuses the body before any field is read (api/json_body.py).
    unchanged_after(client, lambda: save(client, price=10 ** 400), 400, "invalid_json")


def test_nothing_is_saved_unless_every_field_passes(founder):
    client = claimed_founder(founder)
    unchanged_after(client, lambda: save(client, name="Good name", price=0), 400, "invalid_price")
    unchanged_after(client, lambda: save(client, name="Good name", images=[data_url(png_bytes()), "data:x"]),
                    400, "invalid_images")
    assert FounderProduct.select().count() == 0 and FounderImage.select().count() == 0


# --- Images -----------------------------------------------------------------------------------------

def test_an_uploaded_png_is_stored_reencoded_and_served_with_its_type_and_nosniff(founder):
    client = claimed_founder(founder)
    original = png_bytes()
    answer = saved(client, images=[data_url(original, "text/html")])  # the declared type counts for nothing
    [url] = answer["product"]["images"]
    assert MEDIA.match(url) and url.endswith(".png") and answer["own"] == ["images"]
    served = client.get(url)
    assert served.status_code == 200
    assert served.headers["Content-Type"] == "image/png"
    assert served.headers["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in served.headers["Content-Security-Policy"]
    image = Image.open(io.BytesIO(served.data))
    assert (image.format, image.size) == ("PNG", (48, 32)) and image.getpixel((3, 3))[:3] == (200, 40, 40)


def test_a_jpeg_loses_its_exif_and_gps_and_is_turned_upright(founder):
    client = claimed_founder(founder)
    original = jpeg_with_gps()
    assert b"SpyCam" in original and Image.open(io.BytesIO(original)).getexif().get_ifd(0x8825)
    [url] = saved(client, images=[data_url(original, "image/jpeg")])["product"]["images"]
    assert url.endswith(".jpg")
    served = client.get(url)
    assert served.headers["Content-Type"] == "image/jpeg"
    image = Image.open(io.BytesIO(served.data))
    assert image.format == "JPEG" and image.size == (48, 64)  # the orientation was applied, then dropped
    assert dict(image.getexif()) == {} and "exif" not in image.info and "icc_profile" not in image.info
    assert b"Exif" not in served.data and b"SpyCam" not in served.data


def test_a_webp_stays_webp(founder):
    client = claimed_founder(founder)
    [url] = saved(client, images=[data_url(webp_bytes(), "image/webp")])["product"]["images"]
    served = client.get(url)
    assert url.endswith(".webp") and served.headers["Content-Type"] == "image/webp"
    assert Image.open(io.BytesIO(served.data)).format == "WEBP"


@pytest.mark.parametrize("kind", ["png then html", "jpeg then zip", "html in a png text chunk", "svg", "gif",
                                  "garbage base64", "not base64", "not a data url", "text", "bomb",
                                  "past 25 megapixels", "truncated png", "animated png"])
def test_an_image_that_is_not_a_plain_png_jpeg_or_webp_is_refused(founder, kind):
    png = png_bytes()
    gif = io.BytesIO()
    Image.new("RGB", (8, 8)).save(gif, "GIF")
    animated = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(animated, "PNG", save_all=True,
                                        append_images=[Image.new("RGB", (8, 8), "blue")])
    entry = {
        "png then html": data_url(png + b"<html><script>alert(document.cookie)</script></html>"),
        "jpeg then zip": data_url(jpeg_with_gps() + a_zip(), "image/jpeg"),
        "html in a png text chunk": data_url(png[:33] + chunk(b"tEXt", b"Comment\0<html><script>x()</script>")
                                             + png[33:]),
        "svg": data_url(b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>', "image/svg+xml"),
        "gif": data_url(gif.getvalue(), "image/gif"),
        "garbage base64": "data:image/png;base64,@@not*base64@@",
        "not base64": "data:image/png," + "x" * 20,
        "not a data url": "javascript:alert(1)",
        "text": data_url(b"just some words, no picture at all"),
        "bomb": data_url(png_declaring(20000, 20000)),
        "past 25 megapixels": data_url(png_declaring(6000, 5000)),
        "truncated png": data_url(png[:-20]),
        "animated png": data_url(animated.getvalue()),
    }[kind]
    client = claimed_founder(founder)
    body = unchanged_after(client, lambda: save(client, images=[data_url(png), entry]), 400, "invalid_images")
    assert body["explanation"].startswith("Image 2 cannot be used") or "Image 2" in body["explanation"]
    assert FounderImage.select().count() == 0


def test_images_of_the_wrong_json_type_are_invalid_images(founder):
    client = claimed_founder(founder)
    for bad in ("data:image/png;base64,AAAA", [1], [None], {"0": "x"}):
        unchanged_after(client, lambda bad=bad: save(client, images=bad), 400, "invalid_images")


def test_an_image_of_exactly_5_mib_is_taken_and_one_byte_more_is_413(founder):
    client = claimed_founder(founder)
    limit = images.MAX_IMAGE_BYTES
    assert limit == 5 * 1024 * 1024
    assert MEDIA.match(saved(client, images=[data_url(png_of_exactly(limit))])["product"]["images"][0])
    body = unchanged_after(client, lambda: save(client, images=[data_url(png_of_exactly(limit + 1))]), 413,
                           "images_too_large")
    assert "Image 1" in body["explanation"]


def test_eight_images_are_taken_and_nine_are_refused(founder):
    client = claimed_founder(founder)
    eight = [data_url(png_bytes(color=(n * 20, 0, 0))) for n in range(8)]
    assert len(saved(client, images=eight)["product"]["images"]) == 8
    unchanged_after(client, lambda: save(client, images=eight + [data_url(png_bytes())]), 400, "invalid_images")


def test_only_this_route_takes_large_bodies_and_past_its_ceiling_is_payload_too_large(founder):
    client = claimed_founder(founder)
    assert SETTINGS.max_body_bytes < 2 * 1024 * 1024 < own_product.MAX_BODY_BYTES
    too_big = b'{"name": "' + b"x" * (own_product.MAX_BODY_BYTES) + b'"}'
    response = client.post("/api/product", data=too_big, content_type="application/json")
    assert response.status_code == 413 and response.get_json()["reason"] == "payload_too_large"
    # The new photos of one save at their largest fit under it, base64.
    assert own_product.MAX_REQUEST_UPLOAD_BYTES * 4 // 3 + 8 * 200 + 1024 < own_product.MAX_BODY_BYTES
    two_mib = b'{"message": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    other = client.post("/api/outcome", data=two_mib, content_type="application/json")
    assert other.status_code == 413 and other.get_json()["reason"] == "payload_too_large"


def test_earlier_uploads_and_catalog_photos_may_be_kept_and_nothing_else_may_be_named(founder):
    client = claimed_founder(founder)
    [first] = saved(client, images=[data_url(png_bytes())])["product"]["images"]
    catalog_photo = "/static/demo/kitchen-magnetic-knife-strip-1.svg"
    answer = saved(client, images=[first, catalog_photo, data_url(webp_bytes())])
    assert answer["product"]["images"][:2] == [first, catalog_photo] and FounderImage.select().count() == 2
    for foreign in ("https://evil.example/x.png", "/static/demo/p01-1.svg", "/media/" + "0" * 32 + ".png",
                    first.replace(".png", ".jpg"), first + "?x=1"):
        unchanged_after(client, lambda foreign=foreign: save(client, images=[foreign]), 400, "invalid_images")
    assert saved(client, images=[])["product"]["images"] == []


# --- Another founder --------------------------------------------------------------------------------

def test_another_founder_never_sees_or_uses_your_images(founder, run_jobs):
    load(demo_item(), demo_item("p01"))
    mine = founder()
    find(mine)
    claim(mine)
    [url] = saved(mine, name="Mine alone", images=[data_url(png_bytes())])["product"]["images"]
    theirs = founder()
    find(theirs)
    assert claim(theirs).get_json()["product_id"] == "p01"
    assert product_of(theirs)["product"]["name"] == "Product p01"
    assert url not in product_of(theirs)["product"]["images"]
    for visitor in (theirs, founder()):
        response = visitor.get(url)
        assert response.status_code == 404 and response.get_json()["reason"] == "not_found"
    body = unchanged_after(theirs, lambda: save(theirs, images=[url]), 400, "invalid_images")
    assert "your product's own images" in body["explanation"]
    assert FounderProduct.select().count() == 1


def test_a_published_store_shows_your_image_to_everyone(founder, run_jobs):
    client = claimed_founder(founder)
    built(client, run_jobs)
    [url] = saved(client, images=[data_url(png_bytes())])["product"]["images"]
    stranger = founder()
    assert stranger.get(url).status_code == 404
    assert client.post("/api/store/publish").get_json()["status"] == "published"
    response = stranger.get(url)
    assert response.status_code == 200 and response.headers["Content-Type"] == "image/png"
    assert "public" in response.headers["Cache-Control"]


# --- The store --------------------------------------------------------------------------------------

def test_saving_writes_a_store_version_the_preview_shows_and_publishing_keeps_your_price(founder, run_jobs):
    client = claimed_founder(founder)
    state = built(client, run_jobs)
    assert state["version"] == 1
    answer = saved(client, name="Walnut knife rail", price=24.5, images=[data_url(png_bytes())])
    assert answer["version"] == 2
    assert client.get("/api/store").get_json()["version"] == 2
    row = StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 2)
    assert row.summary == own_product.SUMMARY
    assert (row.document["product"]["name"], row.document["price"]) == ("Walnut knife rail", 24.5)
    # The copy said the offer's price; that sentence is left out (and reported), never shown.
    assert "30.00" not in str(row.document["copy"]) and "$24.50" in str(row.document["copy"])
    assert "It costs $30.00." in [d["sentence"] for d in row.dropped]
    assert "It costs $30.00." in [u["sentence"] for u in client.get("/api/store").get_json()["unbacked"]]
    page = client.get(state["preview_url"] + "product").get_data(as_text=True)
    assert "Walnut knife rail" in page and "24.50" in page and answer["product"]["images"][0] in page
    assert "$30.00" not in page

    published = client.post("/api/store/publish").get_json()
    # The check passes as it is: the price is the founder's own, so nothing is regenerated.
    assert (published["status"], published["published_version"], published["version"]) == ("published", 2, 2)
    public = founder().get(published["public_url"] + "product").get_data(as_text=True)
    assert "Walnut knife rail" in public and "24.50" in public


def test_the_next_build_writes_its_copy_from_your_values(founder, run_jobs):
    client = claimed_founder(founder)
    saved(client, name="Walnut knife rail", description="Holds eight knives on a walnut rail.", price=24.5)
    state = built(client, run_jobs)
    document = StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == state["version"]).document
    assert document["product"]["name"] == "Walnut knife rail" and document["price"] == 24.5
    assert "Walnut knife rail" in document["copy"]["headline"]
    assert "$24.50" in document["copy"]["seo_description"] and "30.00" not in str(document["copy"])
    published = client.post("/api/store/publish").get_json()
    assert published["published_version"] == state["version"]


def test_saving_while_the_store_is_being_built_saves_nothing(founder, held_worker):  # noqa: F811
    client = claimed_founder(founder)
    client.post("/api/store")
    unchanged_after(client, lambda: save(client, name="Too soon"), 409, "build_in_progress")
    assert FounderProduct.select().count() == 0
