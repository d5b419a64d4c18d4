"""Images within the caps cost little (issue 19, point 4), through POST /api/product: every
upload's header is read before any pixel is decoded; an image over its own caps (pixels, the
memory cleaning it would hold) is refused by its position with `invalid_images`, a request
whose new images would take too long together with `images_too_large`, and nothing is
stored; what is taken is decoded at a reduced scale where a JPEG allows it, scaled to the
served size, re-encoded and stripped. Uploads that nothing names any more are pruned by the
hourly clock, and never one a save is keeping."""
from __future__ import annotations

import io
import threading
import time

import pytest
from PIL import Image, ImageFile

from integrations.locks import InProcessLocks
from models.clock import clock
from models.own_product import FounderImage, FounderProduct
from models.store import StoreVersion
from services import images, own_product
from tests.conftest import SETTINGS
from tests.factories import (
    MEDIA,
    built,
    claimed_founder,
    data_url,
    jpeg_with_gps,
    png_bytes,
    png_declaring,
    product_of,
    refusal,
    saved,
    unchanged_after,
)
from tests.factories import save_product as save
from workers.clock import Scheduler, schedule


def encoded(image: Image.Image, kind: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


def flat(size, mode="RGB", color=(200, 60, 40)) -> Image.Image:
    return Image.new(mode, size, color if mode != "RGBA" else (*color, 128))


MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


def upload(raw: bytes) -> str:
    kind = images.read_header(raw).kind
    return data_url(raw, MIME[kind])


class Decodes:
    """Counts what Pillow is asked to open or decode while a request runs."""

    def __init__(self, monkeypatch):
        self.opened = self.loaded = 0
        real_open, real_load = Image.open, ImageFile.ImageFile.load

        def counting_open(*args, **kwargs):
            self.opened += 1
            return real_open(*args, **kwargs)

        def counting_load(image):
            self.loaded += 1
            return real_load(image)

        monkeypatch.setattr(Image, "open", counting_open)
        monkeypatch.setattr(ImageFile.ImageFile, "load", counting_load)


# --- One image over its own caps --------------------------------------------------------------------

def over_its_memory(kind: str, size, **options) -> bytes:
    mode = "RGBA" if options.pop("alpha", False) else "RGB"
    raw = encoded(flat(size, mode), kind, **options)
    header = images.read_header(raw)
    assert header.pixels <= images.MAX_PIXELS and header.memory > images.MAX_DECODE_BYTES
    return raw


@pytest.mark.parametrize("kind", ["over 25 megapixels", "png over its memory", "webp over its memory",
                                  "webp with transparency over its memory", "progressive jpeg over its memory",
                                  "the old attack: a 5000 x 5000 png of a few KB", "a png declaring 20000 x 20000"])
def test_an_image_over_its_own_caps_is_refused_by_position_before_anything_is_decoded(founder, monkeypatch, kind):
    oversize = {
        "over 25 megapixels": lambda: png_declaring(6000, 4200),
        "png over its memory": lambda: over_its_memory("PNG", (3000, 3000)),
        "webp over its memory": lambda: over_its_memory("WEBP", (2000, 2000)),
        "webp with transparency over its memory": lambda: over_its_memory("WEBP", (1400, 1400), alpha=True),
        "progressive jpeg over its memory": lambda: over_its_memory("JPEG", (3000, 3000), progressive=True,
                                                                    subsampling=0),
        "the old attack: a 5000 x 5000 png of a few KB": lambda: encoded(Image.new("L", (5000, 5000)), "PNG"),
        "a png declaring 20000 x 20000": lambda: png_declaring(20000, 20000),
    }[kind]()
    client = claimed_founder(founder)
    decodes = Decodes(monkeypatch)
    body = unchanged_after(client, lambda: save(client, images=[data_url(png_bytes()), upload(oversize),
                                                                 data_url(png_bytes())]), 400, "invalid_images")
    assert body["explanation"].startswith("Image 2 cannot be used: ")
    assert "megapixels" in body["explanation"] or "MB to decode" in body["explanation"]
    assert (decodes.opened, decodes.loaded) == (0, 0)  # refused by its header alone, even image 1 waits
    assert FounderImage.select().count() == 0


def test_the_memory_refusal_says_how_large_the_image_may_be(founder):
    client = claimed_founder(founder)
    body = unchanged_after(client, lambda: save(client, images=[upload(encoded(flat((3000, 2000)), "WEBP"))]), 400,
                           "invalid_images")
    assert "a 3000 x 2000 WebP takes about" in body["explanation"]
    suggested = body["explanation"].split("scale it down to about ")[1].split(" ")
    width, height = int(suggested[0]), int(suggested[2])
    assert abs(width / height - 1.5) < 0.01
    saved(client, images=[upload(encoded(flat((width, height)), "WEBP"))])  # that size is taken


# --- The request's time, estimated from the headers -------------------------------------------------

def just_over_an_eighth() -> bytes:
    """A flat PNG eight of which are estimated to take a little longer than one save may."""
    side = 400
    while images.Header("PNG", side, side).work_ms * 8 <= images.MAX_REQUEST_MS:
        side += 8
    raw = encoded(flat((side, side)), "PNG")
    assert images.header_of(raw).work_ms * 7 <= images.MAX_REQUEST_MS < images.header_of(raw).work_ms * 8
    return raw


def test_new_images_that_would_take_too_long_together_are_413_before_any_is_decoded(founder, monkeypatch):
    client = claimed_founder(founder)
    eight = [upload(just_over_an_eighth())] * 8
    decodes = Decodes(monkeypatch)
    body = unchanged_after(client, lambda: save(client, images=eight), 413, "images_too_large")
    assert "Image 8 takes it past that" in body["explanation"] and "smaller groups" in body["explanation"]
    assert (decodes.opened, decodes.loaded) == (0, 0)
    assert FounderImage.select().count() == 0
    # Saved in two groups, the second keeping the first by their URLs, they are all taken:
    # images kept from earlier saves are not prepared again and count for nothing.
    first = saved(client, images=eight[:4])["product"]["images"]
    assert len(saved(client, images=first + eight[4:])["product"]["images"]) == 8
    assert FounderImage.select().count() == 8


def test_phone_photos_are_taken_up_to_the_saves_total_and_the_rest_in_another_save(founder):
    client = claimed_founder(founder)
    phone = encoded(Image.effect_noise((4032, 3024), 6).convert("RGB"), "JPEG", quality=90)  # noisy: ~3.3 MB
    assert 2_500_000 < len(phone) <= 4_000_000
    assert images.header_of(phone).work_ms * 8 <= images.MAX_REQUEST_MS
    fits = own_product.MAX_REQUEST_UPLOAD_BYTES // len(phone)
    assert fits >= 4
    # More than the total of one save is refused before anything is decoded, and names the way on.
    filler = b"\x89PNG" + b"0" * (own_product.MAX_REQUEST_UPLOAD_BYTES - fits * len(phone) + 1000)
    body = refusal(client.post("/api/product", json={"images": [upload(phone)] * fits + [data_url(filler)]}), 413,
                   "images_too_large")
    assert "smaller groups" in body["explanation"]
    first = saved(client, images=[upload(phone)] * fits)["product"]["images"]
    # Kept photos count for nothing: the rest go in a second save.
    assert len(saved(client, images=first + [upload(phone)] * (8 - fits))["product"]["images"]) == 8


# --- What is taken: decoded cheaply, scaled, re-encoded ---------------------------------------------

def served(client, url) -> Image.Image:
    response = client.get(url)
    assert response.status_code == 200 and response.headers["X-Content-Type-Options"] == "nosniff"
    return Image.open(io.BytesIO(response.data))


def test_a_phone_photo_is_decoded_at_half_scale_turned_upright_and_stripped(founder):
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees to show upright
    exif[0x010F] = "SpyCam"
    photo = encoded(flat((4032, 3024)), "JPEG", quality=90, exif=exif.tobytes())
    client = claimed_founder(founder)
    [url] = saved(client, images=[upload(photo)])["product"]["images"]
    image = served(client, url)
    # Decoded at 2016 x 1512 (1/2 scale), which fits the served 2048 as it is: a full decode
    # scaled to fit would have been 2048 x 1536.
    assert (image.format, image.size) == ("JPEG", (1512, 2016))
    assert dict(image.getexif()) == {} and "exif" not in image.info
    assert abs(image.getpixel((700, 1000))[0] - 200) <= 3


@pytest.mark.parametrize("kind", ["png", "png with transparency", "png with a transparent colour",
                                  "16-bit grey png", "webp"])
def test_larger_images_are_scaled_to_fit_2048_keeping_proportions_colour_and_transparency(founder, kind):
    palette = flat((2600, 520)).convert("P", palette=Image.Palette.ADAPTIVE)  # one colour, made transparent
    raw, size, pixel = {
        "png": (encoded(flat((2600, 1300)), "PNG"), (2048, 1024), (200, 60, 40)),
        "png with transparency": (encoded(flat((2600, 520), "RGBA"), "PNG"), (2048, 410), (200, 60, 40, 128)),
        "png with a transparent colour": (encoded(palette, "PNG", transparency=palette.getpixel((0, 0))),
                                          (2048, 410), (200, 60, 40, 0)),
        "16-bit grey png": (encoded(Image.new("I;16", (2600, 1300), 30000), "PNG"), (2048, 1024), (116,)),  # not white
        "webp": (encoded(flat((1700, 1000)), "WEBP", lossless=True), (1700, 1000), (200, 60, 40)),  # within 2048
    }[kind]
    client = claimed_founder(founder)
    [url] = saved(client, images=[upload(raw)])["product"]["images"]
    image = served(client, url)
    assert (image.format, image.size, len(image.getbands())) == (images.read_header(raw).kind, size, len(pixel))
    found = image.getpixel((10, 10))
    found = found if isinstance(found, tuple) else (found,)
    if len(pixel) == 4:
        assert found[3] == pixel[3]  # the alpha, exactly
    if pixel[-1] != 0:  # a fully transparent pixel's colour is anything
        tolerance = 8 if kind == "webp" else 2  # lossy WebP moves a colour a little; PNG scaling rounds
        assert all(abs(a - b) <= tolerance for a, b in zip(found[:3], pixel[:3], strict=True)), found


def test_progressive_grey_and_cmyk_jpegs_within_their_caps_are_taken(founder):
    client = claimed_founder(founder)
    progressive = encoded(Image.effect_noise((1200, 900), 30).convert("RGB"), "JPEG", quality=85, progressive=True)
    grey = encoded(flat((640, 480), "L", 90), "JPEG")
    cmyk = encoded(Image.new("CMYK", (300, 200), (0, 200, 200, 0)), "JPEG")
    assert images.read_header(progressive).progressive and images.read_header(cmyk).components == 4
    urls = saved(client, images=[upload(raw) for raw in (progressive, grey, cmyk)])["product"]["images"]
    assert [(i.format, i.mode, i.size) for i in (served(client, url) for url in urls)] == [
        ("JPEG", "RGB", (1200, 900)), ("JPEG", "L", (640, 480)), ("JPEG", "RGB", (300, 200))]


def test_a_png_without_its_header_or_a_jpeg_cut_before_its_frame_is_refused(founder):
    png = encoded(flat((64, 48)), "PNG")
    client = claimed_founder(founder)
    for bad in (png[:12] + b"IHDX" + png[16:], jpeg_with_gps()[:300]):
        body = unchanged_after(client, lambda bad=bad: save(client, images=[data_url(bad)]), 400, "invalid_images")
        assert body["explanation"].startswith("Image 1 cannot be used")


# --- Pruning uploads nothing names ------------------------------------------------------------------

def prune_from_the_clock(broker, run_jobs) -> None:
    """The clock's hourly entry fires, and a worker runs the job it sent."""
    [entry] = [e for e in schedule(SETTINGS) if e.name == "prune_images"]
    assert Scheduler(broker, [entry], InProcessLocks()).tick(clock.time()) == ["prune_images"]
    run_jobs()


def gone(client, url) -> bool:
    response = client.get(url)
    if response.status_code == 404:
        assert response.get_json()["reason"] == "not_found"
        return True
    assert response.status_code == 200
    return False


def test_a_replaced_upload_is_pruned_by_the_clock_a_day_after_the_last_save(founder, broker, run_jobs):
    client = claimed_founder(founder)
    [old] = saved(client, images=[data_url(png_bytes(color=(1, 2, 3)))])["product"]["images"]
    [new] = saved(client, images=[data_url(png_bytes(color=(4, 5, 6)))])["product"]["images"]
    clock.advance(hours=23)
    prune_from_the_clock(broker, run_jobs)
    assert not gone(client, old)  # within a day of the last save, it may still be put back
    clock.advance(hours=2)
    prune_from_the_clock(broker, run_jobs)
    assert gone(client, old) and not gone(client, new)
    assert product_of(client)["product"]["images"] == [new]
    assert own_product.prune_unused_images() == 0  # again: nothing left to do
    assert [image.id for image in FounderImage.select()] == [new[len("/media/"):].split(".")[0]]


def test_an_old_upload_put_back_by_a_recent_save_is_kept(founder):
    client = claimed_founder(founder)
    [first] = saved(client, images=[data_url(png_bytes())])["product"]["images"]
    clock.advance(days=3)
    saved(client, images=[first])  # three days old, named again
    clock.advance(days=3)
    [second] = saved(client, images=[data_url(png_bytes(color=(9, 9, 9)))])["product"]["images"]
    assert own_product.prune_unused_images() == 0  # the last save was just now
    clock.advance(days=1, minutes=1)
    assert own_product.prune_unused_images() == 1
    assert gone(client, first) and not gone(client, second)


def test_an_upload_any_store_version_names_is_never_pruned(founder, run_jobs):
    client = claimed_founder(founder)
    [unused] = saved(client, images=[data_url(png_bytes(color=(1, 1, 1)))])["product"]["images"]
    [built_with] = saved(client, images=[data_url(png_bytes(color=(2, 2, 2)))])["product"]["images"]
    built(client, run_jobs)  # version 1 names `built_with`, uploaded before any version
    [shown] = saved(client, images=[data_url(png_bytes(color=(3, 3, 3)))])["product"]["images"]  # version 2
    [current] = saved(client, images=[data_url(png_bytes(color=(4, 4, 4)))])["product"]["images"]  # version 3
    documents = [row.document["product"]["images"] for row in StoreVersion.select().order_by(StoreVersion.number)]
    assert documents == [[built_with], [shown], [current]]
    clock.advance(days=30)
    assert own_product.prune_unused_images() == 1  # the one uploaded and replaced before the build
    assert gone(client, unused)
    assert not any(gone(client, url) for url in (built_with, shown, current))
    assert own_product.prune_unused_images() == 0


def test_an_upload_nobody_named_is_pruned_but_another_founders_are_not_touched(founder):
    mine = claimed_founder(founder)
    [url] = saved(mine, images=[data_url(png_bytes())])["product"]["images"]
    saved(mine, images=None)  # back to the catalog's photos: the upload is named by nothing
    assert FounderProduct.get().images is None
    clock.advance(days=2)
    assert own_product.prune_unused_images() == 1 and gone(mine, url)
    body = unchanged_after(mine, lambda: save(mine, images=[url]), 400, "invalid_images")
    assert "Image 1 is neither" in body["explanation"]


# --- A save keeping an upload while the prune runs -------------------------------------------------

def old_and_unnamed(client) -> tuple[str, str]:
    """An upload replaced two days ago (prunable), and the one that replaced it."""
    [old] = saved(client, images=[data_url(png_bytes(color=(1, 1, 1)))])["product"]["images"]
    [new] = saved(client, images=[data_url(png_bytes(color=(2, 2, 2)))])["product"]["images"]
    clock.advance(days=2)
    return old, new


def in_background(target):
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=target()), daemon=True)
    thread.start()
    return thread, result


