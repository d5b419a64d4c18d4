"""Plain-language store edits (POST /api/ai/edit with a message): the AI backend turns the
founder's words into the store's copy as it should read afterwards (and, when asked, a new
leading section or price); the difference from the draft becomes a new version, checked first.

The edit is the `store_edit` kind of AI task, registered here: its schema, the model's
task, its offline writer (the offline editor, offline_edit.py) and its finish (the answer
is kept whole: the founder's wording is checked below and refused by sentence, never
filtered).

An edit runs in a `store_edit` job (one per store at a time, serialised with builds and
other changes by the subject lock). Its work raises Refused for what the founder is told
(the wording cannot be backed by the product record, a field too long, nothing changed,
the editor does not understand...); the job ends done either way, keeping the new
version and its patch or the refusal, which result() raises again for the waiting route.
A backend that cannot be reached is retried like a build's (services/ai_tasks.py). The
route charges the `website_edit` bucket around it and refunds every refusal, so only an
edit that made a version costs anything.
"""
from __future__ import annotations

import jsonpatch

from integrations import ai
from integrations.ai.schemas import STORE_COPY, record
from models.db import transaction
from models.job import Job
from models.store import Store
from services import ai_facts, ai_tasks, copy_changes, own_product, plain_requests
from services.errors import Refused
from services.jobs import create_job
from services.store import builds, offline_edit, policy
from services.store import facts as store_facts
from services.store import own as own_details
from services.store.document import problems
from services.store.sections import LEADS, said_in_words
from services.store.versions import latest, with_lead, write_version

EDIT = "store_edit"  # the job kind, and the AI task kind
WAIT_SECONDS = 60

# The whole copy as it should read afterwards, and the section the home page should lead
# with and the price, when the founder asks for a new one (null or left out: unchanged).
STORE_EDIT = record({
    "copy": STORE_COPY,
    "lead": {"type": ["string", "null"], "maxLength": 20,
             "description": f"the section the home page leads with ({', '.join(LEADS)}), or null to leave it"},
    "price": {"type": ["number", "null"],
              "description": "the price the store should charge when the founder asks for a new one, else null"},
}, optional=("lead", "price"))

def _reads_whole(written: dict, task: ai.Task) -> list[str]:
    """The store_edit kind's check of a model's answer: every rewritten text reads whole."""
    before = (task.current or {}).get("copy") or {}
    return copy_changes.not_whole(before, written.get("copy") or {}, str(task.facts.product.get("name") or ""))


ai.register(ai.Kind(EDIT, STORE_EDIT, offline=offline_edit.edit, finish=ai.as_written, check=_reads_whole, asks=(
    "Edit the store's current copy as the founder's instructions ask, changing nothing else, and answer the whole "
    "copy as it should read afterwards (and `lead` when they ask for another leading section, else null). "
    + plain_requests.AS_CONTEXT)))

# What an AI error that is not retried tells the founder; an answer that was no valid copy,
# twice, reads as cli_failed too.
_AI_REASONS = {ai.errors.FAILED: "cli_failed", ai.errors.INVALID_OUTPUT: "cli_failed"}
_AI_FAILED = ("The AI editor's answer could not be used (asked twice, it did not keep to your store's parts and "
              "their lengths, or it cut words short), so nothing was changed. Try again, or ask for one change at "
              "a time.")


def start(*, product_id: str, message: str, field: str | None) -> Job:
    """Creates the store's edit job; refuses when the store is not built or busy."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        raise Refused("not_started")
    if builds.busy(product_id):
        raise Refused("build_in_progress")
    with transaction():
        job, created = create_job(kind=EDIT, subject=builds.subject(product_id), max_attempts=ai_tasks.ATTEMPTS,
                                  payload={"product_id": product_id, "message": message, "field": field})
    if not created:  # another edit got there first: this request changes nothing
        raise Refused("build_in_progress")
    return job


def run(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The edit job: {version, diff}, or {refused: {reason, explanation, ...}} for result() to raise."""
    try:
        return edit(payload, stage=stage, fenced=fenced)
    except Refused as refused:
        return {"refused": {"reason": refused.reason, "explanation": refused.explanation, **refused.fields}}


