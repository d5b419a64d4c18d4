"""Organic research (issue 24, part C; decisions.md "Growth"): researched, unpaid campaigns per
platform for the founder's product, each post idea citing the facts behind it, and the
founder's approvals of a campaign or a post idea. Nothing is ever posted anywhere.

Research is the `organic_research` kind of AI task (registered here; its schema, offline
writer and finish are in organic_writer.py), written for the session's resolved product
(claimed first, then its live hold) from the store's facts: the product record, its dated
evidence and the offer. Like every AI task it runs in a job (`organic_research`), which the
route waits on as the store editor's does: a backend that cannot be reached is tried again
under the seam's one retry policy (services/ai_tasks.py), and when the tries are spent, or
the backend fails, the founder is told (200 cli_unavailable / cli_failed, nothing kept).
What it answered is kept (a research row and a row per campaign) so a campaign or a post
idea can be approved later.
"""
from __future__ import annotations

import secrets

import peewee as pw

from integrations import ai
from models.clock import iso
from models.db import transaction
from models.job import Job
from models.organic import OrganicApproval, OrganicCampaign, OrganicResearch
from models.session import Session
from services import ai_facts, ai_tasks
from services import evidence_kinds as kinds
from services.discovery import resolve
from services.errors import Refused
from services.growth import organic_writer as writer
from services.growth.organic_writer import DEFAULT_PLATFORMS, KIND, PLATFORM_NAMES, PLATFORMS
from services.jobs import create_job
from services.money import display_major
from services.ownership import adopter, owner_of
from services.store import facts as store_facts

__all__ = ["DEFAULT_PLATFORMS", "KIND", "MAX_LOG", "MAX_QUERY", "PLATFORMS", "adopt_organic", "approvals",
           "approve", "result", "run", "start"]

MAX_QUERY = 500  # characters of a question (trimmed); longer is 400 query_too_long
MAX_LOG = 200  # approvals the log lists, newest first
WAIT_SECONDS = 60  # how long the route waits on its job (as the store editor's)
OK, APPROVED = "ok", "approved"

ai.register(ai.Kind(KIND, writer.ORGANIC_RESEARCH, writer.ASKS, offline=writer.write, finish=writer.finish))

_NAMED = ", ".join(PLATFORM_NAMES[p] for p in PLATFORMS[:-1]) + f" or {PLATFORM_NAMES[PLATFORMS[-1]]}"


def platforms_of(named) -> list[str]:
    """The platforms asked for, each once in the order given (DEFAULT_PLATFORMS when none are);
    an unknown one, or a value that is not a list of names, is refused."""
    if named is None or named == []:
        return list(DEFAULT_PLATFORMS)
    if not isinstance(named, list) or not all(isinstance(p, str) for p in named):
        raise Refused("invalid_platform", f"Name the platforms to research as a list: {_NAMED}.")
    chosen = []
    for name in named:
        platform = name.strip().lower()
        if platform not in PLATFORMS:
            raise Refused("invalid_platform", f"Organic research covers {_NAMED}; "
                                              f"{name.strip()[:40]!r} is not one of them. Nothing was researched.",
                          platforms=list(PLATFORMS))
        if platform not in chosen:
            chosen.append(platform)
    return chosen


def start(*, session: Session, query: str | None, platforms=None) -> Job:
    """Checks the question and the platforms and creates the research job (sent after commit
    by the route, which then waits on `result`)."""
    text = " ".join((query or "").split())
    if not text:
        raise Refused("no_question", "Type what you want to reach people with, for example \"gift ideas for "
                                     "the holidays\" or \"a morning routine\".")
    if len(text) > MAX_QUERY:
        raise Refused("query_too_long", f"A research question may be at most {MAX_QUERY} characters; yours has "
                                        f"{len(text)}. Ask something shorter; nothing was researched.")
    chosen = platforms_of(platforms)
    resolved = resolve(session)
    if resolved is None or store_facts.load(resolved.product_id) is None:
        raise Refused("no_product", "Organic research is written for your product: find one and hold or claim it "
                                    "first. Nothing was researched.")
    owner = owner_of(session)
    with transaction():
        # Each question is its own job (a founder may ask two at once): the subject is unique.
        job, _created = create_job(kind=KIND, subject=f"organic:{owner.key}:{secrets.token_hex(8)}",
                                   max_attempts=ai_tasks.ATTEMPTS,
                                   payload={"session_id": owner.session_id, "account_id": owner.account_id,
                                            "product_id": resolved.product_id, "query": text, "platforms": chosen})
    return job


