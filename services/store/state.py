"""What GET and POST /api/store and POST /api/store/publish answer, and the launch facts a
store makes true."""
from __future__ import annotations

from collections import namedtuple

import peewee as pw

from config import get_settings
from models.clock import iso
from models.db import KeptSQL, param, read_row
from models.job import Job
from models.session import Session
from models.store import Store, StoreVersion
from services.discovery import resolve
from services.errors import Refused
from services.jobs import wait_for_job
from services.ownership import owner_of
from services.reasons import sentence
from services.research.launch import launch_fact
from services.store import builds, publish, sections
from services.store.versions import parts_said

BUILDING, PUBLISHING, BUILT, PUBLISHED, FAILED = "building", "publishing", "built", "published", "failed"
PUBLISH_WAIT_SECONDS = 20  # how long POST /api/store/publish waits for its check before answering `publishing`


def answer(product_id: str) -> dict:
    """The store's state: {status, stage, product_id, version, published_version,
    preview_url, public_url (once published), updated_at}, plus `reason`/`explanation`
    when its latest build failed and `last_publish` when its latest publish failed."""
    found = _POLL.run(product_id=product_id, subject=builds.subject(product_id)).fetchone()
    store = None if found is None else PollRow._make(read_row(_POLL_READERS, found))
    if store is None or (store.version == 0 and store.build_id is None):
        raise Refused("not_yet_researched", "Your store has not been started yet. Build it from the Store screen.")
    body = _versions(store, product_id)
    running = _running(store)
    if running is not None:
        status, stage, job_id = running
        return {"status": status, "stage": stage, **body, "job_id": job_id}
    if _build_failed_last(store):
        return {"status": FAILED, "stage": FAILED, **body, "reason": "generation_failed",
                "explanation": _failure(store.build_error)}
    status = PUBLISHED if store.published_version is not None and store.published_version == _draft(store) else BUILT
    state = {"status": status, "stage": status, **body}
    last_publish = _failed_publish(store)
    if last_publish is not None:
        state["last_publish"] = last_publish
    return state


LEADS_SAID = [{"section": name, "said": sections.said(name)} for name in sections.LEADS]


def _draft(store) -> int:
    return store.draft_version or store.version  # Store.draft


def _versions(store, product_id: str) -> dict:
    """What every state answers: the store's versions, its addresses and the sentences left out of its draft."""
    base, draft = f"/store/{store.slug}", _draft(store)
    return {"product_id": product_id, "version": store.version, "draft_version": draft if store.version else None,
            "published_version": store.published_version,
            "preview_url": f"{base}/preview/" if store.version else None,
            "public_url": f"{base}/" if store.published_version else None,
            "updated_at": iso(store.updated_at),
            # What the home page can lead with, as the editor's screen names them.
            "leads": LEADS_SAID,
            # The sentences written for the draft that the product record could not back: left
            # out of the store, and reported here (reason `unbacked_claim`); `yours` when the
            # founder wrote it and a rebuild could not keep it.
            "unbacked": [{"reason": "unbacked_claim", "field": d.get("field"), "sentence": d.get("sentence"),
                          "why": d.get("why"), "yours": bool(d.get("yours"))}
                         for d in ((store.dropped or []) if store.version else [])],
            # The founder's changes the draft carries: what building a new version keeps.
            "your_changes": parts_said(store.founder_changes) if store.version else []}


def _running(store) -> tuple[str, str, str] | None:
    """(status, stage, job id) of the build or publish under way (a build first), or None."""
    if store.build_id is not None and store.build_status in Job.ACTIVE:
        return BUILDING, store.build_stage or "queued", store.build_id
    if store.publish_id is not None and store.publish_status in Job.ACTIVE:
        return PUBLISHING, store.publish_stage or "verifying", store.publish_id
    return None


def _build_failed_last(store) -> bool:
    """Whether the latest build failed after the draft version was made (a failed rebuild
    over a good draft still says failed; a failure the draft has since replaced does not)."""
    newest = store.draft_created_at  # the draft version's row (None when there is none)
    return (store.build_id is not None and store.build_status == Job.FAILED
            and (newest is None or store.build_created_at >= newest))


def _failed_publish(store) -> dict | None:
    """`last_publish` when the latest publish failed since the store was last published, else None."""
    failed = (store.publish_id is not None and store.publish_status == Job.FAILED
              and (store.published_at is None or store.publish_created_at >= store.published_at))
    if not failed:
        return None
    error = store.publish_error
    reason = error if error in ("verify_failed", "generation_failed") else "verify_failed"
    return {"status": FAILED, "reason": reason, "explanation": sentence(reason)}


def _poll_query():
    """What `answer` reads, as one row: the store, its latest build and publish jobs since it was created
    (builds.latest_build, publish.latest_publish: the job_subject_latest index), and its
    draft version's time and dropped sentences. Its values are named (models/db.KeptSQL:
    every poll runs it): `product_id` and the jobs' `subject` (builds.subject)."""
    build, going, version = Job.alias("build"), Job.alias("going"), StoreVersion.alias("draft")

    def latest(kind: str, job):
        return (job.select(job.id).where(job.kind == kind, job.subject == param("subject"),
                                         job.created_at >= Store.created_at)
                .order_by(job.created_at.desc(), job.id.desc()).limit(1))

    draft = pw.Case(None, [(Store.draft_version.is_null(False) & (Store.draft_version != 0), Store.draft_version)],
                    Store.version)
    jobs = [(build, "build"), (going, "publish")]
    columns = [*(getattr(Store, name).alias(name) for name in _STORE_COLUMNS),
               *(getattr(job, name).alias(f"{prefix}_{name}") for job, prefix in jobs for name in _JOB_COLUMNS),
               version.created_at.alias("draft_created_at"), version.dropped.alias("dropped"),
               version.founder_changes.alias("founder_changes")]
    return (Store.select(*columns)
            .join_from(Store, build, pw.JOIN.LEFT_OUTER, on=(build.id == latest(builds.BUILD, Job.alias("b"))))
            .join_from(Store, going, pw.JOIN.LEFT_OUTER, on=(going.id == latest(publish.PUBLISH, Job.alias("p"))))
            .join_from(Store, version, pw.JOIN.LEFT_OUTER,
                       on=((version.store == Store.product) & (version.number == draft)))
            .where(Store.product == param("product_id")))


