"""The published store pages, served at the speed of static files.

A public page is a pure function of the published version's document and the request's
context (services/store/render.py), so it is rendered once per published version and page
in each web process and kept in memory (`rendered`), and shared with the other processes in
Redis (when REDIS_URL is set): a page one process rendered, the others serve without a query. What a request needs to find it is
the store's publication: (product id, published version, published_at, on sale), its `Pointer`.

Pointers are kept where every process reads them without a query: in Redis (one key per
slug) when REDIS_URL is set, else in this process (embedded mode runs one web process that
also runs the jobs). With Redis, each process also keeps a copy of the pointers it read
(`_Mirror`), trusted only while it is subscribed to the channel every publish announces
on, so a page it already rendered costs no round trip at all. Publishing moves the pointer after its transaction commits
(`announce`); a request that finds none reads the store row and leaves it for the next ones
(`current`), only where none is yet, so a reader that read the row before a publish
committed can never put back the version that publish replaced. A Redis key also expires
after POINTER_SECONDS: a publish whose announce could not reach Redis is served at the
latest that long after. When Redis does not answer, the row is read instead: slower,
never another version.

The ETag is a hash of the publication and of everything else the bytes depend on (the
page, base path, origin, whether payments are on, the CSP it is sent with, the build), so
every process computes the same one for the same bytes without rendering them, and a
conditional request is answered 304 from the pointer alone. published_at is in it, so
publishing again (even the same version number) gives new ETags.
"""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import NamedTuple

from redis.exceptions import RedisError

from config import get_settings
from integrations.redis_client import get_redis
from models.launch import ProductLaunch
from models.store import Store, StoreVersion
from services.errors import Refused

log = logging.getLogger("store")

KEY_PREFIX = "store:published:"
CHANNEL = "store:published"  # each announce publishes the slug it moved
RESUBSCRIBE_SECONDS = 1.0
POINTER_SECONDS = 300  # the longest a publish whose announce failed waits to be served
RENDERED_PAGES = 512  # pages kept per process (about 10 KB each)
# Every process's rendered pages are shared in Redis too, so a page any process rendered is
# served by all of them without reading the database (a web process started after the
# publish, another host, and every one while the database does not answer). A copy is kept
# for this long after it was rendered; asked for after that, it is rendered again.
PAGE_KEY_PREFIX = "store:page:"
SHARED_PAGE_SECONDS = 24 * 3600
SHARING_PAUSE_SECONDS = 5.0  # after Redis did not answer, how long pages are not shared there
_sharing = {"paused_until": 0.0}


class Pointer(NamedTuple):
    """A store's current publication, and whether its product is on sale (its launch state:
    a retired product's buy box says it is no longer sold)."""
    product_id: str
    version: int
    published_at: str
    on_sale: bool = True

    def encode(self) -> str:
        return json.dumps(list(self), separators=(",", ":"))

    @classmethod
    def decode(cls, text) -> Pointer | None:
        try:
            product_id, version, published_at, on_sale = json.loads(text)
            return cls(str(product_id), int(version), str(published_at), on_sale is True)
        except (TypeError, ValueError):
            return None  # also one written before it said whether the product is on sale


_local: dict[str, Pointer] = {}  # embedded mode's pointers
_rendered: OrderedDict[str, bytes] = OrderedDict()
_lock = threading.Lock()


class _Mirror:
    """This process's copy of the Redis pointers it has read, trusted only while it is
    subscribed to CHANNEL, on which every announce names the slug it moved: a message drops
    that slug's copy, and a lost subscription drops them all (until subscribed again,
    every request asks Redis). A copy is also dropped after POINTER_SECONDS, as the key is.

    A reader keeps what it read only if no message came between its read and its keeping
    (`generation`); a message that comes after the keeping drops it. So a copy is never
    older than the last announce this process has heard of."""

    def __init__(self):
        self.pointers: dict[str, tuple[Pointer, float]] = {}
        self.generation = 0
        self.trusted = False
        self.thread: threading.Thread | None = None

    def get(self, slug: str) -> Pointer | None:
        found = self.pointers.get(slug)
        if found is None or found[1] < time.monotonic():
            return None
        return found[0]

    def keep(self, slug: str, pointer: Pointer, generation: int) -> None:
        with _lock:
            if self.trusted and generation == self.generation:
                self.pointers[slug] = (pointer, time.monotonic() + POINTER_SECONDS)

    def drop(self, slug: str | None) -> None:
        """Drops one slug's copy (None: all of them)."""
        with _lock:
            self.generation += 1
            if slug is None:
                self.pointers.clear()
            else:
                self.pointers.pop(slug, None)

    def listen(self, url: str) -> None:
        with _lock:
            if self.thread is not None and self.thread.is_alive():
                return
            self.thread = threading.Thread(target=self._run, args=(url,), name="published-pointers", daemon=True)
            self.thread.start()

    def _run(self, url: str) -> None:
        while get_settings().redis_url == url:  # settings replaced (tests): the next request starts another
            try:
                channel = get_redis(url).pubsub()
                channel.subscribe(CHANNEL)
                while True:
                    message = channel.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message["type"] == "subscribe":
                        self.drop(None)  # whatever was announced before is not known here
                        with _lock:
                            self.trusted = True
                    elif message["type"] == "message":
                        self.drop(message["data"].decode())
            except Exception as exc:  # noqa: BLE001 - whatever broke it, the copies are no longer known to be current
                if self.trusted:
                    log.warning("published pointers: subscription lost, Redis is asked on each request",
                                extra={"fields": {"error": type(exc).__name__}})
            with _lock:
                self.trusted = False
            self.drop(None)
            time.sleep(RESUBSCRIBE_SECONDS)


