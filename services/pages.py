"""Generated pages (issue 27; decisions.md "Pages"): POST /api/pages {intent} writes a landing
page, a policy page (returns, shipping, privacy) or an FAQ for the founder's product through
the AI seam (the `page_copy` kind, services/page_copy.py), from the store's own facts, and
keeps it as a row of its owner's, served at /store/p/<id>. Like every AI task it is written
in a job (`page_copy`) that the route waits on (services/ai_tasks.py: an unreachable backend
is tried again, then the founder is told cli_unavailable or cli_failed, nothing kept).

Owner: a bound session's account, else the session, which is a guest: its pages also carry
a guest id (32 hex characters, one per guest, given with its first page and answered with
every page it makes; derived from the session, so first pages written at once agree on it). POST /api/auth/request-link takes it as `guestId` and the sign-in
token carries it (spec 4.2). Redeeming a link upgrades the guest's pages made in the
browser that opens it, with the rest of that browser's journey (the adopter below); a
guest id passed by another browser moves nothing, since anyone can ask for a link to any
address (services/sign_in.py).

With nothing held or claimed (a guest who just arrived, a founder between products) the page
is still written, as a draft (issue 51 point 3): from the business facts the owner has (its
business name, the policies it stated in Settings: services/founder_statements.py) and the
kind its words ask for, never from the AI, which would have nothing to write from. A draft
claims nothing it cannot back (no product, no price, no promise the founder did not state),
says plainly on the page that it is a draft, marks each missing fact "To fill in", and is
answered `draft: true` with the facts it still `needs`.

The page's id is secrets.token_hex(16), 128 random bits: /store/p/<id> is public to whoever
holds the URL (a founder shares it), and only its owner lists its pages.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from config import get_settings
from integrations import ai
from integrations.ai.task import Task
from models.clock import iso
from models.db import transaction
from models.job import Job
from models.launch import ProductLaunch
from models.page import Page
from models.session import Session
from models.store import Store
from services import ai_facts, ai_tasks, business, founder_statements, page_copy
from services.discovery import resolve
from services.errors import Refused
from services.jobs import create_job
from services.ownership import adopter, owner_of
from services.store import facts as store_facts
from services.store import render as store_render
from services.store import versions

ai.register(ai.Kind(page_copy.PAGE_COPY_KIND, page_copy.PAGE_COPY, page_copy.ASKS, offline=page_copy.write_page,
                    finish=page_copy.backed_page))

KIND = page_copy.PAGE_COPY_KIND  # the AI task and the job that writes it
MAX_INTENT = 500
WAIT_SECONDS = 60  # how long the route waits on the page's job (as organic research's)
_FAILED = "The page writer did not finish, so no page was written. Try again."
MAX_LISTED = 100
URL_PREFIX = "/store/p/"
_GUEST_ID = re.compile(r"[0-9a-f]{32}")
# The words that name each kind of page, checked in this order (an FAQ about returns is an FAQ).
_KIND_WORDS = (
    (Page.FAQ, re.compile(r"\bfaqs?\b|\bquestions?\b|\bq ?& ?a\b", re.I)),
    (Page.RETURNS, re.compile(r"\breturns?\b|\brefunds?\b|\bexchanges?\b", re.I)),
    (Page.SHIPPING, re.compile(r"\bship(ping|ped|s)?\b|\bdelivery\b|\bdeliver(ies|ed)?\b|\bpostage\b", re.I)),
    (Page.PRIVACY, re.compile(r"\bprivacy\b|\bpersonal data\b|\bgdpr\b|\bcookies?\b", re.I)),
    (Page.LANDING, re.compile(r"\blanding\b|\bsales page\b|\bproduct page\b|\bhome ?page\b|\bpage for (my|the)\b",
                              re.I)),
)

def page_kind(intent: str) -> str | None:
    """The kind of page the words ask for, or None."""
    for kind, words in _KIND_WORDS:
        if words.search(intent):
            return kind
    return None


def checked_intent(intent) -> str:
    """The intent, trimmed; 400 no_page_intent when blank, message_too_long past MAX_INTENT."""
    text = " ".join(str(intent or "").split())
    if not text:
        raise Refused("no_page_intent")
    if len(text) > MAX_INTENT:
        raise Refused("message_too_long", f"Describe the page in at most {MAX_INTENT} characters.")
    return text


def start(*, session: Session, intent) -> Job:
    """Checks what is asked for and creates the page's job (sent after commit by the route,
    which then waits on `result`). The page's id is drawn here and kept in the job, so a
    second delivery of the job finds the page the first one wrote instead of writing two."""
    intent = checked_intent(intent)
    kind = page_kind(intent)
    if kind is None:
        raise Refused("unknown_page")
    resolved = resolve(session)
    # Nothing held or claimed, or a product no longer in the catalog: a draft from the owner's
    # business facts alone (product_id None), rather than a refusal.
    product_id = resolved.product_id if resolved is not None and store_facts.load(resolved.product_id) else None
    owner = owner_of(session)
    settings = business.settings_of(owner)
    payload = {"page_id": secrets.token_hex(16), "session_id": owner.session_id, "account_id": owner.account_id,
               "kind": kind, "intent": intent, "product_id": product_id,
               "business": {"business_name": settings.get("business_name"),
                            "support_email": business.support_address(owner, resolved)},
               # The policies the owner stated (topic -> sentence), which a draft says and a page
               # about a product gives the writer as facts (the owner's, with or without a store).
               "statements": founder_statements.sentences(founder_statements.of(owner.key))}
    with transaction():
        # Each request is its own page (a founder may ask for two at once): the subject is unique.
        job, _created = create_job(kind=KIND, subject=f"page:{owner.key}:{secrets.token_hex(8)}",
                                   max_attempts=ai_tasks.ATTEMPTS, payload=payload)
    return job


def run(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The page's job: writes it through the AI seam from the product's facts and keeps it
    ({page_id}), or {refused: ...} for `result` to raise. An unreachable backend is retried."""
    if Page.get_or_none(Page.id == payload["page_id"]) is not None:  # an earlier delivery wrote it
        return {"page_id": payload["page_id"]}
    if payload["product_id"] is None:
        stage("writing")
        _keep(payload, draft(payload["kind"], business=payload["business"], statements=payload["statements"]),
              fenced=fenced)
        return {"page_id": payload["page_id"]}
    found = store_facts.load(payload["product_id"])
    if found is None:
        return {"refused": {"reason": "no_product", "explanation": "Your product is no longer in the catalog, so "
                                                                   "no page was written."}}
    stage("writing")
    stated = tuple(payload["statements"].values()) if "statements" in payload else found.statements
    facts = ai_facts.facts_for(product=found.product, evidence=found.evidence, offer=found.offer,
                               business=payload["business"], statements=stated)
    try:
        answer = ai_tasks.write(Task(kind=KIND, facts=facts, instructions=payload["intent"],
                                     current={"page": payload["kind"]}))
    except ai.AIError:
        return {"refused": {"reason": "cli_failed", "explanation": _FAILED}}
    _keep(payload, answer.copy, fenced=fenced)
    return {"page_id": payload["page_id"]}


