"""Publishing a store: a `store_publish` job re-checks the newest version against the
product's current facts and publishes it, regenerating first when the check demands it
(the offer's price moved, or the copy says something the record no longer backs). A
store is never called published unless the check passed; when the check cannot run at
all the job fails with `verify_failed`."""
from __future__ import annotations

import logging

from models.clock import utcnow
from models.db import transaction
from models.job import Job
from models.store import Store
from services.errors import JobFailed, Refused
from services.jobs import active_job, create_job
from services.store import facts as store_facts
from services.store import published
from services.store.builds import generate, subject
from services.store.verify import problems_of
from services.store.versions import latest, write_version

log = logging.getLogger("store")

PUBLISH = "store_publish"  # the job kind


def request_publish(product_id: str) -> tuple[Job, bool]:
    """Creates the store's publish job, or finds the one queued or running."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        raise Refused("not_started", "Your store has not been built yet, so there is nothing to publish. Build it "
                                     "first.")
    running = active_job(kind=PUBLISH, subject=subject(product_id))
    if running is not None:
        return running, False
    with transaction():
        return create_job(kind=PUBLISH, subject=subject(product_id), payload={"product_id": product_id})


def run(product_id: str, *, stage=lambda name: None, fenced=None) -> dict:
    """The publish job's work: check, regenerate when needed, publish."""
    stage("verifying")
    try:
        current = latest(product_id)
        facts = store_facts.load(product_id)
        if current is None or facts is None:
            raise JobFailed("verify_failed")
        found = problems_of(current.document, facts)
    except JobFailed:
        raise
    except Exception:
        # The check itself broke (a page that cannot render, say): nothing is published.
        log.exception("store check could not run", extra={"fields": {"product_id": product_id}})
        raise JobFailed("verify_failed") from None
    number, regenerated = current.number, False
    if found:
        log.info("store regenerated before publishing", extra={"fields": {"product_id": product_id, "problems": found}})
        document, dropped = generate(product_id, stage=stage)  # checks what it generates
        stage("verifying")
        with (fenced() if fenced else transaction()):
            number = write_version(product_id, document, dropped=dropped,
                                   summary="Regenerated before publishing: " + ", ".join(sorted(set(found)))[:300])
        regenerated = True
    with (fenced() if fenced else transaction()):
        now = utcnow()
        Store.update(published_version=number, published_at=now, updated_at=now).where(
            Store.product == product_id).execute()
    # Committed: the public pages now serve this version (their pointer moves only now, so
    # no request is answered from a version that could still roll back).
    published.announce(product_id)
    return {"product_id": product_id, "published_version": number, "regenerated": regenerated}


def latest_publish(product_id: str, *, since=None) -> Job | None:
    query = Job.select().where(Job.kind == PUBLISH, Job.subject == subject(product_id))
    if since is not None:
        query = query.where(Job.created_at >= since)
    return query.order_by(Job.created_at.desc(), Job.id.desc()).first()
