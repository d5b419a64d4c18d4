"""Evidence-backed store intents (spec 2.8, 4.4): a founder says in words what the store
should emphasise; the service proposes a change only when a dated evidence row justifies
it, and applies it (as a new store version, through a job) only when the proposal comes
back unmodified and its evidence has not moved.

What a request can ask for today is the section the home page leads with: demand evidence,
the price, the benefits, the FAQ, shipping, the guarantee, reviews, or the hero. Each topic
names what a row must be able to back (demand, talk, reviews, competition or price,
delivery, returns: services/evidence_kinds.py reads that from any catalog's metric, never
from a list of one catalog's names); the newest such row inside the evidence gate's window
is the proposal's `source_row`, except that a demand series whose newest reading is falling
justifies nothing. A request with exact sizes or colour codes is `not_an_intent`: it says
how, not what for.

The proposal's `intent_change` is signed (HMAC-SHA256 with SECRET_KEY over its canonical
JSON) and carries a fingerprint of the product's evidence, so apply can tell an edited or
invented proposal (`no_proposal_echoed`) from one whose evidence moved (`stale_proposal`).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from datetime import timedelta

from config import get_settings
from models.ad import Ad
from models.catalog import Evidence
from models.clock import iso, utcnow
from models.db import transaction
from models.job import Job
from models.store import Store, StoreIntent
from services import evidence_kinds as kinds
from services.day_words import day_words
from services.errors import JobFailed, Refused
from services.jobs import create_job, wait_for_job
from services.store import builds, sections
from services.store.sections import LEADS as SECTIONS
from services.store.sections import said
from services.store.versions import document_of, latest, lineage, with_lead, write_version

CHANGE = "store_change"  # the job kind that writes an applied, ordered or reverted version
SURFACES = ("home", "product", "faq", "shipping", "about", "ads")
WAIT_SECONDS = 20

# Exact sizes (px, pt, em, rem, %) and hex colours: how, not what for.
_NOT_AN_INTENT = re.compile(r"\d+(?:\.\d+)?\s*(?:px|pt|em|rem)\b|\d+(?:\.\d+)?\s*%|#(?:[0-9a-f]{8}|[0-9a-f]{6}|[0-9a-f]{3})\b",
                            re.IGNORECASE)
_LEAD_WITH = re.compile(r"\b(?:lead|start|open|begin)\s+with\s+(?:the\s+|a\s+|our\s+)?([a-z-]+)|\b([a-z-]+)\s+first\b",
                        re.IGNORECASE)



@dataclass(frozen=True)
class Topic:
    section: str
    words: tuple[str, ...]
    roles: tuple[str, ...]  # what a row must be able to back to justify leading with the section
    needs: str  # that, in words, for the refusal
    why: str  # how such a row justifies it


_DEMAND = (kinds.DEMAND,)
_DEMAND_NEEDS = "demand reading (a rank, or a count such as searches, views, sales or mentions)"
TOPICS = (
    Topic("evidence", ("demand", "popular", "trend", "trending", "search", "searches", "bestseller", "best-seller",
                       "selling", "proof", "evidence", "interest", "viral"), _DEMAND, _DEMAND_NEEDS,
          "shoppers' demand is the strongest thing this store can show"),
    Topic("price", ("price", "cheap", "affordable", "value", "deal", "cost", "competitive", "budget"),
          (kinds.COMPETITION, kinds.PRICE), "competing listings or market price reading",
          "shoppers compare prices among many competing listings"),
    Topic("reviews", ("review", "reviews", "rating", "ratings", "testimonial", "testimonials", "stars"),
          (kinds.REVIEWS,), "review count or rating reading", "shoppers rate it well"),
    Topic("faq", ("question", "questions", "faq", "asking", "confused", "doubts"), (kinds.TALK,),
          "reading of mentions, posts or questions", "people talk about it and ask about it"),
    Topic("shipping", ("shipping", "delivery", "deliver", "arrive", "arrives"), (kinds.DELIVERY,),
          "shipping or delivery time reading", "how fast it arrives matters to shoppers"),
    Topic("guarantee", ("guarantee", "trust", "refund", "warranty", "risk", "safe"), (kinds.RETURNS,),
          "return or refund rate reading", "shoppers worry about returns"),
    Topic("benefits", ("benefit", "benefits", "feature", "features", "why"), _DEMAND, _DEMAND_NEEDS,
          "demand is there, so what it does for the shopper comes first"),
    Topic("hero", ("photo", "image", "picture", "hero", "look"), _DEMAND, _DEMAND_NEEDS,
          "demand is there, so the product itself comes first"),
)
_BY_SECTION = {topic.section: topic for topic in TOPICS}


# --- Proposals -----------------------------------------------------------------------------

def propose(*, product_id: str, surface: str, requested: str) -> dict:
    """A proposal for the request, or a Refused saying why there is none."""
    if surface not in SURFACES:
        raise Refused("unknown_surface", f"Your store has no area called {surface[:40]!r}. The areas are "
                                         f"{', '.join(SURFACES)}.")
    if surface == "ads":
        _ads_refusal(product_id)
    if _NOT_AN_INTENT.search(requested):
        raise Refused("not_an_intent")
    topic = _topic_of(requested)
    row, moved, falling = _justifying_row(product_id, topic)
    if row is None:
        # In a founder's words: the metric's label and the day as every text writes them.
        why_not = (f" The newest {'reading is' if len(falling) == 1 else 'readings are'} falling: " + "; ".join(
            f"{kinds.label(m.metric)} {m.change_pct:+g}% since {day_words(m.before.date)}" if m.change_pct is not None
            else f"{kinds.label(m.metric)} since {day_words(m.before.date)}" for m in falling) + "." if falling else "")
        raise Refused("no_row_justifies_this", f"No dated evidence row of the last "
                                               f"{get_settings().evidence_max_age_days} days supports leading with "
                                               f"{said(topic.section)}: it would need a {topic.needs}.{why_not}")
    current = current_lead(product_id)
    source_row = {"date": row.date.isoformat(), "source": row.source, "metric": row.metric, "value": row.value}
    trend = ""
    if moved.direction == kinds.RISING:
        trend = (f", up from {moved.before.value:g} on {day_words(moved.before.date)}" +
                 (f" ({moved.change_pct:+g}%)" if moved.change_pct is not None else ""))
        if moved.lower_is_better:
            trend = trend.replace("up from", "climbing from")
    # In a founder's words: "Google Trends reports search interest index 82", not the row's keys.
    because = (f"{kinds.source_label(row.source)} reports {kinds.label(row.metric)} {row.value:g} on "
               f"{day_words(row.date)}{trend}: {topic.why}, so "
               f"your store should lead with {said(topic.section)}.")
    diff = (f"The home page leads with {said(topic.section)} instead of {said(current)}."
            if current and current != topic.section else f"The home page leads with {said(topic.section)}.")
    change = sign({"product_id": product_id, "surface": surface, "requested": requested, "lead": topic.section,
                   "source_row": source_row, "evidence": evidence_fingerprint(product_id), "reversible": True,
                   "issued_at": iso(utcnow())})
    proposal = {"surface": surface, "requested": requested, "because": because, "source_row": source_row, "diff": diff,
                "lead": topic.section, "reversible": True, "intent_change": change}
    return {"status": "proposed", "because": because, "source_row": source_row, "proposal": proposal}


def _topic_of(requested: str) -> Topic:
    named = _LEAD_WITH.search(requested)
    if named:
        word = (named.group(1) or named.group(2)).lower()
        if sections.named(word) in _BY_SECTION:  # the founder's word for a section (services/store/sections.py)
            return _BY_SECTION[sections.named(word)]
        if word not in ("it", "this", "that", "them", "what", "something"):
            raise Refused("unknown_section", f"Your store has no section called {word[:40]!r} to lead with. It can "
                                             f"lead with: {', '.join(map(said, SECTIONS))}.")
    words = re.findall(r"[a-z-]+", requested.lower())
    for word in words:  # the first topic the request mentions
        for topic in TOPICS:
            if word in topic.words:
                return topic
    raise Refused("no_row_justifies_this", "We can only propose what dated evidence supports: ask to lead with "
                                           "demand, the price, reviews, questions, shipping, the guarantee or the "
                                           "benefits.")


def _justifying_row(product_id: str, topic: Topic):
    """(row, its series' movement, falling series passed over) for the newest dated row inside
    the evidence gate's window whose metric can back the topic (services/evidence_kinds.py);
    a demand series whose newest reading is falling justifies nothing. (None, None, [...])
    when no row does."""
    cutoff = (utcnow() - timedelta(days=get_settings().evidence_max_age_days)).date()
    rows = list(Evidence.select(Evidence.id, Evidence.date, Evidence.source, Evidence.metric, Evidence.value)
                .where(Evidence.product == product_id, Evidence.date >= cutoff)
                .order_by(Evidence.date.desc(), Evidence.id.desc()))
    values: dict[str, list[float]] = {}
    for row in rows:
        values.setdefault(row.metric, []).append(row.value)
    backing = {m for m, vs in values.items() if set(kinds.roles_of(m, vs)) & set(topic.roles)}
    series = kinds.series(r for r in rows if r.metric in backing)
    falling = []
    for row in rows:  # newest first
        if row.metric not in backing:
            continue
        moved = kinds.classify(row.metric, series[(row.source, row.metric)])
        if kinds.DEMAND in topic.roles and moved.direction == kinds.FALLING:
            if all(f.metric != moved.metric or f.newest.source != moved.newest.source for f in falling):
                falling.append(moved)
            continue
        return row, moved, falling
    return None, None, falling


def evidence_fingerprint(product_id: str) -> str:
    """A digest of the product's evidence rows: it changes when a row arrives, goes or changes."""
    rows = (Evidence.select(Evidence.id, Evidence.date, Evidence.metric, Evidence.value)
            .where(Evidence.product == product_id).order_by(Evidence.id).tuples())
    return hashlib.sha256(json.dumps([[i, d.isoformat(), m, v] for i, d, m, v in rows]).encode()).hexdigest()[:32]


def _canonical(value):
    """The value with every number as a float: a browser echoes 50.0 as 50, and the
    signature must still hold for the same proposal."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def _digest(change: dict) -> str:
    body = json.dumps(_canonical({k: v for k, v in change.items() if k != "signature"}), sort_keys=True,
                      separators=(",", ":"))
    return hmac.new(get_settings().secret_key.encode(), body.encode(), hashlib.sha256).hexdigest()


def sign(change: dict) -> dict:
    return {**change, "signature": _digest(change)}


def signed(change) -> bool:
    """Whether `change` is a proposal's intent_change exactly as the service made it."""
    return (isinstance(change, dict) and isinstance(change.get("signature"), str)
            and hmac.compare_digest(change["signature"], _digest(change)))


def _ads_refusal(product_id: str) -> None:
    """Ads is a surface (decisions.md "Surfaces and sections"), but what an intent can propose
    today is the store's lead: before the ad is written that is `not_started` (issue 51.4), after
    it the ad's words are changed on Growth (POST /api/growth/edit, /api/ad/edit)."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        raise Refused("not_started", "Your ad has not been written yet: it is written once your store is built, and "
                                     "your store has not been built yet. Build it first; nothing was proposed.")
    ad = Ad.get_or_none(Ad.product == product_id)
    if ad is None or ad.owner != store.owner:
        raise Refused("not_started", "Your ad has not been written yet, so there is nothing in it to change. It is "
                                     "written once your store is built; open Growth to see it when it is ready. "
                                     "Nothing was proposed.")
    raise Refused("no_row_justifies_this", "Store intents propose what your home page leads with; your ad's words are "
                                           "changed on Growth (edit the ad, or ask for a change there). Nothing was "
                                           "proposed.")


def current_lead(product_id: str) -> str | None:
    newest = latest(product_id)
    return newest.document.get("lead") if newest else None


# --- Apply, order, revert ----------------------------------------------------------------------

def _built_store(product_id: str) -> Store:
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0:
        raise Refused("not_started")
    return store


def start_apply(*, product_id: str, change, confirm: bool) -> tuple[Job, int]:
    """Checks an echoed proposal and starts writing it as a new version."""
    if not signed(change) or change.get("product_id") != product_id:
        raise Refused("no_proposal_echoed")
    store = _built_store(product_id)
    if change.get("evidence") != evidence_fingerprint(product_id):
        raise Refused("stale_proposal")
    if not change.get("reversible") and not confirm:
        raise Refused("irreversible_without_confirmation")
    if builds.busy(product_id):
        raise Refused("build_in_progress")
    previous = current_lead(product_id)
    if previous == change["lead"]:
        raise Refused("nothing_to_apply", f"Your store already leads with {said(previous)}.")
    with transaction():
        intent = StoreIntent.create(store=product_id, surface=change["surface"], requested=change["requested"],
                                    change=change, lead=change["lead"], previous_lead=previous or "hero",
                                    reversible=bool(change.get("reversible")), base_version=store.draft)
        job, _ = create_job(kind=CHANGE, subject=builds.subject(product_id),
                            payload={"product_id": product_id, "action": "apply", "intent_id": intent.id})
    return job, intent.id


def start_order(*, product_id: str, section: str) -> Job | None:
    """Starts writing a version that leads with `section` (None: it already does)."""
    if section not in SECTIONS:
        # The section's name, as a client sends it (the screen's list offers only these).
        raise Refused("unknown_section", f"Your store has no section called {section[:40]!r}. It can lead with: "
                                         f"{', '.join(SECTIONS)}.")
    _built_store(product_id)
    if current_lead(product_id) == section:
        return None
    if builds.busy(product_id):
        raise Refused("build_in_progress")
    with transaction():
        job, _ = create_job(kind=CHANGE, subject=builds.subject(product_id),
                            payload={"product_id": product_id, "action": "order", "lead": section})
    return job


def last_applied(product_id: str) -> StoreIntent | None:
    """The newest applied intent the draft still carries: applied on the draft's line of
    versions and not reverted on it. Undo and redo move the draft along that line, so this is
    what the version being edited shows: a step back past the apply leaves nothing to undo,
    a step back past the revert puts the intent back, and a rebuild (made from the draft, its
    changes put back) still carries it."""
    line = lineage(product_id, _built_store(product_id).draft)
    try:
        applied = list(StoreIntent.select().where(StoreIntent.store == product_id, StoreIntent.version.in_(line))
                       .order_by(StoreIntent.version.desc(), StoreIntent.id.desc()))
    except ValueError:  # a row whose change is not JSON: the book cannot be read
        raise Refused("intents_book_unreadable") from None
    for intent in applied:
        if intent.reverted_version is None:
            # Reverted before reverts named their version: reverted on every line.
            reverted_here = intent.status == StoreIntent.REVERTED
        else:
            reverted_here = intent.reverted_version in line
        if not reverted_here:
            return intent
    return None


def start_revert(*, product_id: str) -> tuple[Job, int]:
    """Starts undoing the newest applied intent the draft carries (keeping every change made since)."""
    store = _built_store(product_id)
    intent = last_applied(product_id)
    if intent is None:
        raise Refused("nothing_to_revert", f"Version {store.draft}, the one you are editing, carries no applied "
                                           "change to undo.")
    if not intent.reversible:
        raise Refused("nothing_to_revert", "The last change applied to your store cannot be undone.")
    lead = current_lead(product_id)
    if lead != intent.lead:
        raise Refused("nothing_to_revert", f"Your store leads with {said(lead)} now, not with {said(intent.lead)} as "
                                           "the last change you applied set it, so that change is no longer in "
                                           "force. Step back to undo your own changes.")
    if builds.busy(product_id):
        raise Refused("build_in_progress")
    with transaction():
        job, _ = create_job(kind=CHANGE, subject=builds.subject(product_id),
                            payload={"product_id": product_id, "action": "revert", "intent_id": intent.id})
    return job, intent.id


def run(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The store_change job: writes the version an apply, an order or a revert asked for."""
    product_id, action = payload["product_id"], payload["action"]
    stage("rendering")
    current = latest(product_id)
    if current is None:
        raise JobFailed("not_started")
    with (fenced() if fenced else transaction()):
        if action == "revert":
            intent = StoreIntent.get_by_id(payload["intent_id"])
            if intent.reverted_version in lineage(product_id, current.number):  # this job ran already
                return {"product_id": product_id, "reverted": intent.id, "version": intent.reverted_version,
                        "already": True}
            if last_applied(product_id) != intent or current.document.get("lead") != intent.lead:
                # The draft moved since the founder asked (a step back, another change): what
                # they asked to undo is not what the version being edited shows now.
                return {"product_id": product_id, "revert_failed": intent.id, "newer_version": current.number}
            if current.number == intent.version:
                before = document_of(product_id, intent.base_version)  # nothing since: the exact document
            else:
                # Changes since (an edit, a rebuild) stay: only the leading section goes back.
                before = with_lead(current.document, intent.previous_lead)
            number = write_version(product_id, before, summary=f"Reverted: {intent.requested[:200]}", by_founder=True)
            StoreIntent.update(status=StoreIntent.REVERTED, reverted_at=utcnow(), reverted_version=number).where(
                StoreIntent.id == intent.id).execute()
            return {"product_id": product_id, "reverted": intent.id, "version": number}
        if action == "apply":
            intent = StoreIntent.get_by_id(payload["intent_id"])
            if intent.version is not None:
                return {"product_id": product_id, "applied": intent.id, "version": intent.version, "already": True}
            number = write_version(product_id, with_lead(current.document, intent.lead),
                                   summary=f"Applied: {intent.requested[:200]} (leads with {said(intent.lead)})",
                                   by_founder=True)
            StoreIntent.update(version=number).where(StoreIntent.id == intent.id).execute()
            return {"product_id": product_id, "applied": intent.id, "version": number}
        number = write_version(product_id, with_lead(current.document, payload["lead"]),
                               summary=f"Leads with {said(payload['lead'])}", by_founder=True)
        return {"product_id": product_id, "ordered": payload["lead"], "version": number}


def _finished(job_id: str, *, raised: str) -> Job:
    """Waits for a change job; a failed one is refused with `raised` (500)."""
    done = wait_for_job(job_id, seconds=WAIT_SECONDS)
    if done is not None and done.status == Job.FAILED:
        raise Refused(raised)
    return done


def apply_result(job_id: str, intent_id: int, product_id: str) -> dict:
    """POST /api/intent/apply's answer once its job has run (or the wait ran out)."""
    done = _finished(job_id, raised="apply_build_raised")
    intent = StoreIntent.get_by_id(intent_id)
    answer = {"status": "applied" if intent.version else "applying", "product_id": product_id, "lead": intent.lead,
              "intent_id": intent.id, "version": intent.version}
    return answer if intent.version else {**answer, "job_id": done.id}


def order_result(job_id: str | None, section: str) -> dict:
    """POST /api/intent/order's answer (no job: the store already led with the section)."""
    if job_id is None:
        return {"status": "ordered", "lead": section, "version": None}
    done = _finished(job_id, raised="order_build_raised")
    if done.status != Job.DONE:
        return {"status": "ordering", "lead": section, "version": None, "job_id": done.id}
    return {"status": "ordered", "lead": section, "version": done.result["version"]}


def revert_result(job_id: str, intent_id: int, product_id: str) -> dict:
    """POST /api/intent/revert's answer: reverted, revert_failed, or reverting while the job runs."""
    done = _finished(job_id, raised="revert_build_raised")
    intent = StoreIntent.get_by_id(intent_id)
    base = {"product_id": product_id, "reverted_from": {
        "surface": intent.surface, "lead": intent.lead,
        "diff": f"The home page led with {said(intent.lead)} instead of {said(intent.previous_lead)}."}}
    if done.status != Job.DONE:
        return {**base, "status": "reverting", "version": None, "job_id": done.id}
    if "revert_failed" in (done.result or {}):
        return {**base, "status": "revert_failed", "version": None,
                "explanation": f"Your store changed while the undo waited (you are editing version "
                               f"{done.result['newer_version']} now), so nothing was undone. Look at that version "
                               "and undo again if it still carries the change."}
    return {**base, "status": "reverted", "version": done.result.get("version")}
