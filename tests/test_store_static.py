"""Published store pages served like static files (issue 28, part 4): rendered once per
published version, sent with an ETag and a Cache-Control a CDN may keep, a conditional
request answered 304 without a database query, and a publish never hidden behind an old
ETag. Through the test client, on both backends (and Redis unreachable)."""
from __future__ import annotations

import time

import pytest

from api.storefront import PUBLISHED_CACHE
from integrations.redis_client import get_redis
from models.catalog import Product
from models.session import Session
from models.store import Store
from services.store import published
from tests.conftest import SETTINGS
from tests.factories import built, claimed_founder, refusal, statements


@pytest.fixture
def page(shop):
    """The published home page's address."""
    return f"/store/{Store.get(Store.product == 'p00').slug}/"


def no_cookie(answer) -> None:
    assert not answer.headers.getlist("Set-Cookie"), answer.headers


def test_a_published_page_carries_a_stable_strong_etag_and_a_cache_control_a_cdn_may_keep(app, page):
    sessions = Session.select().count()
    first, again = app.test_client().get(page), app.test_client().get(page)
    assert first.status_code == again.status_code == 200
    tag = first.headers["ETag"]
    assert tag.startswith('"') and tag.endswith('"') and len(tag) > 10  # strong: no W/
    assert again.headers["ETag"] == tag and again.get_data() == first.get_data()
    assert first.headers["Cache-Control"] == PUBLISHED_CACHE
    assert "public" in PUBLISHED_CACHE and "s-maxage" in PUBLISHED_CACHE and "must-revalidate" in PUBLISHED_CACHE
    for header in ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"):
        assert header in first.headers, header
    assert "script-src 'self'" in first.headers["Content-Security-Policy"]
    no_cookie(first)
    assert Session.select().count() == sessions  # the page neither reads nor writes a session


def test_each_page_sitemap_and_robots_have_their_own_etag(app, page):
    visitor = app.test_client()
    tags = {}
    for name in ("", "product", "faq", "sitemap.xml", "robots.txt"):
        answer = visitor.get(page + name)
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == PUBLISHED_CACHE, name
        tags[name] = answer.headers["ETag"]
    assert len(set(tags.values())) == len(tags)
    assert visitor.get(page + "sitemap.xml").mimetype == "application/xml"


def test_if_none_match_answers_304_with_no_body_no_cookie_and_no_query(app, page):
    visitor = app.test_client()
    tag = visitor.get(page).headers["ETag"]
    visitor.get(page)  # the pointer is known and the page rendered: nothing is read from here on
    with statements() as seen:
        answer = visitor.get(page, headers={"If-None-Match": tag})
        again = visitor.get(page)
    assert answer.status_code == 304 and answer.get_data() == b""
    assert answer.headers["ETag"] == tag and answer.headers["Cache-Control"] == PUBLISHED_CACHE
    assert "Content-Security-Policy" in answer.headers
    no_cookie(answer)
    assert again.status_code == 200 and again.headers["ETag"] == tag
    assert seen == []
    # Weak comparison, a list, and `*` all match; another tag does not.
    assert visitor.get(page, headers={"If-None-Match": f'"other", W/{tag}'}).status_code == 304
    assert visitor.get(page, headers={"If-None-Match": "*"}).status_code == 304
    assert visitor.get(page, headers={"If-None-Match": '"other"'}).status_code == 200


def test_head_answers_the_same_headers_and_304s_too(app, page):
    visitor = app.test_client()
    got = visitor.get(page)
    head = visitor.head(page)
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["ETag"] == got.headers["ETag"] and head.headers["Cache-Control"] == PUBLISHED_CACHE
    assert visitor.head(page, headers={"If-None-Match": got.headers["ETag"]}).status_code == 304
    no_cookie(head)


def test_after_a_new_publish_the_old_etag_gets_the_new_page(app, page, shop, run_jobs):
    visitor = app.test_client()
    old = visitor.get(page + "product")
    assert "wall anchors" not in old.get_data(as_text=True)
    Product.update(description="A solid acacia bar with magnets, now with wall anchors.").where(
        Product.product_id == "p00").execute()
    built(shop, run_jobs)
    assert shop.post("/api/store/publish").get_json()["status"] == "published"
    answer = visitor.get(page + "product", headers={"If-None-Match": old.headers["ETag"]})
    assert answer.status_code == 200 and answer.headers["ETag"] != old.headers["ETag"]
    assert "wall anchors" in answer.get_data(as_text=True)
    assert visitor.get(page + "product", headers={"If-None-Match": answer.headers["ETag"]}).status_code == 304


def test_publishing_the_same_version_again_gives_new_etags(app, page, shop):
    visitor = app.test_client()
    old = visitor.get(page).headers["ETag"]
    assert shop.post("/api/store/publish").get_json()["status"] == "published"
    assert visitor.get(page, headers={"If-None-Match": old}).status_code == 200


