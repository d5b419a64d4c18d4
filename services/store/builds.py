"""Building a store: one `store_build` job per product at a time, moving through its stages
as it really works, ending in a new store version.

Stages (decisions.md, Store): queued -> researching (the product's facts and offer) ->
writing (the AI backend writes the copy from those facts only) -> rendering (the document
is assembled and every page rendered) -> verifying (the pages are checked) -> built. A
generation that fails ends the job `failed`; GET /api/store then answers
`generation_failed`, and the next POST /api/store starts afresh. An AI backend that cannot
be reached is tried again under the AI tasks' one retry policy (services/ai_tasks.py).

What a rebuild keeps: every change the founder made that the draft carries (the parts of
the store its versions name in `founder_changes`: edited copy fields, whatever the edit or
applied intent that changed them, and the section the home page leads with) is put back on
the newly written document, field by field. A sentence of the founder's that the product
record no longer backs (their price moved, say) is left out and reported with the build's
dropped sentences, marked as theirs; the field keeps the rest of their words, or the new
build's where nothing of theirs would be left. Undo and redo move the draft, so a change
the founder stepped back from is not the draft's and is not kept.
"""
from __future__ import annotations

import logging

from config import get_settings
from integrations import ai
from integrations.ai import claims
from integrations.ai.schemas import STORE_COPY
from integrations.payments import switched_on
from models.catalog import Product
from models.clock import utcnow
from models.db import KeptSQL, param, transaction
from models.job import Job
from models.store import Store, StoreIntent, StoreVersion
from services import ai_facts, ai_tasks
from services.discovery import resolve
from services.errors import JobFailed, Refused
from services.jobs import active_job, create_job
from services.ownership import adopter, adoption_keys, owner_of, session_key
from services.store import facts as store_facts
from services.store.document import build_document, slug_for
from services.store.sections import LEADS
from services.store.verify import problems_of
from services.store.versions import latest, parts_said, with_lead, write_version

log = logging.getLogger("store")

BUILD = "store_build"  # the job kind
STAGES = ("queued", "researching", "writing", "rendering", "verifying", "built")
# What a build that failed on its AI answer keeps as its error (a registered reason).
_FAILED_BECAUSE = {ai.errors.FAILED: "cli_failed"}


def subject(product_id: str) -> str:
    # One subject for every job on a store (build, publish, later edits): the runner's
    # subject lock keeps them from running side by side.
    return f"store:{product_id}"


def busy(product_id: str) -> bool:
    """Whether any job on the store (a build, publish, change or edit) is queued or running:
    a change started meanwhile would be overwritten by that job's version, or overwrite it."""
    return Job.select().where(Job.subject == subject(product_id), Job.status.in_(Job.ACTIVE)).exists()


def ensure_store(product_id: str, name: str, owner_key: str) -> Store:
    """The product's store row, created on first use for `owner_key` (a race settles on the
    primary key)."""
    Store.insert(product=product_id, slug=slug_for(product_id, name), owner=owner_key).on_conflict_ignore().execute()
    return Store.get(Store.product == product_id)


def request_build(product_id: str, name: str, owner_key: str) -> tuple[Job, bool]:
    """Creates the product's build job, or finds the one queued or running (at most one:
    the job table's unique index decides, however many requests race). Returns (job, created)."""
    running = active_job(kind=BUILD, subject=subject(product_id))
    if running is not None:
        return running, False
    with transaction():
        ensure_store(product_id, name, owner_key)
        return create_job(kind=BUILD, subject=subject(product_id), payload={"product_id": product_id},
                          max_attempts=ai_tasks.ATTEMPTS)


def generate(product_id: str, *, stage=lambda name: None) -> tuple[dict, list]:
    """Writes a store document for the product from its current facts (the stages up to
    verifying); returns (document, dropped sentences). Raises JobFailed when it cannot."""
    stage("researching")
    facts = store_facts.load(product_id)
    store = Store.get_or_none(Store.product == product_id)
    if facts is None or store is None:
        raise JobFailed("generation_failed")
    stage("writing")
    known = ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                               statements=facts.statements)
    try:
        # A backend that cannot be reached raises TransientError here: the job tries again.
        answer = ai_tasks.write(ai.Task(kind="store_copy", facts=known))
    except ai.AIError as exc:
        log.warning("store copy not written", extra={"fields": {"product_id": product_id, "reason": exc.reason}})
        # The job row keeps why (cli_failed); GET /api/store says generation_failed either way.
        raise JobFailed(_FAILED_BECAUSE.get(exc.reason, "generation_failed")) from None
    stage("rendering")
    # Imported here: services.business reads the connected domain (services.domains), which imports this module.
    from services.business import store_business
    business = store_business(store.owner, product_id)  # the name and support address Settings hold now
    document = build_document(product=facts.product, evidence=facts.evidence, price=facts.price, copy=answer.copy,
                              slug=store.slug, business_name=business["name"], support_email=business["support_email"],
                              # Open for orders when payments are switched on.
                              checkout=switched_on(get_settings()),
                              # The founder's statements, shown on the store as the business's policy.
                              policy=facts.policy)
    document, not_kept = with_founder_changes(product_id, document, known)
    stage("verifying")
    found = problems_of(document, facts)
    if found:
        log.warning("generated store failed its check", extra={"fields": {"product_id": product_id, "problems": found}})
        raise JobFailed("generation_failed")
    return document, answer.dropped + not_kept