def run(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The research job: writes the campaigns through the AI seam and keeps them ({research_id}),
    or {refused: ...} for `result` to raise. An unreachable backend is retried (ai_tasks)."""
    if payload.get("research_id"):  # written by an earlier delivery of this job
        return {"research_id": payload["research_id"]}
    facts = store_facts.load(payload["product_id"])
    if facts is None:
        return {"refused": {"reason": "no_product", "explanation": "Your product is no longer in the catalog, so "
                                                                   "nothing was researched."}}
    stage("writing")
    known = ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                               statements=facts.statements)
    task = ai.Task(kind=KIND, facts=known, instructions=writer.instructions_for(payload["query"], payload["platforms"]))
    try:
        answer = ai_tasks.write(task)
    except ai.AIError:
        return {"refused": {"reason": "cli_failed", "explanation": "The research assistant did not finish, so "
                                                                   "nothing was researched. Try again."}}
    with (fenced() if fenced else transaction()):
        row = OrganicResearch.create(id=secrets.token_hex(16), session=payload["session_id"],
                                     account=payload["account_id"], product=payload["product_id"],
                                     query=payload["query"], platforms=payload["platforms"],
                                     backend=answer.backend, dropped=len(answer.dropped))
        for n, found in enumerate(answer.copy["campaigns"]):
            _kept(row, n, found)
    return {"research_id": row.id}


def result(job_id: str) -> dict:
    """POST /api/organic/research's answer once its job finished; a refusal is raised."""
    outcome = ai_tasks.finished(
        job_id, seconds=WAIT_SECONDS,
        unavailable="The research assistant cannot be reached right now, so nothing was researched. Try again in "
                    "a moment.",
        failed="The research assistant did not finish in time, so nothing was researched. Try again.")
    row = OrganicResearch.get_by_id(outcome["research_id"])
    campaigns = OrganicCampaign.select().where(OrganicCampaign.research == row.id).order_by(OrganicCampaign.position)
    return {"status": OK, "research_id": row.id, "query": row.query, "product_id": row.product_id,
            "posted": False, "platforms": row.platforms, "campaigns": [campaign_answer(c, currency=facts_currency(row.product_id)) for c in campaigns],
            "dropped": row.dropped, "created_at": iso(row.created_at)}


def _kept(row: OrganicResearch, position: int, found: dict) -> OrganicCampaign:
    campaign_id = secrets.token_hex(16)
    posts = [{"id": f"{campaign_id[:12]}-{n + 1}", **post} for n, post in enumerate(found["posts"])]
    return OrganicCampaign.create(id=campaign_id, research=row.id, position=position, platform=found["platform"],
                                  angle=found["angle"], posts=posts)


def facts_currency(product_id: str | None) -> str | None:
    """The currency the product's prices are in (None when it is gone from the catalog)."""
    facts = store_facts.load(product_id) if product_id else None
    return facts.product.get("currency") if facts is not None else None


def campaign_answer(row: OrganicCampaign, *, currency: str | None = None) -> dict:
    """A kept campaign as the founder reads it: each cite with its words, and the sources cited."""
    posts = [{**post, "cites": [{**cite, "label": cite_label(cite, currency=currency)} for cite in post["cites"]]}
             for post in row.posts]
    return {"id": row.id, "platform": row.platform, "platform_name": PLATFORM_NAMES[row.platform],
            "angle": row.angle, "posts": posts, "sources": sources_of(row.posts)}


def cite_label(cite: dict, *, currency: str | None = None) -> str:
    """A cite in a founder's words: "Your product's price: $34.99", "Google Trends, search interest index: 41 (2026-08-16)"."""
    value = cite.get("value")
    if cite["kind"] == "product" and cite.get("field") == "price" and currency and _is_number(value):
        return f"Your product's price: {display_major(value, currency)}"
    whole = isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()
    shown = f"{int(value):,}" if whole and cite["kind"] == "evidence" else str(value)
    if cite["kind"] == "product":
        return f"Your product's {cite['field']}: {shown[:120]}"
    return f"{_source_name(cite['source'])}, {kinds.label(cite['metric'])}: {shown} ({cite['date']})"


def _is_number(value) -> bool:
    if isinstance(value, bool):
        return False
    try:
        float(value)
        return True
    except (TypeError, ValueError):
        return False


def _source_name(source: str) -> str:
    return kinds.source_label(source) or "Research"


def sources_of(posts: list[dict]) -> list[dict]:
    """What a campaign's post ideas rest on: the product record's fields, and each evidence source with its dates."""
    fields, by_source = [], {}
    for cite in (c for post in posts for c in post["cites"]):
        if cite["kind"] == "product":
            fields += [cite["field"]] if cite["field"] not in fields else []
        else:
            dates = by_source.setdefault(cite["source"], [])
            dates += [cite["date"]] if cite["date"] not in dates else []
    found = [{"kind": "product", "name": "Your product's record", "fields": fields}] if fields else []
    return found + [{"kind": "evidence", "source": source, "name": _source_name(source), "dates": sorted(dates)}
                    for source, dates in sorted(by_source.items())]


# --- Approvals -----------------------------------------------------------------------------

def approve(*, session: Session, campaign_id: str, platform: str, scope: str, post_id: str | None) -> dict:
    """Records the founder's approval of one of their campaigns or of one of its post ideas, once."""
    if scope not in OrganicApproval.SCOPES:
        raise Refused("invalid_scope", "Approve a whole campaign or one of its post ideas; nothing was approved.")
    if scope == OrganicApproval.POST and not post_id:
        raise Refused("invalid_scope", "Approving a post idea names the post; nothing was approved.")
    if scope == OrganicApproval.CAMPAIGN and post_id:
        raise Refused("invalid_scope", "A whole campaign's approval names no post idea; approve the post on its "
                                       "own instead. Nothing was approved.")
    owner = owner_of(session)
    # Another founder's campaign reads exactly as one that does not exist.
    campaign = (OrganicCampaign.select(OrganicCampaign, OrganicResearch).join(OrganicResearch)
                .where(OrganicCampaign.id == campaign_id, owner.owns(OrganicResearch)).first())
    if campaign is None:
        raise Refused("not_found", "None of your organic research has that campaign; nothing was approved.")
    if platform != campaign.platform:
        raise Refused("invalid_platform", f"That campaign is for {PLATFORM_NAMES[campaign.platform]}; nothing was "
                                          "approved.", platform=campaign.platform)
    post = None
    if scope == OrganicApproval.POST:
        post = next((p for p in campaign.posts if p["id"] == post_id), None)
        if post is None:
            raise Refused("not_found", "That campaign has no such post idea; nothing was approved.")
    fields = dict(campaign=campaign.id, session=owner.session_id, account=owner.account_id, scope=scope,
                  post_id=post_id or "", platform=campaign.platform, angle=campaign.angle,
                  format=post["format"] if post else None, text=post["text"] if post else None)
    # The unique index decides: of two approvals of the same thing, however close, one row is
    # recorded and the other reads it back as already approved.
    try:
        with transaction():
            row, already = OrganicApproval.create(**fields), False
    except pw.IntegrityError:
        row, already = OrganicApproval.get(OrganicApproval.campaign == campaign.id, OrganicApproval.scope == scope,
                                           OrganicApproval.post_id == (post_id or "")), True
    return {"status": APPROVED, "already_approved": already, "posted": False,
            "approval": approval_answer(row, campaign.research)}


def approval_answer(row: OrganicApproval, research: OrganicResearch) -> dict:
    """An approval as the log lists it: what was approved, as it read then."""
    return {"id": row.id, "research_id": research.id, "query": research.query, "product_id": research.product_id,
            "campaign_id": row.campaign_id, "platform": row.platform, "platform_name": PLATFORM_NAMES[row.platform],
            "scope": row.scope, "post_id": row.post_id or None, "angle": row.angle, "format": row.format,
            "text": row.text, "approved_at": iso(row.approved_at)}


def approvals(*, session: Session) -> dict:
    """The founder's approvals, newest first (at most MAX_LOG)."""
    rows = (OrganicApproval.select(OrganicApproval, OrganicCampaign, OrganicResearch)
            .join(OrganicCampaign).join(OrganicResearch)
            .where(owner_of(session).owns(OrganicApproval))
            .order_by(OrganicApproval.approved_at.desc(), OrganicApproval.id.desc()).limit(MAX_LOG))
    return {"status": OK, "approvals": [approval_answer(row, row.campaign.research) for row in rows]}


def _organic_held(session_id: int) -> list[str]:
    def mine(model):
        return model.select().where(model.session == session_id, model.account.is_null()).count()

    researched, approved = mine(OrganicResearch), mine(OrganicApproval)
    lines = []
    if researched:
        lines.append(f"{researched} organic campaign research{'' if researched == 1 else 'es'}")
    if approved:
        lines.append(f"{approved} organic post approval{'' if approved == 1 else 's'}")
    return lines


@adopter(kind="organic", held=_organic_held)
def adopt_organic(session_id: int, account_id: int) -> dict:
    """A session's organic research and approvals become its account's."""
    for model in (OrganicResearch, OrganicApproval):
        model.update(account=account_id).where(model.session == session_id, model.account.is_null()).execute()
    return {}