_STORE_COLUMNS = ("slug", "owner", "version", "draft_version", "published_version", "published_at", "created_at",
                  "updated_at")
_JOB_COLUMNS = ("id", "status", "stage", "created_at", "error")
PollRow = namedtuple("PollRow", [*_STORE_COLUMNS, *(f"{prefix}_{name}" for prefix in ("build", "publish")
                                                    for name in _JOB_COLUMNS), "draft_created_at", "dropped",
                                                    "founder_changes"])
# How the poll's columns are read back (read_row), in its order.
_POLL_READERS = (*(getattr(Store, name) for name in _STORE_COLUMNS), *[getattr(Job, name) for name in _JOB_COLUMNS] * 2,
                 StoreVersion.created_at, StoreVersion.dropped, StoreVersion.founder_changes)
_POLL = KeptSQL(_poll_query)


# Why a build failed (the job row's error), in the founder's words.
_WHY = {
    "cli_unavailable": "The AI backend could not be reached.",
    "cli_failed": "The AI backend did not finish.",
}


def _failure(error: str | None) -> str:
    why = next((words for code, words in _WHY.items() if error and code in error), None)
    text = sentence("generation_failed")
    return f"{text} ({why})" if why else text


def read(*, session: Session) -> dict:
    """GET /api/store: the state of the founder's store (for the product they claimed or hold)."""
    return answer(builds.store_product(session))


def start(*, session: Session) -> tuple[dict, list[Job]]:
    """POST /api/store: starts a build of the founder's store, or reports the running one."""
    product_id = builds.store_product(session)
    name = _product_name(product_id)
    job, created = builds.request_build(product_id, name, owner_of(session).key)
    return answer(product_id), [job] if created else []


def start_publishing(*, session: Session) -> tuple[Job, bool, str]:
    """POST /api/store/publish, first half: the publish job (created or running). Publishing
    needs the claim (`claim_required` on a hold)."""
    product_id = builds.store_product(session, claimed=True)
    job, created = publish.request_publish(product_id)
    return job, created, product_id


def publish_answer(job_id: str, product_id: str) -> dict:
    """POST /api/store/publish, second half: waits for the check, then answers the store's
    state; refuses with `verify_failed` when the check could not run."""
    job = wait_for_job(job_id, seconds=PUBLISH_WAIT_SECONDS)
    if job is not None and job.status == Job.FAILED:
        if job.error == "generation_failed":
            raise Refused("generation_failed", "The store had to be regenerated before publishing, and that failed; "
                                               "it was not published.")
        raise Refused("verify_failed")
    return answer(product_id)


def _product_name(product_id: str) -> str:
    from models.catalog import Product

    product = Product.get_or_none(Product.product_id == product_id)
    return product.name if product else product_id


def _store_of(owner, resolved) -> Store | None:
    """The founder's store for their resolved product: one they built, never another's draft."""
    if resolved is None:
        return None
    return Store.get_or_none(Store.product == resolved.product_id, Store.owner == owner.key)


@launch_fact("store_built")
def _store_built(owner, resolved) -> tuple[bool, str]:
    store = _store_of(owner, resolved)
    if store is None or store.version == 0:
        return False, "Build your store from the Store screen."
    return True, f"Version {store.version} built."


@launch_fact("store_published")
def _store_published(owner, resolved) -> tuple[bool, str]:
    store = _store_of(owner, resolved)
    if store is None or store.published_version is None:
        return False, "Publish your store from the Store screen once it is built."
    return True, f"Version {store.published_version} is published at {get_settings().base_url}/store/{store.slug}/."


def page_source(slug: str, *, session: Session | None, preview: bool) -> dict:
    """The document a store page renders: the published version for everyone, the draft for
    its owner's preview. Refused(`not_found`) when there is nothing to show that visitor (an
    unknown slug, a store not published, a preview asked for by anyone but its owner)."""
    store = Store.get_or_none(Store.slug == slug)
    if store is None:
        raise Refused("not_found")
    if preview:
        resolved = resolve(session) if session is not None else None
        if (resolved is None or resolved.product_id != store.product_id or store.owner != owner_of(session).key
                or store.version == 0):
            raise Refused("not_found")
        number = store.draft
    else:
        if store.published_version is None:
            raise Refused("not_found")
        number = store.published_version
    row = StoreVersion.get_or_none(StoreVersion.store == store.product_id, StoreVersion.number == number)
    if row is None:
        raise Refused("not_found")
    return row.document


def require_sells(slug: str, product_id: str) -> None:
    """Refused(`not_found`) unless the store at `slug` is the store of `product_id` (a buy
    box names its product; another product's id is as unknown here as a wrong slug)."""
    if not Store.select().where(Store.slug == slug, Store.product == product_id).exists():
        raise Refused("not_found")