def with_founder_changes(product_id: str, document: dict, known) -> tuple[dict, list[dict]]:
    """The freshly written `document` with the founder's changes the draft carries put back;
    returns (document, the founder's sentences the product record no longer backs, each
    marked `yours`)."""
    draft = latest(product_id)
    parts = set(draft.founder_changes or []) if draft is not None else set()
    if not parts:
        return document, []
    theirs = draft.document
    fields = sorted(name for name in parts if name in document["copy"] and name in (theirs.get("copy") or {}))
    copy = {**document["copy"], **{name: theirs["copy"][name] for name in fields}}
    # The founder's words are checked as the AI's are: an unbacked sentence goes, and a field
    # left with nothing valid takes the new build's words instead.
    copy, unbacked = claims.filter_copy(copy, known, document["copy"], STORE_COPY)
    kept = {**document, "copy": copy}
    lead = theirs.get("lead")
    if "lead" in parts and lead in LEADS and lead != kept["lead"]:
        kept = with_lead(kept, lead)
    return kept, [{**sentence, "yours": True} for sentence in unbacked]


def save(product_id: str, document: dict, dropped: list) -> dict:
    """Writes the generated document as the store's new version; answers the build's result.
    Runs in the build job's last transaction (jobs/store.py), with its done mark and the row
    of the ad job it starts: a build whose worker dies after the commit is not built again."""
    draft = latest(product_id)
    kept = parts_said(draft.founder_changes if draft is not None else [])
    summary = "Built from the product record, its evidence and the offer"
    if kept:
        summary += ", keeping your changes to " + _listed([part["said"] for part in kept])
    number = write_version(product_id, document, summary=summary, dropped=dropped)
    return {"product_id": product_id, "version": number, "dropped": len(dropped)}


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def latest_build(product_id: str, *, since=None) -> Job | None:
    """The product's most recent build job (running or finished), of its store's current
    founder when `since` (the store's created_at) is given."""
    query = Job.select().where(Job.kind == BUILD, Job.subject == subject(product_id))
    if since is not None:
        query = query.where(Job.created_at >= since)
    return query.order_by(Job.created_at.desc(), Job.id.desc()).first()


NO_PRODUCT = "You have not picked a product yet, so there is no store. Hold or claim one from your feed first."


def store_product(session, *, claimed: bool = False) -> str:
    """The product whose store the founder builds, edits and reads: their resolved product,
    claimed or held (spec 2: one resolver); refuses `not_claimed` when none resolves, and
    `claim_required` on a hold when the step needs the claim (`claimed`: publishing).

    A store built on a hold lives only as long as the founder keeps the product: when the
    hold lapsed and the product is now another founder's (held or claimed), the draft left
    by the last one is discarded here, before the new founder sees anything of it."""
    resolved = resolve(session)
    if resolved is None:
        raise Refused("not_claimed", NO_PRODUCT)
    if claimed:
        require_claim(resolved)
    _take_over(resolved.product_id, owner_of(session).key)
    return resolved.product_id


def require_claim(resolved) -> str:
    """The founder's claimed product, for what needs the product to be theirs alone for good:
    publishing, going live, taking money, changing its details. None resolved: `not_claimed`;
    only a hold: `claim_required`."""
    if resolved is None:
        raise Refused("not_claimed", NO_PRODUCT)
    if resolved.claimed_product_id is None:
        name = Product.get_or_none(Product.product_id == resolved.product_id)
        raise Refused("claim_required", f"You hold {name.name if name else resolved.product_id} but have not "
                                        "claimed it. Publishing, going live and taking money need the product to be "
                                        "yours alone: claim it first. Building and editing its store need no claim.")
    return resolved.claimed_product_id


# Every store request reads the store's owner (its SQL text is kept: models/db.KeptSQL).
_OWNER = KeptSQL(lambda: Store.select(Store.owner).where(Store.product == param("product_id")))


def _take_over(product_id: str, owner_key: str) -> None:
    found = _OWNER.run(product_id=product_id).fetchone()
    if found is None or found[0] == owner_key:
        return
    store_owner = found[0]
    if busy(product_id):
        # The last founder's job is still writing (a hold lapsed seconds ago): its version
        # must not land in the new founder's store.
        raise Refused("build_in_progress", "The last build of this product's store is still finishing; nothing of "
                                           "it will be yours. Try again in a moment.")
    with transaction():
        # Conditional on the owner read above: of two requests racing, one discards the draft.
        # Never a published store: publishing needs a claim, and a claim is never taken over.
        # created_at starts again: the jobs of the last founder's store are not this one's.
        taken = (Store.update(owner=owner_key, version=0, draft_version=None, published_version=None,
                              published_at=None, created_at=utcnow(), updated_at=utcnow())
                 .where(Store.product == product_id, Store.owner == store_owner,
                        Store.published_version.is_null())
                 .execute())
        if taken:
            StoreIntent.delete().where(StoreIntent.store == product_id).execute()
            StoreVersion.delete().where(StoreVersion.store == product_id).execute()
    if taken:
        log.info("store draft of a lapsed hold discarded", extra={"fields": {"product_id": product_id}})


def _stores_held(session_id: int) -> list[str]:
    rows = (Product.select(Product.name).join(Store, on=(Store.product == Product.product_id))
            .where(Store.owner == session_key(session_id)).order_by(Product.name))
    return [f"the store you built for {row.name}" for row in rows]


@adopter(kind="stores", held=_stores_held)
def adopt_stores(session_id: int, account_id: int) -> dict:
    """Stores the session built (on a hold or a claim) become its account's."""
    session_key, account_key = adoption_keys(session_id, account_id)
    Store.update(owner=account_key).where(Store.owner == session_key).execute()
    return {}
