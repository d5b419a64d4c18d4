"""The `fix_run` job (services/fix/runs.py starts it): fetch the page and up to
MAX_EXTRA_PAGES same-site pages through the fetcher that cannot be turned inward
(integrations/web), audit them (checks.py), write the repairs (repairs.py, drafts through the
AI seam: drafts.py) and keep the corrected pages. A store built here is read by own_store.py
from the version it names, and its findings are marked with what its document can hold
(store_repairs.py): the run writes nothing into it; its owner applies the repairs, and a fresh
run of the new version (`recheck_of`) measures the score after. Every write is conditional on
the run not being finished, so a second delivery of the job, or a late one, changes nothing."""
from __future__ import annotations

import io
import re

from PIL import Image

from config import get_settings
from integrations.web.fetch import FetchFailed, FetchRefused, fetcher_for
from models.clock import utcnow
from models.db import transaction
from models.fix import FixPage, FixRun
from services.errors import JobFailed
from services.fix import checks, drafts, repairs, store_repairs
from services.fix.own_store import own_status_of, own_store, store_pages
from services.fix.runs import failure_reason
from services.store import versions

MAX_EXTRA_PAGES = 20  # decisions.md: the page and up to 20 same-site pages
MAX_IMAGES_SIZED = 30  # images fetched per run to learn their width and height


def run(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The fix_run job: fetch, audit, repair, keep. Runs twice without harm (a finished run is left)."""
    row = FixRun.get_or_none(FixRun.id == payload.get("run_id"))
    if row is None or row.stage in FixRun.FINISHED:
        return {"skipped": True}
    fetcher = fetcher_for(get_settings())
    probes: dict[str, int | None] = {}

    def status_of(url: str) -> int | None:
        if url not in probes:
            probes[url] = fetcher.status_of(url)
        return probes[url]

    _move(row, FixRun.FETCHING, stage)
    own = own_store(row.url)
    document = None
    if own:
        # A fresh check of an applied repair reads the version the apply wrote, published or not.
        own = {**own, "version": row.audited_version or own["version"]}
        document = versions.document_of(own["product_id"], own["version"])
        status_of = own_status_of(own, status_of)
        _save(row, product=own["product_id"], audited_version=own["version"])
    try:
        pages = store_pages(own, document) if own else _fetched_pages(row.url, fetcher)
    except (FetchRefused, FetchFailed) as failed:
        return _fail(row, failure_reason(failed.reason))
    except JobFailed as failed:
        return _fail(row, failed.reason)

    _move(row, FixRun.AUDITING, stage)
    found = checks.audit(pages, status_of=status_of)
    before = checks.score(found)
    _save(row, pages=[{"url": p.url, "status": p.status, "size": p.size} for p in pages], findings=found,
          score_before=before)

    _move(row, FixRun.REPAIRING, stage)
    sizes = _image_sizer(fetcher)
    writer = drafts.Drafts()
    corrected, repaired = [], []
    for page in pages:
        mine_ = [f for f in found if f["page"] == page.url]
        html, fixed = repairs.repair(page, mine_, drafts=writer, status_of=status_of, image_size=sizes)
        corrected.append(checks.Page(url=page.url, status=page.status, html=html, size=len(html.encode())))
        repaired.extend(fixed)
    if own:
        # No snippet goes into a store built here: its repairs are changes of its document,
        # and the pages that document would render are the corrected pages.
        store_repairs.plan(document, repaired)
        planned, _made = store_repairs.with_changes(document, store_repairs.planned_changes(repaired))
        corrected = store_pages(own, planned)
    after = checks.score(checks.audit(corrected, status_of=status_of))
    with transaction():
        FixPage.delete().where(FixPage.run == row.id).execute()
        for n, page in enumerate(corrected):
            FixPage.create(run=row.id, position=n, url=page.url, html=page.html)
        done = FixRun.update(findings=repaired, score_after=max(after, before), stage=FixRun.DONE,
                             finished_at=utcnow()).where(
            FixRun.id == row.id, FixRun.stage.not_in(FixRun.FINISHED)).execute()
        if done and row.recheck_of is not None:
            # This run checked the version an apply wrote: its measured score is that run's after.
            FixRun.update(score_after=before, after_measured=True).where(FixRun.id == row.recheck_of).execute()
    stage(FixRun.DONE)
    return {"run": row.token, "score_before": before, "score_after": after}


def _move(row: FixRun, to: str, stage) -> None:
    FixRun.update(stage=to).where(FixRun.id == row.id, FixRun.stage.not_in(FixRun.FINISHED)).execute()
    stage(to)


def _save(row: FixRun, **fields) -> None:
    FixRun.update(**fields).where(FixRun.id == row.id).execute()


def _fail(row: FixRun, reason: str) -> dict:
    FixRun.update(stage=FixRun.FAILED, reason=reason, finished_at=utcnow()).where(
        FixRun.id == row.id, FixRun.stage.not_in(FixRun.FINISHED)).execute()
    return {"run": row.token, "failed": reason}


def _fetched_pages(url: str, fetcher) -> list:
    """The page and up to MAX_EXTRA_PAGES same-site pages it links to (a page that cannot be
    read is left out: the audit's link check reports it)."""
    first = _read(fetcher.get(url))
    pages = [first]
    for link in checks.same_site_links(first, limit=MAX_EXTRA_PAGES):
        if link == first.url:
            continue
        try:
            pages.append(_read(fetcher.get(link)))
        except (FetchRefused, FetchFailed, JobFailed):
            continue
        if len(pages) > MAX_EXTRA_PAGES:
            break
    return pages


def _read(response) -> checks.Page:
    if response.status >= 400:
        raise FetchFailed("bad_response", response.url)
    kind = response.headers.get("content-type", "text/html").split(";")[0].strip().lower()
    if kind not in ("text/html", "application/xhtml+xml"):
        raise JobFailed("not_a_web_page")
    charset = re.search(r"charset=([\w-]+)", response.headers.get("content-type", ""), re.IGNORECASE)
    try:
        html = response.body.decode(charset.group(1) if charset else "utf-8", errors="replace")
    except LookupError:
        html = response.body.decode("utf-8", errors="replace")
    return checks.Page(url=response.url, status=response.status, html=html, size=len(response.body))


def _image_sizer(fetcher):
    """image_size(src) for the repair: the image fetched (through the same fetcher) and its
    width and height read by Pillow; None when it cannot be read. At most MAX_IMAGES_SIZED."""
    seen: dict[str, tuple[int, int] | None] = {}

    def image_size(src: str):
        if src in seen:
            return seen[src]
        if len(seen) >= MAX_IMAGES_SIZED:
            return None
        try:
            response = fetcher.get(src)
            with Image.open(io.BytesIO(response.body)) as image:
                seen[src] = image.size if response.status < 400 else None
        except Exception:  # any image that cannot be fetched or read is simply not sized
            seen[src] = None
        return seen[src]

    return image_size
