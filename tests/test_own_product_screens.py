"""Three promises the app's screens make about a founder's own product (issue 47, point 5):

- the 3D preview (GET /api/model) shows the photo the store shows, an upload included, and
  says in words when there is no photo rather than that one could not be read;
- "Sell something of your own" works for every founder: `create: true` on POST /api/product
  makes a new product of their own even with a product claimed or held, spends no claim
  allowance, and leaves the claimed product theirs and unchanged;
- (the Store screen's drawing of the home page is checked against the page in Chromium:
  tests/browser/test_own_product_screens_journey.py).
"""
import base64
import io
import json

import pytest
from PIL import Image

from models.catalog import Product
from models.discovery import Claim, ClaimAllowance
from models.own_product import FounderProduct
from services import model3d
from services.health import record_worker_beat, worker_name
from tests.factories import (
    built,
    claimed_founder,
    data_url,
    demo_item,
    find,
    load,
    png_bytes,
    refusal,
)

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

MINE = {"name": "Hand-thrown Espresso Cups", "description": "Two stoneware cups, glazed by hand in our studio.",
        "price": 38.0, "cost": 11.5}
TERRACOTTA = (190, 90, 50)
PHOTO_DESCRIPTION = "A flat card textured with the product photo, not a scan of the product."


def make_own(client, **changes) -> dict:
    response = client.post("/api/product", json={**MINE, **changes})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "created" and body["own_product"] is True, body
    return body


def model_of(client) -> dict:
    """The 3D preview's answer once its job has run (a worker is heard from)."""
    record_worker_beat(worker_name())
    first = client.get("/api/model").get_json()
    assert first["status"] in ("building", "ready"), first
    return first


def ready_model(client, run_jobs) -> dict:
    model_of(client)
    run_jobs()
    body = client.get("/api/model").get_json()
    assert body["status"] == "ready", body
    return body


def texture_of(client, url: str) -> tuple[str, Image.Image]:
    """The card's picture: its type and the decoded image."""
    response = client.get(url)
    assert response.status_code == 200 and response.mimetype == "model/gltf+json"
    document = json.loads(response.get_data())
    head, _, payload = document["images"][0]["uri"].partition(",")
    return head[len("data:"):-len(";base64")], Image.open(io.BytesIO(base64.b64decode(payload))).convert("RGB")


def webp_bytes(colour=(20, 160, 60)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), colour).save(out, "WEBP", quality=100)
    return out.getvalue()


# --- The 3D preview shows the photo the store shows ---------------------------------------------

def test_the_3d_preview_of_an_own_product_shows_its_uploaded_photo_as_the_store_does(founder, run_jobs):
    owner = founder()
    photo = make_own(owner, images=[data_url(png_bytes((80, 60), TERRACOTTA))])["product"]["images"][0]
    assert photo.startswith("/media/")

    asked = model_of(owner)
    assert (asked["texture"], asked["image"], asked["description"]) == ("photo", photo, PHOTO_DESCRIPTION)
    body = ready_model(owner, run_jobs)
    assert (body["texture"], body["image"], body["description"]) == ("photo", photo, PHOTO_DESCRIPTION)
    assert "could not be read" not in body["description"]
    mime, picture = texture_of(owner, body["url"])
    assert mime == "image/png" and picture.size == (80, 60)
    assert picture.getpixel((40, 30)) == TERRACOTTA

    # The store shows that very photo: its first image, on the preview's home page.
    state = built(owner, run_jobs)
    draft = owner.get("/api/editor/draft").get_json()["document"]
    assert draft["product"]["images"][0] == photo == owner.get("/api/model").get_json()["image"]
    assert f'src="{photo}"' in owner.get(state["preview_url"]).get_data(as_text=True)


def test_a_webp_upload_is_carried_as_a_jpeg_texture(founder, run_jobs):
    owner = founder()
    make_own(owner, images=[data_url(webp_bytes(), "image/webp")])
    body = ready_model(owner, run_jobs)
    assert body["texture"] == "photo" and body["image"].endswith(".webp")
    mime, picture = texture_of(owner, body["url"])  # glTF core textures are PNG or JPEG only
    assert mime == "image/jpeg" and picture.size == (64, 48)
    assert all(abs(a - b) <= 12 for a, b in zip(picture.getpixel((32, 24)), (20, 160, 60), strict=True))


