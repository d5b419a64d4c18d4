"""Plain-language store edits (POST /api/ai/edit with a message): the AI backend turns the
founder's words into the store's copy as it should read afterwards (and, when asked, a new
leading section); the difference from the draft becomes a new version, checked first.

An edit runs in a `store_edit` job (one per store at a time, serialised with builds and
other changes by the subject lock). The job always finishes: either with the new version
and its patch, or with the refusal the founder is told (the wording cannot be backed by the
product record, a field too long, nothing changed, the editor unavailable...). The route
charges the `website_edit` bucket around it and refunds every refusal, so only an edit that
made a version costs anything.
"""
from __future__ import annotations

import jsonpatch

from integrations import ai
from models.db import transaction
from models.job import Job
from models.store import Store
from services import own_product
from services.errors import Refused
from services.jobs import create_job, wait_for_job
from services.store import builds
from services.store import own as own_details
from services.store import facts as store_facts
from services.store.document import SECTIONS, problems
from services.store.intents import with_lead
from services.store.versions import latest, write_version

EDIT = "store_edit"  # the job kind
WAIT_SECONDS = 60

# What an AI error tells the founder (registered reasons); any other (an answer that was no
# valid copy, twice) reads as cli_failed.
_AI_REASONS = {"editor_unavailable": "editor_unavailable", "too_long": "too_long",
               "cli_unavailable": "cli_unavailable", "cli_failed": "cli_failed"}


def start(*, product_id: str, message: str, field: str | None) -> Job:
    """Creates the store's edit job; refuses when the store is not built or busy."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        raise Refused("not_started")
    if builds.busy(product_id):
        raise Refused("build_in_progress")
    with transaction():
        job, created = create_job(kind=EDIT, subject=builds.subject(product_id), max_attempts=1,
                                  payload={"product_id": product_id, "message": message, "field": field})
    if not created:  # another edit got there first: this request changes nothing
        raise Refused("build_in_progress")
    return job


def run(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The edit job: the new version, or {"reason": reason, "explanation": ...}."""
    product_id = payload["product_id"]
    draft = latest(product_id)
    facts = store_facts.load(product_id)
    if draft is None or facts is None:
        return {"reason": "not_started", "explanation": "Your store has no version to edit."}
    document = draft.document
    stage("writing")
    known = ai.Facts(product=facts.product, evidence=facts.evidence, offer=facts.offer)
    task = ai.Task(kind="store_edit", facts=known, instructions=payload["message"],
                   current={"copy": document["copy"], "lead": document.get("lead"), "field": payload.get("field")})
    try:
        answer = ai.complete(task)
    except ai.AIError as exc:
        return {"reason": _AI_REASONS.get(exc.reason, "cli_failed"), "explanation": exc.detail}
    edited = {**document, "copy": answer.copy["copy"]}
    lead = answer.copy.get("lead")
    if lead is not None and lead != document.get("lead"):
        if lead not in SECTIONS:
            return {"reason": "unknown_diff", "explanation": f"The edit would lead with {lead[:40]!r}, a section your "
                                                            f"store does not have ({', '.join(SECTIONS)}); nothing "
                                                            "was changed."}
        edited = with_lead(edited, lead)
    stage("verifying")
    already = {d["sentence"] for d in ai.unbacked(document["copy"], known)}
    try:
        # One transaction: a new price is kept as the founder's own (so later builds and the
        # publish check charge it), and any refusal below rolls it back with the rest.
        with (fenced() if fenced else transaction()):
            price = answer.copy.get("price")
            if price is not None and round(float(price), 2) != round(float(document["price"]), 2):
                own_product.set_price(product_id, price)
                facts = store_facts.load(product_id)
                known = ai.Facts(product=facts.product, evidence=facts.evidence, offer=facts.offer)
                edited, _tidied = own_details.with_own_details(edited, facts)
            new = [d for d in ai.unbacked(edited["copy"], known) if d["sentence"] not in already]
            if new:
                raise _Refusal({"reason": "unbacked_claim", "unbacked": new,
                                "explanation": f"Your product's record cannot back “{new[0]['sentence'][:200]}” "
                                               f"({new[0]['why']}), so nothing was changed. Rephrase it to match what "
                                               "the record says."})
            wrong = problems(edited)
            if wrong:
                raise _Refusal({"reason": "too_long", "explanation": "; ".join(wrong)[:300]})
            patch = jsonpatch.make_patch(document, edited).patch
            if not patch:
                raise _Refusal({"reason": "no_diff", "explanation": "That edit would leave your store exactly as it "
                                                                     "is, so nothing was changed or charged."})
            number = write_version(product_id, edited, summary=f"Edited: {payload['message'][:200]}")
    except _Refusal as refusal:
        return refusal.answer
    except Refused as refused:  # a price outside its bounds
        return {"reason": refused.reason, "explanation": refused.explanation}
    return {"version": number, "diff": patch}


class _Refusal(Exception):
    """Ends an edit's transaction (rolling back what it wrote) with the founder's answer."""

    def __init__(self, answer: dict):
        super().__init__(answer["reason"])
        self.answer = answer


def result(job_id: str) -> dict:
    """POST /api/ai/edit's answer once its job finished; a refusal is raised (and refunded)."""
    done = wait_for_job(job_id, seconds=WAIT_SECONDS)
    if done is None or done.status == Job.FAILED:
        raise Refused("cli_failed", "The edit could not be completed, so nothing was changed.")
    if done.status != Job.DONE:
        return {"status": "editing", "job_id": done.id, "version": None, "diff": []}
    outcome = done.result or {}
    if "reason" in outcome:
        extra = {"unbacked": outcome["unbacked"]} if "unbacked" in outcome else {}
        raise Refused(outcome["reason"], outcome.get("explanation"), **extra)
    return {"status": "edited", "version": outcome["version"], "diff": outcome["diff"]}
