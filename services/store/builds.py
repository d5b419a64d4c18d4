"""Building a store: one `store_build` job per product at a time, moving through its stages
as it really works, ending in a new store version.

Stages (decisions.md, Store): queued -> researching (the product's facts and offer) ->
writing (the AI backend writes the copy from those facts only) -> rendering (the document
is assembled and every page rendered) -> verifying (the pages are checked) -> built. A
generation that fails ends the job `failed`; GET /api/store then answers
`generation_failed`, and the next POST /api/store starts afresh.
"""
from __future__ import annotations

import logging

from config import get_settings
from integrations import ai
from models.db import transaction
from models.job import Job
from models.store import Store
from services.errors import JobFailed, Refused, TransientError
from services.reasons import REASONS
from services.jobs import active_job, create_job
from services.store import facts as store_facts
from services.store.document import build_document, slug_for
from services.store.verify import problems_of
from services.store.versions import write_version

log = logging.getLogger("store")

BUILD = "store_build"  # the job kind
STAGES = ("queued", "researching", "writing", "rendering", "verifying", "built")


def subject(product_id: str) -> str:
    # One subject for every job on a store (build, publish, later edits): the runner's
    # subject lock keeps them from running side by side.
    return f"store:{product_id}"


def busy(product_id: str) -> bool:
    """Whether any job on the store (a build, publish, change or edit) is queued or running:
    a change started meanwhile would be overwritten by that job's version, or overwrite it."""
    return Job.select().where(Job.subject == subject(product_id), Job.status.in_(Job.ACTIVE)).exists()


def ensure_store(product_id: str, name: str) -> Store:
    """The product's store row, created on first use (a race settles on the primary key)."""
    Store.insert(product=product_id, slug=slug_for(product_id, name)).on_conflict_ignore().execute()
    return Store.get(Store.product == product_id)


def request_build(product_id: str, name: str) -> tuple[Job, bool]:
    """Creates the product's build job, or finds the one queued or running (at most one:
    the job table's unique index decides, however many requests race). Returns (job, created)."""
    running = active_job(kind=BUILD, subject=subject(product_id))
    if running is not None:
        return running, False
    with transaction():
        ensure_store(product_id, name)
        return create_job(kind=BUILD, subject=subject(product_id), payload={"product_id": product_id})


def generate(product_id: str, *, stage=lambda name: None) -> tuple[dict, list]:
    """Writes a store document for the product from its current facts (the stages up to
    verifying); returns (document, dropped sentences). Raises JobFailed when it cannot."""
    stage("researching")
    facts = store_facts.load(product_id)
    store = Store.get_or_none(Store.product == product_id)
    if facts is None or store is None:
        raise JobFailed("generation_failed")
    stage("writing")
    try:
        answer = ai.complete(ai.Task(kind="store_copy", facts=ai.Facts(product=facts.product, evidence=facts.evidence,
                                                                        offer=facts.offer)))
    except ai.AIError as exc:
        log.warning("store copy not written", extra={"fields": {"product_id": product_id, "reason": exc.reason}})
        if exc.reason == "cli_unavailable":
            # It may be back shortly (a local model server restarting): tried again later.
            raise TransientError(f"AI backend unavailable: {exc.reason}") from None
        # The job row keeps why when it is a registered reason (cli_failed); GET /api/store
        # says generation_failed either way.
        raise JobFailed(exc.reason if exc.reason in REASONS else "generation_failed") from None
    stage("rendering")
    document = build_document(product=facts.product, evidence=facts.evidence, price=facts.price, copy=answer.copy,
                              slug=store.slug,
                              # Open for orders when a payment provider is configured (services.commerce).
                              checkout=get_settings().payment_provider != "off")
    stage("verifying")
    found = problems_of(document, facts)
    if found:
        log.warning("generated store failed its check", extra={"fields": {"product_id": product_id, "problems": found}})
        raise JobFailed("generation_failed")
    return document, answer.dropped


def run(product_id: str, *, stage=lambda name: None, fenced=None) -> dict:
    """The build job's work: a new version of the product's store."""
    document, dropped = generate(product_id, stage=stage)
    with (fenced() if fenced else transaction()):
        number = write_version(product_id, document, summary="Built from the product record, its evidence and the offer",
                               dropped=dropped)
    return {"product_id": product_id, "version": number, "dropped": len(dropped)}


def latest_build(product_id: str) -> Job | None:
    """The product's most recent build job (running or finished)."""
    return (Job.select().where(Job.kind == BUILD, Job.subject == subject(product_id))
            .order_by(Job.created_at.desc(), Job.id.desc()).first())


def require_claim(resolved) -> str:
    """The product a store is built for: the founder's claimed product. A hold is not
    enough: a store is built only for a product that is the founder's alone."""
    if resolved is None or resolved.claimed_product_id is None:
        explanation = None
        if resolved is not None:
            explanation = (f"You hold {resolved.product_id} but have not claimed it. Claim it first: a store is built "
                           "only for a product that is yours alone.")
        raise Refused("not_claimed", explanation)
    return resolved.claimed_product_id