def _keep(payload: dict, document: dict, *, fenced=None) -> None:
    with (fenced() if fenced else transaction()):
        # The session's account now: one that signed in while the page was written adopted its
        # pages before this one existed, so this one goes to the account at once.
        session = Session.get_by_id(payload["session_id"])
        account_id = session.account_id
        Page.create(id=payload["page_id"], session=session.id, account=account_id,
                    guest_id=None if account_id is not None else _guest_id_of(session),
                    kind=payload["kind"], intent=payload["intent"], product_id=payload["product_id"] or "",
                    title=document["title"], document=document)


# --- A draft: the page written with no product --------------------------------------------

# What a draft may still need, each in the founder's words (the answer's `needs` names them).
NEEDS = {
    "product": "the product it is about (hold or claim one)",
    "business_name": "your business name (Settings)",
    "support_email": "the address customers write to (Settings, with a connected domain)",
    "shipping_days": "how long shipping takes (Settings)",
    "ships_to": "where you ship (Settings)",
    "return_days": "your return window (Settings)",
}
DRAFT_NOTE = ("This page is a draft: it says only what has been stated so far. Fill in each part marked "
              "“To fill in” before you share it.")
_TITLES = {Page.LANDING: "Your store", Page.RETURNS: "Returns and refunds", Page.SHIPPING: "Shipping",
           Page.PRIVACY: "Privacy policy", Page.FAQ: "Frequently asked questions"}