_mirror = _Mirror()


def _redis():
    url = get_settings().redis_url
    return get_redis(url) if url else None


def _key(slug: str) -> str:
    return KEY_PREFIX + slug


def _from_row(slug: str) -> Pointer | None:
    row = (Store.select(Store.product, Store.published_version, Store.published_at)
           .where(Store.slug == slug).first())
    if row is None or row.published_version is None:
        return None
    return Pointer(row.product_id, row.published_version, str(row.published_at), ProductLaunch.on_sale(row.product_id))


def current(slug: str) -> Pointer | None:
    """The store's publication (None: no such store, or not published). No query and no
    Redis round trip when the pointer is known here; an unknown or unpublished slug is read
    from the database each time."""
    url = get_settings().redis_url
    if not url:
        found = _local.get(slug)
        if found is not None:
            return found
        pointer = _from_row(slug)
        if pointer is not None:
            with _lock:
                pointer = _local.setdefault(slug, pointer)  # a publish meanwhile has the last word
        return pointer
    found = _mirror.get(slug)
    if found is not None:
        return found
    _mirror.listen(url)
    generation = _mirror.generation
    client = get_redis(url)
    try:
        found = Pointer.decode(client.get(_key(slug)))
    except RedisError:
        log.warning("published pointer unreadable: the store row is read", extra={"fields": {"slug": slug}})
        _pause_sharing()
        return _from_row(slug)
    if found is not None:
        _mirror.keep(slug, found, generation)
        return found
    pointer = _from_row(slug)
    if pointer is not None:
        try:
            client.set(_key(slug), pointer.encode(), nx=True, ex=POINTER_SECONDS)
        except RedisError:
            pass  # the next request reads the row again
    return pointer


def announce(product_id: str) -> None:
    """Moves the store's pointer to its publication as committed (call after the commit; a
    change of the product's launch state that takes it off sale calls it too), and tells
    every process to forget its copy."""
    row = Store.get_or_none(Store.product == product_id)
    if row is None:
        return
    pointer = _from_row(row.slug)
    client = _redis()
    if client is None:
        with _lock:
            if pointer is None:
                _local.pop(row.slug, None)
            else:
                _local[row.slug] = pointer
        return
    try:
        if pointer is None:
            client.delete(_key(row.slug))
        else:
            client.set(_key(row.slug), pointer.encode(), ex=POINTER_SECONDS)
        # This process at once (its own web threads, when a worker runs in it), the others
        # when their subscriber reads the message; after the write, so no reader here keeps
        # the old pointer it read before it.
        _mirror.drop(row.slug)
        client.publish(CHANNEL, row.slug)
    except RedisError:
        log.error("published pointer not moved: the old version is served until it expires",
                  extra={"fields": {"product_id": product_id, "seconds": POINTER_SECONDS}})


def forget_all() -> None:
    """Drops every pointer and rendered page (the database they came from was emptied)."""
    _mirror.drop(None)
    with _lock:
        _local.clear()
        _rendered.clear()
    _sharing["paused_until"] = 0.0
    client = _redis()
    if client is not None:
        for prefix in (KEY_PREFIX, PAGE_KEY_PREFIX):
            keys = list(client.scan_iter(match=prefix + "*", count=500))
            if keys:
                client.delete(*keys)


def _keep(key: str, body: bytes) -> None:
    with _lock:
        _rendered[key] = body
        while len(_rendered) > RENDERED_PAGES:
            _rendered.popitem(last=False)


def etag(pointer: Pointer, *context: str) -> str:
    """The strong ETag (quoted) of a page of this publication in this context."""
    text = "\x1f".join([pointer.encode(), get_settings().build, *context])
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


def rendered(pointer: Pointer, tag: str, render: Callable[[dict], str]) -> bytes:
    """The page whose ETag is `tag`: from memory, else from the copy another process shared
    in Redis, else rendered from the publication's document (one query) and shared; kept
    in memory either way. Refused(`not_found`) if the version is gone."""
    body = _rendered.get(tag)
    if body is not None:
        return body
    body = _shared_page(tag)
    if body is None:
        row = (StoreVersion.select(StoreVersion.document)
               .where(StoreVersion.store == pointer.product_id, StoreVersion.number == pointer.version).first())
        if row is None:
            raise Refused("not_found")
        body = render(row.document).encode()
        _share_page(tag, body)
    _keep(tag, body)
    return body


def _page_key(tag: str) -> str:
    return f"{PAGE_KEY_PREFIX}{tag.strip(chr(34))}"


def _shared_page(tag: str) -> bytes | None:
    """The page another process rendered (None without Redis, or when it does not answer:
    the document is read instead). An ETag names its bytes for good, so a copy is never stale."""
    client = _redis()
    if client is None or _sharing_paused():
        return None
    try:
        return client.get(_page_key(tag))
    except RedisError:
        _pause_sharing()
        return None


def _share_page(tag: str, body: bytes) -> None:
    client = _redis()
    if client is None or _sharing_paused():
        return
    try:
        client.set(_page_key(tag), body, ex=SHARED_PAGE_SECONDS)
    except RedisError:
        _pause_sharing()  # the next process renders it too


def _sharing_paused() -> bool:
    return time.monotonic() < _sharing["paused_until"]


def _pause_sharing() -> None:
    """Redis did not answer: pages are neither looked up nor shared there for a few seconds,
    or a page read from the database would wait for Redis twice more on its way."""
    _sharing["paused_until"] = time.monotonic() + SHARING_PAUSE_SECONDS