def test_with_redis_unreachable_the_page_is_read_from_the_database(app, page, shop, run_jobs, settings_with):
    visitor = app.test_client()
    old = visitor.get(page + "product").headers["ETag"]
    Product.update(description="A solid acacia bar with magnets, now with wall anchors.").where(
        Product.product_id == "p00").execute()
    built(shop, run_jobs)
    assert shop.post("/api/store/publish").get_json()["status"] == "published"
    settings_with(redis_url="redis://127.0.0.1:1/0")  # nothing listens there
    with statements() as seen:
        answer = visitor.get(page + "product", headers={"If-None-Match": old})
    assert answer.status_code == 200 and "wall anchors" in answer.get_data(as_text=True)
    assert answer.headers["ETag"] != old and seen  # the store row was read
    assert visitor.get(page + "product", headers={"If-None-Match": answer.headers["ETag"]}).status_code == 304


def test_the_preview_is_never_cached_and_has_no_etag(page, shop):
    preview = shop.get(page + "preview/")
    assert preview.status_code == 200
    assert preview.headers["Cache-Control"] == "private, no-store" and "ETag" not in preview.headers
    assert shop.get(page + "preview/", headers={"If-None-Match": "*"}).status_code == 200


def test_an_unknown_or_unpublished_store_is_still_a_json_404(app, founder, run_jobs):
    refusal(app.test_client().get("/store/no-such-store/"), 404, "not_found")
    refusal(app.test_client().get("/store/no-such-store/", headers={"If-None-Match": "*"}), 404, "not_found")
    owner = claimed_founder(founder)
    state = built(owner, run_jobs)
    unpublished = state["preview_url"].replace("/preview/", "/")
    refusal(app.test_client().get(unpublished), 404, "not_found")
    assert app.test_client().get(unpublished + "nope").status_code == 404


@pytest.mark.servers  # embedded mode keeps the pointers in its one process: there is no other
def test_a_publish_announced_by_another_process_reaches_this_ones_copy(app, page):
    """With Redis each process keeps a copy of the pointers it read, dropped when another
    process (a worker) announces a publish on the channel."""
    visitor = app.test_client()
    old = visitor.get(page).headers["ETag"]
    slug = page.strip("/").rsplit("/", 1)[1]
    store = Store.get(Store.slug == slug)
    # What a worker's announce does, from outside this process: the key, then the message.
    client = get_redis(SETTINGS.redis_url)
    moved = published.Pointer(store.product_id, store.published_version, "2099-01-01 00:00:00")
    client.set(published.KEY_PREFIX + slug, moved.encode())
    client.publish(published.CHANNEL, slug)
    deadline = time.monotonic() + 10  # a bound on the wait, not a measure of it
    while visitor.get(page, headers={"If-None-Match": old}).status_code == 304 and time.monotonic() < deadline:
        time.sleep(0.01)
    answer = visitor.get(page, headers={"If-None-Match": old})
    assert answer.status_code == 200 and answer.headers["ETag"] not in (old, None)


@pytest.mark.servers
def test_a_page_another_process_rendered_is_served_here_without_reading_the_database(app, page):
    """With Redis, each rendered page is shared: a web process that never rendered it (started
    after the publish, on another host, or while the database does not answer) serves the
    same bytes from the shared copy with no query."""
    first = app.test_client().get(page + "faq")
    assert first.status_code == 200
    published._rendered.clear()  # this process as another one: it rendered nothing yet
    with statements() as seen:
        again = app.test_client().get(page + "faq")
    assert again.status_code == 200 and again.get_data() == first.get_data()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert seen == []


def test_a_page_is_compressed_once_per_etag_and_a_new_publish_is_compressed_anew(app, page, shop, run_jobs,
                                                                                  monkeypatch):
    """A published page's compressed bytes are kept under its algorithm and ETag (api/storefront.
    CompressedPages): the second visitor's page is not compressed again, the app's other files
    still are each time, and a new publish (a new ETag) is compressed anew."""
    import brotli
    import flask_compress.flask_compress as compressor

    compressed = []
    real = compressor.brotli.compress
    monkeypatch.setattr(compressor.brotli, "compress", lambda data, **kw: compressed.append(data) or real(data, **kw))
    br = {"Accept-Encoding": "br"}
    first, again = app.test_client().get(page + "product", headers=br), app.test_client().get(page + "product",
                                                                                           headers=br)
    assert first.headers["Content-Encoding"] == again.headers["Content-Encoding"] == "br"
    assert first.headers["ETag"] == again.headers["ETag"] == f'"{first.headers["ETag"].strip(chr(34))}"'
    assert again.headers["ETag"].endswith(':br"') and brotli.decompress(again.data) == app.test_client().get(
        page + "product").data
    assert len(compressed) == 1
    gzipped = app.test_client().get(page + "product", headers={"Accept-Encoding": "gzip"})
    assert gzipped.headers["Content-Encoding"] == "gzip"  # kept apart from the br copy
    for _ in range(2):
        assert app.test_client().get("/", headers=br).headers["Content-Encoding"] == "br"
    assert len(compressed) == 3  # the app's shell is no published page: compressed on each answer

    Product.update(description="A solid acacia bar with magnets, now with wall anchors.").where(
        Product.product_id == "p00").execute()
    built(shop, run_jobs)
    assert shop.post("/api/store/publish").get_json()["status"] == "published"
    fresh = app.test_client().get(page + "product", headers=br)
    assert fresh.headers["ETag"] != first.headers["ETag"]
    assert "wall anchors" in brotli.decompress(fresh.data).decode()
