"""Generated pages (spec 4.7 POST /api/pages; decisions.md "Pages"): services/pages.py.
Served under /store/p/<id> with the storefront's escaping and content security policy."""
from flask import make_response
from marshmallow import Schema, fields

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services import pages
from services.store import render

bp = Blueprint("pages", __name__, description="Pages written for the founder's store.")

DECISIONS: list[str] = [
    "POST /api/pages {intent} (session) writes a page for the founder's product through the AI seam (the "
    "`page_copy` kind; the offline writer uses the store's own facts only and promises nothing they do not say): "
    "the intent's words pick a landing page (landing, sales page, product page, home page), a returns, shipping "
    "or privacy policy, or an FAQ. 200 {status: ok, page_id, url: /store/p/<page_id>, kind, title, draft, needs, "
    "guest_id?}. "
    f"Blank or missing intent: 400 `no_page_intent`; over {pages.MAX_INTENT} characters: 400 `message_too_long`; "
    "words naming none of those pages: 200 `unknown_page`; the product gone from the catalog while its page was "
    "being written: 200 `no_product`; the AI "
    "backend unreachable or failing: 200 `cli_unavailable` / `cli_failed` (nothing kept). The page is written in "
    f"a `page_copy` job that the request waits on (up to {pages.WAIT_SECONDS} s), as every AI task: an "
    "unreachable backend is tried again (3 runs in all, 2 s and 10 s apart) before `cli_unavailable`, and a "
    "second delivery of the job keeps the page the first wrote. Not metered: spec 8.1's buckets do not include "
    "it (see POST /api/intent).",
    "With nothing held or claimed (a guest, or a founder between products; likewise a held product no longer in "
    "the catalog) POST /api/pages, and POST /api/intent {message} asking for a page, still write the page, as a "
    "draft for the founder to fill (issue 51): from the kind the words ask for and the business facts the owner "
    "has, its business name and the policies it stated in Settings (return window and free returns, shipping "
    "days, where it ships, its guarantee: the same sentences the store and the assistant say), never the AI's "
    "words, since there is nothing to write from. A draft names no product, quotes no price and promises nothing "
    "the founder did not state; its intro says it is a draft, and each missing fact reads “To fill in: "
    "…”. It is answered `draft: true` and `needs`, the facts it still lacks, in this order: " + ", ".join(
        f"`{code}` ({said})" for code, said in pages.NEEDS.items()) + ". A page written from a product answers "
    "`draft: false, needs: []`. A draft is owned, listed (with `draft` and `needs`), served and adopted on sign-in "
    "like any page; writing the page again once the facts are there gives a new, complete page. A draft's served "
    "page carries <meta name=\"robots\" content=\"noindex\">: search engines are not asked to index a page that "
    "still says \"To fill in\".",
    "A generated page is a public store page, so it addresses the buyer and tells none of the founder's research: "
    "no search, view or mention counts, no best-seller rank, no review or listing counts of other listings, no "
    "research source. Of the evidence a landing page says at most what it backs in a shopper's words, under "
    "'Popular right now', the line the public store's evidence section shows ('Shoppers are looking for "
    "<product>.', 'More and more shoppers are looking for <product>.' when a demand series rises), and only while "
    "a demand series that is not falling, and not low on its metric's published scale, backs it; otherwise it has "
    "no such section. Whichever backend writes it, a sentence is backed by the product record, the price and the "
    "business only, so one quoting a figure of the evidence rows is dropped like an invented one.",
    "A generated page is owned like every founder row: by the account of a signed-in session, else by the "
    "session, a guest. A guest's pages carry its guest id (32 hex characters, one per guest, answered as "
    "`guest_id` with each page it makes and by GET /api/pages; a keyed digest of the guest's session, so first "
    "pages written at once carry the same one). POST /api/auth/request-link takes it as optional "
    "`guestId` (a string; one that is not a minted id is ignored, and a non-string is 400 `invalid_request` like any mistyped field); the sign-in token keeps it, and redeeming the link upgrades "
    "the guest's pages that no account owns yet to the link's account when the link is opened in the guest's own "
    "browser (spec 4.2), with the rest of that browser's journey. A guest id passed by another browser moves "
    "nothing: anyone can ask for a link to any address, so a link never plants another browser's pages into an "
    "account. The guest id is a bearer secret like the page id: only the guest is told it.",
    "GET /api/pages (session) lists the owner's pages, newest first (at most "
    f"{pages.MAX_LISTED}): 200 {{status: ok, pages: [{{page_id, url, kind, title, intent, created_at}}], "
    "guest_id}}; another founder's pages are never listed.",
    "GET /store/p/<page_id> is public to whoever has the URL (the id is secrets.token_hex(16), 128 random bits, "
    "so it cannot be guessed; a founder shares the link), like a published store page: no cookie read or issued, "
    "everything autoescaped, the store pages' preview Content-Security-Policy (no script at all), X-Frame-Options "
    "DENY. An unknown id: 404 `not_found` (JSON, as every unknown path).",
    "A generated page at /store/p/<id> is written to pass Fix's audit as the store's pages are (issue 48): its "
    "title within 60 characters with the business's name where it fits, a search description from its intro, its "
    "canonical address, a link preview with the product's picture, the business as Organization data, and what "
    "it is about as structured data: a landing page the store's Product (its published version's, out of stock "
    "while the product is paused or retired), an FAQ page its questions (FAQPage); a policy page states no "
    "product. Structured data is never run, and no <, > or & survives in it.",
]