def edit(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """Makes the edit a new version of the store ({version, diff}); raises Refused when it cannot."""
    product_id = payload["product_id"]
    draft = latest(product_id)
    facts = store_facts.load(product_id)
    if draft is None or facts is None:
        raise Refused("not_started", "Your store has no version to edit.")
    document = draft.document
    stage("writing")
    # The policy the founder states in the request ("mention free returns within 30 days") is
    # theirs to state: the copy may say it once it is saved, with the edit, as their statement.
    parsed = None if payload.get("field") else plain_requests.parse(payload["message"])
    stated = policy.stated_in_requests(parsed) if parsed else {}
    known = ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                               statements=policy.with_stated(facts.statements, stated))
    task = ai.Task(kind=EDIT, facts=known, instructions=payload["message"],
                   current={"copy": document["copy"], "lead": document.get("lead"), "field": payload.get("field"),
                            **policy.parsed_context(parsed)})
    try:
        answer = ai_tasks.write(task)
    except ai.AIError as exc:
        # The seam's detail names schema paths and program output: logged there, never shown.
        raise Refused(_AI_REASONS.get(exc.reason, "cli_failed"), _AI_FAILED) from None
    edited = {**document, "copy": answer.copy["copy"]}
    lead = answer.copy.get("lead")
    if lead is not None and lead != document.get("lead"):
        if lead not in LEADS:
            raise Refused("unknown_diff", f"The edit would lead with {lead[:40]!r}, a section your store does not "
                                          f"have ({', '.join(LEADS)}); nothing was changed.")
        edited = with_lead(edited, lead)
    stage("verifying")
    already = {d["sentence"] for d in ai.unbacked(document["copy"], known)}
    # One transaction: a new price is kept as the founder's own (so later builds and the
    # publish check charge it), and a refusal below (or a price outside its bounds) rolls
    # it back with the rest.
    with (fenced() if fenced else transaction()):
        if stated:  # saved with the version, or rolled back with it by a refusal below
            policy.save_stated(product_id, stated)
            facts = store_facts.load(product_id)
            known = ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                                       statements=facts.statements)
            edited = policy.with_policy(edited, facts.policy)
        price = answer.copy.get("price")
        if price is not None and round(float(price), 2) != round(float(document["price"]), 2):
            own_product.set_price(product_id, price)
            facts = store_facts.load(product_id)
            known = ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                                       statements=facts.statements)
            edited, _tidied = own_details.with_own_details(edited, facts)
        new = [d for d in ai.unbacked(edited["copy"], known) if d["sentence"] not in already]
        if new:
            raise Refused("unbacked_claim", f"Your product's record cannot back “{new[0]['sentence'][:200]}” "
                                            f"({new[0]['why']}), so nothing was changed. Rephrase it to match what "
                                            "the record says.", unbacked=new)
        wrong = problems(edited)
        if wrong:
            raise Refused("too_long", said_in_words(wrong)[:300])
        patch = jsonpatch.make_patch(document, edited).patch
        if not patch:
            raise Refused("no_diff", "That edit would leave your store exactly as it is, so nothing was changed or "
                                     "charged.")
        number = write_version(product_id, edited, summary=f"Edited: {payload['message'][:200]}", by_founder=True)
    return {"version": number, "diff": patch}


def result(job_id: str) -> dict:
    """POST /api/ai/edit's answer once its job finished; a refusal is raised (and refunded)."""
    done = ai_tasks.wait(job_id, seconds=WAIT_SECONDS)
    if done is None:
        raise Refused("cli_failed", "The edit could not be completed, so nothing was changed.")
    if done.status == Job.FAILED:
        if ai_tasks.gave_up_on(done.error) == ai.errors.UNAVAILABLE:
            raise Refused("cli_unavailable", f"The AI backend could not be reached after {ai_tasks.ATTEMPTS} tries, "
                                             "so nothing was changed.")
        raise Refused("cli_failed", "The edit could not be completed, so nothing was changed.")
    if done.status != Job.DONE:
        return {"status": "editing", "job_id": done.id, "version": None, "diff": []}
    outcome = done.result or {}
    if "refused" in outcome:
        raise Refused(**outcome["refused"])
    return {"status": "edited", "version": outcome["version"], "diff": outcome["diff"]}