def draft(kind: str, *, business: dict, statements: dict) -> dict:
    """A page written with no product: from the kind asked for, the business's name and
    support address and the policies the founder stated, each missing fact marked "To fill
    in" and listed in `needs`; it names no product, quotes no price and promises nothing
    unstated. Pure, so a second delivery writes the same page."""
    name = " ".join(str(business.get("business_name") or "").split())
    email = " ".join(str(business.get("support_email") or "").split())
    needs: list[str] = []

    def stated(topic: str, need: str, missing: str) -> str:
        if statements.get(topic):
            return statements[topic]
        needs.append(need)
        return "To fill in: " + missing

    def contact(before: str) -> str:
        if email:
            return f"{before} write to us at {email}."
        needs.append("support_email")
        return "To fill in: the address customers write to, set in Settings once a domain is connected."

    def product(missing: str) -> str:
        needs.append("product")
        return "To fill in: " + missing + " Hold or claim a product, then write this page again."

    if kind == Page.SHIPPING:
        sections = [("How long delivery takes", stated("shipping", "shipping_days",
                                                       "how many business days an order takes to arrive.")),
                    ("Where we ship", stated("ships_to", "ships_to", "the countries or regions you ship to.")),
                    ("Questions about delivery", contact("If your order has not arrived,"))]
    elif kind == Page.RETURNS:
        sections = [("Your return window", stated("returns", "return_days",
                                                  "how many days customers have to return an order, and who pays "
                                                  "for sending it back."))]
        if statements.get("guarantee"):
            sections.append(("Our guarantee", statements["guarantee"]))
        sections.append(("Asking for a return", contact("To ask for a return,")))
    elif kind == Page.PRIVACY:
        sections = [("What we keep", "To fill in: what you keep about your customers (an email address, a "
                                     "shipping address, what they ordered) and why."),
                    ("Your choices", contact("To see or delete what we keep about you,"))]
    elif kind == Page.FAQ:
        sections = [("What do you sell?", product("what your product is.")),
                    ("Can I return it?", stated("returns", "return_days", "your return window.")),
                    ("How long does shipping take?", stated("shipping", "shipping_days",
                                                            "how many business days an order takes to arrive.")),
                    ("How do I reach you?", contact("Just"))]
    else:
        sections = [("What we sell", product("what your product is and who it is for.")),
                    ("Price", product("what it costs.")),
                    ("Questions", contact("Anything you want to know before you buy? Just"))]
    if not name:
        needs.append("business_name")
    title = f"{_TITLES.get(kind, _TITLES[Page.LANDING])} (draft)"
    return {"title": title if not name or kind != Page.LANDING else f"{name} (draft)", "intro": DRAFT_NOTE,
            "sections": [{"heading": heading, "body": body} for heading, body in sections],
            "draft": True, "needs": [need for need in NEEDS if need in needs]}


def _draft_of(page: Page) -> dict:
    """{draft, needs} of a page as answered (a page about a product is no draft)."""
    document = page.document if isinstance(page.document, dict) else {}
    return {"draft": bool(document.get("draft")), "needs": list(document.get("needs") or [])}


def result(job_id: str) -> dict:
    """POST /api/pages's answer once the page's job finished; a refusal is raised."""
    outcome = ai_tasks.finished(job_id, seconds=WAIT_SECONDS, failed=_FAILED,
                                unavailable="The page writer cannot be reached right now, so no page was written. "
                                            "Try again in a moment.")
    page = Page.get_by_id(outcome["page_id"])
    answered = {"status": "ok", "page_id": page.id, "url": URL_PREFIX + page.id, "kind": page.kind,
                "title": page.title, **_draft_of(page)}
    if page.guest_id is not None:
        answered["guest_id"] = page.guest_id
    return answered