class PageBody(Schema):
    intent = fields.String(load_default=None, allow_none=True, metadata={
        "reason": "no_page_intent", "pattern": bounds.NOT_BLANK, "maxLength": pages.MAX_INTENT})

    # Missing, null or blank all answer no_page_intent (services/pages.checked_intent).
    BODY_RULES = {"required": ["intent"], "properties": {"intent": {"nullable": False}}}


class PageAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    page_id = fields.String(required=True)
    url = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": list(pages.Page.KINDS)})
    title = fields.String(required=True)
    guest_id = fields.String(metadata={"description": "The guest's id, when no account owns the page"})
    draft = fields.Boolean(required=True, metadata={
        "description": "True when the page was written with no product: a draft for the founder to fill"})
    needs = fields.List(fields.String(metadata={"enum": list(pages.NEEDS)}), required=True, metadata={
        "description": "What a draft still lacks (empty for a page written from a product)"})


class PageRow(Schema):
    page_id = fields.String(required=True)
    url = fields.String(required=True)
    kind = fields.String(required=True)
    title = fields.String(required=True)
    intent = fields.String(required=True)
    created_at = fields.String(required=True)
    draft = fields.Boolean(required=True)
    needs = fields.List(fields.String(metadata={"enum": list(pages.NEEDS)}), required=True)


class PagesAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    pages = fields.List(fields.Nested(PageRow), required=True)
    guest_id = fields.String(required=True, allow_none=True)


@bp.post("/api/pages")
@bp.declare(changes_state=True, refuses={400: ["no_page_intent", "message_too_long"],
                                         200: ["unknown_page", "no_product", "cli_unavailable", "cli_failed"]})
@bp.arguments(PageBody)
@bp.response(200, PageAnswer)
def create_page(body):
    """Writes a page for the founder's store from what they ask for (landing, returns, shipping, privacy, FAQ)."""
    job = pages.start(session=current_session(), intent=body["intent"])
    send_all([job])
    return pages.result(job.id)


@bp.get("/api/pages")
@bp.declare(changes_state=False)
@bp.response(200, PagesAnswer)
def list_pages():
    """The founder's generated pages, newest first."""
    return pages.mine(session=current_session())


@bp.get("/store/p/<page_id>")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, {"type": "string", "description": "A generated page"}, content_type="text/html")
def show_page(page_id):
    """A generated page, public to whoever has its address."""
    response = make_response(pages.render(page_id))
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Content-Security-Policy"] = render.PREVIEW_CSP
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "public, max-age=60"
    return response