def test_a_large_upload_is_fitted_for_the_preview(founder, run_jobs):
    owner = founder()
    make_own(owner, images=[data_url(png_bytes((1600, 1200), TERRACOTTA))])
    _mime, picture = texture_of(owner, ready_model(owner, run_jobs)["url"])
    assert picture.size == (model3d.UPLOAD_TEXTURE_SIDE, 768)


def test_a_claimed_catalog_product_previews_the_founders_own_photo_once_they_set_one(founder, run_jobs):
    client = claimed_founder(founder, demo_item())
    assert ready_model(client, run_jobs)["image"] == "/static/demo/kitchen-magnetic-knife-strip-1.svg"
    saved = client.post("/api/product", json={"images": [data_url(png_bytes((40, 40), TERRACOTTA))]}).get_json()
    photo = saved["product"]["images"][0]
    assert client.get("/api/model").get_json()["status"] == "building"  # the photo changed: built again
    body = ready_model(client, run_jobs)
    assert (body["image"], body["texture"]) == (photo, "photo")
    assert texture_of(client, body["url"])[1].getpixel((20, 20)) == TERRACOTTA


def test_an_own_product_without_a_photo_says_it_has_none_rather_than_that_it_could_not_be_read(founder, run_jobs):
    owner = founder()
    make_own(owner)
    body = ready_model(owner, run_jobs)
    assert body["texture"] in ("name_card", "plain_card") and body["image"] is None
    assert "has no photo yet" in body["description"]
    assert "could not be read" not in body["description"]


def test_another_products_upload_is_never_read_into_a_card(founder):
    theirs = make_own(founder(), images=[data_url(png_bytes())])["product"]["images"][0]
    mine = make_own(founder())["product_id"]
    assert model3d.photo_texture(theirs, product_id=mine) is None
    assert model3d.photo_texture(theirs) is None  # without a product, an upload is never read


# --- "Sell something of your own" for every founder ---------------------------------------------

def test_a_founder_with_a_claimed_product_makes_a_product_of_their_own(founder, run_jobs):
    client = claimed_founder(founder, demo_item())
    before = ClaimAllowance.get()
    assert (before.claims_made, before.lifts) == (1, 0)  # at the base allowance of one claim

    made = make_own(client, create=True, images=[data_url(png_bytes())])
    own_id = made["product_id"]
    assert own_id.startswith("own-") and made["product"]["name"] == MINE["name"]
    # It is now the founder's product on every screen, and a store can be built for it.
    assert client.get("/api/product").get_json()["product_id"] == own_id
    run_jobs()
    assert built(client, run_jobs)["product_id"] == own_id
    # The claimed product stays theirs and as it was; no claim was spent.
    assert {c.product_id for c in Claim.select()} == {"p00", own_id}
    assert FounderProduct.get_or_none(FounderProduct.product == "p00") is None
    assert Product.get_by_id("p00").name != MINE["name"]
    after = ClaimAllowance.get()
    assert (after.claims_made, after.lifts) == (before.claims_made, before.lifts)


def test_without_create_the_same_body_still_changes_the_claimed_product(founder):
    client = claimed_founder(founder, demo_item())
    body = client.post("/api/product", json={k: v for k, v in MINE.items() if k != "cost"}).get_json()
    assert body["status"] == "saved" and body["product_id"] == "p00"


def test_a_founder_who_only_holds_a_product_makes_a_product_of_their_own(founder):
    load(demo_item())
    client = founder()
    assert find(client).get_json()["product_id"] == "p00"
    refusal(client.get("/api/product"), 409, "claim_required")
    own_id = make_own(client, create=True)["product_id"]
    assert client.get("/api/product").get_json()["product_id"] == own_id


def test_create_needs_the_same_fields_and_makes_nothing_when_one_is_missing(founder):
    client = claimed_founder(founder, demo_item())
    body = refusal(client.post("/api/product", json={"create": True, "name": "Only a name"}), 400,
                   "invalid_description")
    assert "needs a name, a description and a price" in body["explanation"]
    refusal(client.post("/api/product", json={**MINE, "create": "yes"}), 400, "invalid_request")
    assert Product.select().where(Product.product_id.startswith("own-")).count() == 0
    assert client.get("/api/product").get_json()["product_id"] == "p00"
