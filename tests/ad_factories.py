"""Builders for the ad tests (tests/test_ads.py, tests/test_growth_edit.py, tests/test_ad_image.py):
a founder whose store and ad are built, reading the ad, exhausting a meter bucket, and reading
the colours of a PNG."""
from __future__ import annotations

import io

from PIL import Image

from models.account import Account
from services import meter
from services.meter import BUCKETS
from tests.factories import built, claim, demo_item, find, load, session_of
from tests.mailbox import sign_in_here

KNIFE_NAME = "Acacia Wood Magnetic Knife Strip, 16 in"
KNIFE_DESCRIPTION = ("A 16-inch solid acacia bar with embedded neodymium magnets that holds up to eight knives flat "
                     "against the wall. Screws and wall anchors are included, so renters can free up counter space in "
                     "minutes.")
PHOTO_COLOUR = (244, 162, 97)  # the knife strip's demo photo is drawn on #F4A261


def knife_line(pid="p00"):
    return demo_item(pid, name=KNIFE_NAME, description=KNIFE_DESCRIPTION, price=34.99)


def ad_founder(founder, run_jobs, *, email=None, line=None):
    """A founder (signed in to `email` when given) whose claimed product's store is built; the
    build sent the ad job, and run_jobs ran it too."""
    load(line or knife_line())
    client = founder()
    if email:
        sign_in_here(client, run_jobs, email)
    find(client)
    assert claim(client).get_json()["status"] == "claimed"
    built(client, run_jobs)
    return client


def ad_of(client, platform="meta") -> dict:
    response = client.get(f"/api/ad?platform={platform}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def account_of(client) -> Account:
    return Account.get(Account.id == session_of(client).account_id)


def exhaust(client, bucket: str) -> None:
    """Spends the bucket of the client's account down to less than one use (a free account)."""
    account = account_of(client)
    limit_5h, _week = meter.plan_for(account).limits(BUCKETS[bucket])
    used = meter.usage(account.id)
    used = next(f["used_5h"] for f in used["features"] if f["feature"] == bucket)
    for _ in range((limit_5h - used) // BUCKETS[bucket].cost):
        meter.spend(account.id, bucket)


def used(client, bucket: str) -> int:
    body = client.get("/api/usage").get_json()
    return next(f["used_5h"] for f in body["features"] if f["feature"] == bucket)


def colours(png: bytes) -> tuple[tuple[int, int], set]:
    """(size, the set of its RGB colours) of a PNG."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.size, {image.getpixel((x, y)) for x in range(0, image.width, 4) for y in range(0, image.height, 4)}