def _guest_id_of(session: Session) -> str:
    """The guest's id: the one its earlier pages carry, else the one its session is given.

    The id a session is given is a keyed digest of the session (its id and when it began,
    which no later session repeats), not a fresh draw: two first pages of one guest written
    at once (two tabs, two jobs) each find no earlier page, and each must still arrive at the
    same id. Keyed by SECRET_KEY, so nobody can work out a guest's id from anything but the
    guest's own answers."""
    earlier = (Page.select(Page.guest_id).where(Page.session == session.id, Page.account.is_null(),
                                                 Page.guest_id.is_null(False)).first())
    return earlier.guest_id if earlier is not None else _given_guest_id(session)


def _given_guest_id(session: Session) -> str:
    key = hmac.new(get_settings().secret_key.encode(), b"guest-id-v1", hashlib.sha256).digest()
    began = session.created_at.isoformat() if session.created_at else ""
    return hmac.new(key, f"{session.id}:{began}".encode(), hashlib.sha256).hexdigest()[:32]


def mine(*, session: Session) -> dict:
    """GET /api/pages: the owner's pages, newest first."""
    owner = owner_of(session)
    rows = (Page.select().where(owner.owns(Page)).order_by(Page.created_at.desc(), Page.id).limit(MAX_LISTED))
    pages = [{"page_id": row.id, "url": URL_PREFIX + row.id, "kind": row.kind, "title": row.title,
              "intent": row.intent, "created_at": iso(row.created_at), **_draft_of(row)} for row in rows]
    guest = next((row.guest_id for row in rows if row.guest_id and owner.account_id is None), None)
    return {"status": "ok", "pages": pages, "guest_id": guest}


def valid_guest_id(value) -> str | None:
    """A guest id as minted (32 lowercase hex characters), else None."""
    return value if isinstance(value, str) and _GUEST_ID.fullmatch(value) else None


def _pages_held(session_id: int) -> list[str]:
    rows = Page.select(Page.title).where(Page.session == session_id, Page.account.is_null()).order_by(Page.created_at)
    return [f"your page “{row.title}”" for row in rows]


@adopter(kind="pages", held=_pages_held)
def adopt_pages(session_id: int, account_id: int) -> dict:
    """On sign-in, the session's own pages become the account's."""
    where = (Page.session == session_id, Page.account.is_null())
    ids = [row.id for row in Page.select(Page.id).where(*where)]
    Page.update(account=account_id).where(*where).execute()
    return {"pages": ids} if ids else {}


def render(page_id: str) -> str:
    """The page's HTML (autoescaped), or 404 not_found."""
    page = Page.get_or_none(Page.id == page_id) if re.fullmatch(r"[0-9a-f]{32}", page_id or "") else None
    if page is None:
        raise Refused("not_found", "There is no page at this address.")
    document = page.document if isinstance(page.document, dict) else {}
    sections = [{"heading": str(s.get("heading", "")),
                 "paragraphs": [p.strip() for p in str(s.get("body", "")).split("\n\n") if p.strip()]}
                for s in document.get("sections", []) if isinstance(s, dict)]
    settings = get_settings()
    store, shown = _store_of(page.product_id)
    return store_render.render_generated(title=str(document.get("title") or page.title),
                                         intro=str(document.get("intro") or ""), sections=sections, kind=page.kind,
                                         url=settings.base_url.rstrip("/") + URL_PREFIX + page.id, document=shown,
                                         base_path=f"/store/{store.slug}" if store else "", origin=settings.base_url,
                                         on_sale=ProductLaunch.on_sale(page.product_id),
                                         draft=bool(document.get("draft")))


def _store_of(product_id: str):
    """The product's store and the document its pages show (the published version, else the
    latest one): a generated page names the same business and states the same product."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None:
        return None, None
    number = store.published_version or store.version
    return store, versions.document_of(product_id, number) if number else None