def test_a_save_that_keeps_an_upload_first_makes_the_prune_leave_it(founder, monkeypatch):
    client = claimed_founder(founder)
    old, new = old_and_unnamed(client)
    holding, release = threading.Event(), threading.Event()
    keep = own_product._keep_earlier_uploads

    def keep_then_wait(kept):
        keep(kept)  # the share lock on the kept upload is held from here to the commit
        holding.set()
        release.wait(10)

    monkeypatch.setattr(own_product, "_keep_earlier_uploads", keep_then_wait)
    saving, saved_answer = in_background(lambda: save(client, images=[old, new]))
    assert holding.wait(10)
    pruning, pruned = in_background(own_product.prune_unused_images)
    time.sleep(0.5)  # PostgreSQL: the prune skips the locked upload; SQLite: it waits for the save
    release.set()
    saving.join(20)
    pruning.join(20)
    assert saved_answer["value"].status_code == 200
    assert pruned["value"] == 0
    assert product_of(client)["product"]["images"] == [old, new]
    assert not gone(client, old)


def test_a_save_that_keeps_an_upload_the_prune_is_deleting_saves_nothing(founder, monkeypatch):
    client = claimed_founder(founder)
    old, new = old_and_unnamed(client)
    deleting, release = threading.Event(), threading.Event()
    delete = FounderImage.delete

    def wait_then_delete(*args, **kwargs):
        deleting.set()  # the prune has its candidates (locked on PostgreSQL, the write lock on SQLite)
        release.wait(10)
        return delete(*args, **kwargs)

    checked = threading.Event()
    image_of = own_product.own_details.image_of

    def image_of_then_tell(*args):
        found = image_of(*args)
        checked.set()
        return found

    monkeypatch.setattr(FounderImage, "delete", wait_then_delete)
    monkeypatch.setattr(own_product.own_details, "image_of", image_of_then_tell)
    pruning, pruned = in_background(own_product.prune_unused_images)
    assert deleting.wait(10)
    saving, answer = in_background(lambda: save(client, images=[old, new]))
    assert checked.wait(10)  # the save saw the upload, before its transaction ...
    time.sleep(0.3)  # ... which now waits for the prune's locks (or finds the upload gone: the same)
    release.set()
    pruning.join(20)
    saving.join(20)
    assert pruned["value"] == 1
    body = answer["value"].get_json()
    assert (answer["value"].status_code, body["reason"]) == (400, "invalid_images")
    assert body["explanation"].startswith("Image 1 was removed in the meantime")
    assert product_of(client)["product"]["images"] == [new]
    assert gone(client, old) and not gone(client, new)


def test_every_kept_url_still_names_an_upload_after_saves_race_the_prune(founder):
    """Whatever the interleaving, a saved product never names an upload that is gone."""
    client = claimed_founder(founder)
    for _ in range(5):
        old, new = old_and_unnamed(client)
        saving, answer = in_background(lambda new=new, old=old: save(client, images=[new, old]))
        pruning, _ = in_background(own_product.prune_unused_images)
        saving.join(20)
        pruning.join(20)
        assert answer["value"].status_code in (200, 400)
        named = product_of(client)["product"]["images"]
        for url in named:
            assert MEDIA.match(url) and not gone(client, url)
