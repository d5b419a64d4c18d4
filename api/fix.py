"""Fix, the store-repair tool (spec 2.15, 4.6 fix/event and fix/feedback, 4.7 fix, fix/mine and
fix/adopt; decisions.md "Fix (store repair)"): anyone submits a store address, a `fix_run` job
audits and repairs its pages, and the report is read by the run's token."""
from flask import jsonify, request
from marshmallow import Schema, fields, validate

from api.http import untrusted_bytes
from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services.fix import audit_run, checks, mail, runs, store_repairs
from services.ownership import owner_of

bp = Blueprint("fix", __name__, description="Fix: a store audit that repairs.")

DECISIONS: list[str] = [
    f"POST /api/fix {{url, email?}} is open to anyone (a session cookie is issued as everywhere, so the run is "
    f"listed as the visitor's own): 200 {{status: queued, token, url}}. The address is trimmed, given https:// when "
    f"it has no scheme, and must be an http(s) URL of at most {runs.MAX_URL} characters with a host (400 "
    "`invalid_url`); an address that plainly names an inward host (loopback, private, link-local, metadata, an "
    "odd spelling of one), credentials, or a port other than 80 and 443 is 400 `address_not_public` at once; one "
    "whose name resolves inward fails in the job with the same reason. A malformed email is 400 `invalid_email`. "
    f"A session with {runs.MAX_UNFINISHED} runs queued or running is 429 `fix_runs_busy` until one finishes "
    "(each run reads up to 21 pages of a site and probes its links: a visitor cannot make the service hammer one).",
    "The `fix_run` job moves the run through queued, fetching, auditing, repairing, done (or failed with `reason` "
    "and `explanation`: address_not_public, invalid_url, store_unreachable (no answer, an error status, more than 5 "
    "redirects or 10 s), page_too_large (over 2 MiB) or not_a_web_page (not HTML)). It reads the page and up to "
    f"{audit_run.MAX_EXTRA_PAGES} same-site pages it links to, through a fetcher that connects only to checked public "
    "addresses (README: Fix).",
    "GET /api/fix/mine?token=T answers the decided shape at the top level, {status: ok, token, url, stage, "
    "score_before, score_after, findings}, and beside it `run`, the whole run (those fields and the rest below), "
    "which the Fix screen reads and POST /api/fix/adopt and /api/fix/apply answer too (issue 51.4); an unknown "
    "token is 404 `not_found`. Without a token it "
    f"answers the caller's own runs (the session's, or the account's once signed in), newest first, at most "
    f"{runs.MAX_LISTED}, and `subscriptions`: [{{url, email, follow_up}}], the addresses those runs mail. A run is "
    "{token, url, stage, pages, pages_detail: [{url, status, download}], score_before, score_after (0-100, null "
    "until known; a prediction unless summary.score_after_measured), findings: [{id, check, check_label, severity: "
    "high | medium | low, page, detail, fixed, fix: "
    "{kind: snippet | store_change | store_version, snippet?, where?, how?, draft, what?, before?, after?, "
    "version?} | null}], repaired_in_place (an apply wrote a store version), store_version, apply, summary, "
    "follow_up, created_at, finished_at}.",
    "A run's `summary` (null until it is done, and for a failed run) is what it did, counted and said once: the Fix "
    "screen, the report mail and the follow-up mail show these same numbers and sentences (services/fix/summary.py). "
    "{pages_read, found, repaired, ready, left, score_before, score_after, score_after_measured, built_here, headline, "
    "sentence, "
    "score_sentence}: every finding is in exactly one of repaired (written into the store itself as a new store "
    "version: a store built here, once its owner applied the repairs), ready (a repair is written, a snippet to "
    "copy and the corrected page to download, or for a store built here a change waiting to be applied, but it is "
    "not on the store until someone puts it there) and left (no repair could be written), so found = repaired + "
    "ready + left. score_before is measured on the pages as read. score_after_measured is true only once an apply "
    "wrote a store version and a fresh run of it is done: score_after is then that run's score; otherwise score_after is what the corrected pages score (never below score_before): "
    "the score expected once the repairs are applied, not one the store has. headline is the screen's subtitle "
    "(\"Your store, checked.\", or \"Your store, checked and repaired.\" when repaired > 0); sentence says "
    "the counts in one plain sentence (it never says \"repaired 0\"); score_sentence says the scores, calling "
    "the one after a score only when it was measured (else \"we expect ... once these repairs are on your "
    "store\"), null when there is no score.",
    "GET /api/fix/page?token=T&page=N answers the corrected HTML of page N as an attachment (text/html); an "
    "unknown token or page is 404 `not_found`.",
    "POST /api/fix/adopt {token} attaches the run to the caller (its account when signed in, else its session); "
    "an unknown token is 404 `not_found`. POST /api/account with `fix_token` adopts the same way. On sign-in a "
    "session's runs become its account's.",
    f"POST /api/fix/event and POST /api/fix/feedback take {{token, event, detail?}} with event one of "
    f"{', '.join(runs.EVENTS)} (400 `unknown_event` otherwise, checked before the token; 404 `not_found` for "
    f"an unknown token); detail is kept up to {runs.MAX_DETAIL} characters. 200 {{status: recorded}}. A `feedback` "
    "whose detail asks for no follow-up (\"no follow-up\", \"don't email me\", \"unsubscribe\", ...) also answers "
    "follow_up: false and an explanation, and stops the follow-up mail of every run mailing that address.",
    "A run given an email mails its report once when done, and one follow-up FIX_FOLLOW_UP_DAYS (default 7) after "
    "it (the clock's `fix_follow_ups`, hourly), unless feedback asked for none; both only to an address that asked "
    "for them (issue 44; anyone may type anyone's address). The report goes straight to the signed-in founder's own "
    "verified address (the session's account is verified and its email is the one given). Any other address is "
    "sent, when the run is done, a one-time link instead (GET /api/fix/confirm?token=T, live "
    f"{mail.CONFIRM_HOURS} h; 32 random bytes, only its SHA-256 kept, spent by one conditional UPDATE; the request "
    "log names the path without its query, so the token is never logged); opening it answers 303 to the run's "
    "report on the Fix screen and mails the report, and the follow-up may follow. HEAD never spends it (its "
    "Location says where a GET would go); a spent, expired or unknown link answers 303 to the Fix screen saying so. "
    f"One address is sent at most {mail.CONFIRMATIONS_PER_DAY} such link and {mail.REPORTS_PER_DAY} reports and "
    "follow-ups a day (UTC), counted in the database however many sessions ask: the day's link, and a report to "
    "the founder's own address, are taken when the run is started (so the answer is exact), a report to a "
    "confirmed address or a follow-up when it goes (a follow-up over the bound waits for a later hour). A "
    "run that is refused by the bound mails nothing. Links, reports and follow-ups that the bound lets through "
    "count even when the mailer then refuses the address.",
    f"POST /api/fix and every run answer `mail` (one of {', '.join(mail.ANSWERS)}) and `mail_explanation`, a "
    "sentence for the visitor saying whether the report will be mailed, waits for the address to confirm, or "
    "will not be mailed because of the daily bound. It never names the address (anyone with the run's token "
    "reads the run). Runs started before this rule have mail `none`: nothing more is mailed for them.",
    "A store built by this service (its /store/<slug> address on BASE_URL, or its connected domain) is read from "
    "its published version rather than over the network, and a run writes nothing into it (issue 48.2). Its "
    "findings carry, instead of snippets, what its store document can hold: fix {kind: store_change, what, before, "
    "after} (a product photo at an http: address on a store served over https moves to https: when that address "
    "answers), or fix null with the finding listed apart with why (a link in the About text, the address the "
    "store is served at, a photo with no https copy). The store's owner reads `apply` on the run: {state: offered "
    "| applied | nothing, repairs: [{finding, findings, what, before, after}] (the diff of what applying writes), "
    "apart: [{finding, findings, what, why}] (the same finding on several pages once), version, published, publishing, checking, check_token, undo}; anyone else "
    "reads apply: null. POST /api/fix/apply {token} (the owner only: anyone else, or an unknown token, is 404 "
    "`not_found`; a run not finished is 409 `fix_run_not_done`; a run with nothing the store can hold, or whose "
    "repairs no longer match the store's draft, is 409 `nothing_to_apply`) writes every planned change as one "
    "new store version made from the draft the editor shows (undone like any edit, by the Store screen's step "
    "back), publishes it when the store was live with nothing else waiting to be published, marks the repaired "
    "findings fixed {kind: store_version, version}, and starts a fresh run of the new version (check_token). When "
    "that run is done, the first run's score_after is its measured score (summary.score_after_measured: true). "
    "200 {status: applied, run}; a second apply (or one racing it) answers the same run and writes nothing more.",
    "A store built here is rendered to pass every check (issue 48), so its run reports score_before 100 and no "
    "finding. The product_data check asks for JSON-LD Product only on a page about a product: one that shows a "
    "price and is not a FAQ, shipping, returns, about, contact or policy page (by its FAQPage/AboutPage/ContactPage "
    "data, the last part of its address or its main heading); the first page is asked for an Organization. A "
    "suggested Product states the page's product name and the shop's name (og:site_name, else the part its titles "
    "share) as its brand; a suggested title keeps the shop's name where it fits (services/page_titles.py). Every "
    "snippet repair carries `how`: where it goes on the platform the page was made with, recognised from what its "
    "pages carry (Shopify, WooCommerce or WordPress, Wix, Squarespace, else plain HTML: services/fix/platforms.py), "
    "in words. A repair written but not on the store is shown as a repair ready, never as repaired.",
]

_TOKEN = fields.String(required=True, validate=validate.Length(min=1, max=64), metadata={"description": "The run's token"})


class FixBody(Schema):
    url = fields.String(required=True, validate=validate.Length(min=1, max=runs.MAX_URL),
                        metadata={"reason": "invalid_url", "description": "The store's address, http(s)"})
    email = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=254),
                          metadata={"reason": "invalid_email", "description": "Where to mail the report (optional)"})


_MAIL = fields.String(required=True, metadata={"enum": list(mail.ANSWERS),
                                                "description": "Whether the report will be mailed"})
_MAIL_EXPLANATION = fields.String(required=True, metadata={"description": "The same, in the visitor's words"})


class FixQueued(Schema):
    status = fields.String(required=True, metadata={"enum": ["queued"]})
    token = fields.String(required=True)
    url = fields.String(required=True)
    mail = _MAIL
    mail_explanation = _MAIL_EXPLANATION


class FixFix(Schema):
    kind = fields.String(required=True, metadata={"enum": ["snippet", "store_change", "store_version"]})
    snippet = fields.String()
    where = fields.String()
    how = fields.String(metadata={"description": "Where the repair goes on the platform the page was made with "
                                                 "(Shopify, WooCommerce or WordPress, Wix, Squarespace, else plain "
                                                 "HTML), in words"})
    draft = fields.Boolean()
    value = fields.String()
    version = fields.Integer()
    what = fields.String(metadata={"description": "A store built here: the part of the store the repair changes, "
                                                  "in words"})
    before = fields.String(metadata={"description": "A store built here: its text before the repair"})
    after = fields.String(metadata={"description": "A store built here: its text after the repair"})


class FixFinding(Schema):
    id = fields.String(required=True)
    check = fields.String(required=True, metadata={"enum": list(checks.CHECKS)})
    check_label = fields.String(required=True)
    severity = fields.String(required=True, metadata={"enum": ["high", "medium", "low"]})
    page = fields.String(required=True)
    detail = fields.String(required=True)
    fixed = fields.Boolean(required=True)
    fix = fields.Nested(FixFix, allow_none=True, required=True)


class FixPageDetail(Schema):
    url = fields.String(required=True)
    status = fields.Integer(allow_none=True)
    download = fields.String(allow_none=True, required=True)


class FixSummary(Schema):
    """What a finished run did, counted and said once (services/fix/summary.py)."""
    pages_read = fields.Integer(required=True, metadata={"description": "Pages read and checked"})
    found = fields.Integer(required=True, metadata={"description": "Findings: repaired + ready + left"})
    repaired = fields.Integer(required=True, metadata={
        "description": "Findings repaired in the store itself, written as a new store version (a store built here, "
                       "once its owner applied the repairs)"})
    ready = fields.Integer(required=True, metadata={
        "description": "Findings whose repair is written (a snippet to copy and the corrected page to download, "
                       "or for a store built here a change waiting to be applied) but not on the store until "
                       "someone applies it"})
    left = fields.Integer(required=True, metadata={"description": "Findings no repair could be written for"})
    score_before = fields.Integer(allow_none=True, required=True, metadata={
        "description": "0-100, measured on the pages as they were read"})
    score_after = fields.Integer(allow_none=True, required=True, metadata={
        "description": "0-100: measured on the new store version when score_after_measured, else what the "
                       "corrected pages score, expected once the repairs are applied"})
    score_after_measured = fields.Boolean(required=True, metadata={
        "description": "True only once an apply wrote a store version and a fresh run of it measured "
                       "score_after"})
    built_here = fields.Boolean(required=True, metadata={
        "description": "A store built by this service: its ready repairs are applied in one step by its owner"})
    headline = fields.String(required=True, metadata={
        "description": "The report's subtitle: checked, or checked and repaired when repaired > 0"})
    sentence = fields.String(required=True, metadata={"description": "The counts in one plain sentence"})
    score_sentence = fields.String(allow_none=True, required=True, metadata={
        "description": "The scores in words (the one after called expected unless measured); null without a score"})


class FixApplyRepair(Schema):
    finding = fields.String(required=True, metadata={"description": "The first finding it repairs"})
    findings = fields.List(fields.String(), required=True, metadata={"description": "Every finding it repairs"})
    what = fields.String(required=True, metadata={"description": "The part of the store it changes, in words"})
    before = fields.String(required=True)
    after = fields.String(required=True)


class FixApplyApart(Schema):
    finding = fields.String(required=True, metadata={"description": "The first finding it stands for"})
    findings = fields.List(fields.String(), required=True, metadata={
        "description": "Every finding it stands for (the same finding on several pages is one entry)"})
    what = fields.String(required=True, metadata={"description": "The finding, in a sentence"})
    why = fields.String(required=True, metadata={"description": "Why the store's content cannot hold its repair, "
                                                                "and what the founder can do"})


class FixApply(Schema):
    """What applying the repairs writes into a store built here (its owner only)."""
    state = fields.String(required=True, metadata={"enum": ["offered", "applied", "nothing"]})
    repairs = fields.List(fields.Nested(FixApplyRepair), required=True)
    apart = fields.List(fields.Nested(FixApplyApart), required=True)
    version = fields.Integer(allow_none=True, required=True, metadata={"description": "The version the apply wrote"})
    published = fields.Boolean(required=True, metadata={"description": "Whether that version is the live one"})
    publishing = fields.Boolean(required=True, metadata={"description": "Whether it is being published now"})
    checking = fields.Boolean(required=True, metadata={"description": "Whether the fresh check of that version "
                                                                      "is still running"})
    check_token = fields.String(allow_none=True, required=True, metadata={"description": "The fresh check's run"})
    undo = fields.String(required=True, metadata={"description": "How to undo the apply, in a sentence"})


class FixRunSchema(Schema):
    token = fields.String(required=True)
    url = fields.String(required=True)
    stage = fields.String(required=True, metadata={"enum": list(runs.STAGES)})
    reason = fields.String()
    explanation = fields.String()
    pages = fields.List(fields.String(), required=True)
    pages_detail = fields.List(fields.Nested(FixPageDetail), required=True)
    score_before = fields.Integer(allow_none=True, required=True)
    score_after = fields.Integer(allow_none=True, required=True)
    findings = fields.List(fields.Nested(FixFinding), required=True)
    repaired_in_place = fields.Boolean(required=True)
    store_version = fields.Integer(allow_none=True, required=True)
    apply = fields.Nested(FixApply, allow_none=True, required=True, metadata={
        "description": "For the owner of a store built here, once the run is done: what applying the repairs writes "
                       "(or wrote), what stays apart and why; null otherwise"})
    summary = fields.Nested(FixSummary, allow_none=True, required=True, metadata={
        "description": "What the run did, null until it is done: the screen and the mails show the same"})
    follow_up = fields.Boolean(required=True)
    mail = _MAIL
    mail_explanation = _MAIL_EXPLANATION
    created_at = fields.String(required=True)
    finished_at = fields.String(allow_none=True, required=True)


class FixSubscription(Schema):
    url = fields.String(required=True)
    email = fields.String(required=True)
    follow_up = fields.Boolean(required=True)


class FixMineQuery(Schema):
    token = fields.String(load_default=None, validate=validate.Length(min=1, max=64),
                          metadata={"description": "A run's token"})


# What GET /api/fix/mine?token= answers at the top level (decisions.md "Fix (store repair)").
DECIDED_RUN_FIELDS = ("token", "url", "stage", "score_before", "score_after", "findings")


class FixMineAnswer(Schema):
    """With a token: the decided fields and `run`; without: `runs` and `subscriptions`."""
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    token = fields.String(metadata={"description": "With a token: the run's token"})
    url = fields.String(metadata={"description": "With a token: the address checked"})
    stage = fields.String(metadata={"enum": list(runs.STAGES), "description": "With a token: where the run is"})
    score_before = fields.Integer(allow_none=True, metadata={"description": "With a token: 0-100, null until known"})
    score_after = fields.Integer(allow_none=True, metadata={"description": "With a token: 0-100, null until known"})
    findings = fields.List(fields.Nested(FixFinding), metadata={"description": "With a token: what the run found"})
    run = fields.Nested(FixRunSchema, metadata={"description": "With a token: the whole run (the same fields and "
                                                               "the rest), as adopt and apply answer it"})
    runs = fields.List(fields.Nested(FixRunSchema))
    subscriptions = fields.List(fields.Nested(FixSubscription))


class FixTokenBody(Schema):
    token = _TOKEN


class FixAdopted(Schema):
    status = fields.String(required=True, metadata={"enum": ["adopted"]})
    run = fields.Nested(FixRunSchema, required=True)


class FixApplied(Schema):
    status = fields.String(required=True, metadata={"enum": ["applied"]})
    run = fields.Nested(FixRunSchema, required=True)


class FixEventBody(Schema):
    token = _TOKEN
    event = fields.String(required=True, validate=validate.Length(min=1, max=40),
                          metadata={"reason": "unknown_event", "enum": list(runs.EVENTS)})
    detail = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=20_000),
                           metadata={"description": f"Free text, kept up to {runs.MAX_DETAIL} characters"})


class FixEventAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["recorded"]})
    follow_up = fields.Boolean()
    explanation = fields.String()


class FixPageQuery(Schema):
    token = _TOKEN
    page = fields.Integer(required=True, validate=validate.Range(min=0, max=1000),
                          metadata={"description": "The page's position in the run, from 0"})


@bp.post("/api/fix")
@bp.declare(changes_state=True, refuses={400: ["invalid_url", "address_not_public", "invalid_email"],
                                         429: ["fix_runs_busy"]})
@bp.arguments(FixBody)
@bp.response(200, FixQueued)
def fix_start(body):
    """Queues an audit and repair of the store at `url`; answers the run's token."""
    run, job = runs.start(session=current_session(), url=body["url"], email=body["email"])
    send_all([job])
    said, explanation = mail.said(run)
    return {"status": "queued", "token": run.token, "url": run.url, "mail": said, "mail_explanation": explanation}


class FixConfirmQuery(Schema):
    token = fields.String(load_default="")
    # The token is only ever hashed, and any bad link must redirect like the others.
    ACCEPTS_NUL = True


FIX_SCREEN = "/#/app/fix"


@bp.get("/api/fix/confirm")
@bp.declare(changes_state=False)
@bp.arguments(FixConfirmQuery, location="query")
@bp.response(303, headers={"Location": {"schema": {"type": "string"}}})
def fix_confirm(query):
    """Opens the link mailed to an address to confirm it wants a run's report: the report follows by mail."""
    if request.method == "HEAD":
        run = mail.peek(query["token"])  # a link checker or a preview: nothing is spent
    else:
        confirmed = mail.confirm(query["token"])
        run = confirmed[0] if confirmed else None
        if confirmed:
            send_all([confirmed[1]])
    location = f"{FIX_SCREEN}?token={run.token}" if run else f"{FIX_SCREEN}?link=used"
    # A JSON body, as every answer under /api/ has (a browser follows the Location either way).
    response = jsonify({"status": "moved", "location": location})
    response.status_code = 303
    response.headers["Location"] = location
    return response


@bp.get("/api/fix/mine")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.arguments(FixMineQuery, location="query")
@bp.response(200, FixMineAnswer)
def fix_mine(query):
    """A run by its token, or your own runs and the addresses they mail."""
    if query["token"] is not None:
        run = runs.answer(runs.by_token(query["token"]), viewer=owner_of(current_session()))
        # The decided fields stand at the top level (decisions.md "Fix"); `run` is the whole run,
        # as the Fix screen and POST /api/fix/adopt and apply answer it.
        return {"status": "ok", **{key: run[key] for key in DECIDED_RUN_FIELDS}, "run": run}
    return {"status": "ok", **runs.mine(session=current_session())}


@bp.get("/api/fix/page")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.arguments(FixPageQuery, location="query")
@bp.response(200, {"type": "string", "format": "binary"}, content_type="text/html")
def fix_page(query):
    """The corrected page, to download."""
    html = runs.corrected_page(token=query["token"], position=query["page"])
    # Never rendered by a browser as our page: it is a stranger's HTML.
    return untrusted_bytes(html, content_type="text/html; charset=utf-8", cache_control="private, no-store",
                           Content_Disposition=f'attachment; filename="corrected-page-{query["page"] + 1}.html"')


@bp.post("/api/fix/adopt")
@bp.declare(changes_state=True, refuses={404: ["not_found"]})
@bp.arguments(FixTokenBody)
@bp.response(200, FixAdopted)
def fix_adopt(body):
    """Attaches a run to you (your account when signed in)."""
    session = current_session()
    return {"status": "adopted", "run": runs.answer(runs.adopt(session=session, token=body["token"]),
                                                    viewer=owner_of(session))}


@bp.post("/api/fix/apply")
@bp.declare(changes_state=True, refuses={404: ["not_found"], 409: ["fix_run_not_done", "nothing_to_apply"]})
@bp.arguments(FixTokenBody)
@bp.response(200, FixApplied)
def fix_apply(body):
    """Applies a check's repairs to your store built here: one new version of it."""
    owner = owner_of(current_session())
    run, jobs = store_repairs.apply(run=runs.by_token(body["token"]), owner=owner)
    send_all(jobs)
    return {"status": "applied", "run": runs.answer(run, viewer=owner)}


@bp.post("/api/fix/event")
@bp.declare(changes_state=True, refuses={400: ["unknown_event"], 404: ["not_found"]})
@bp.arguments(FixEventBody)
@bp.response(200, FixEventAnswer)
def fix_event(body):
    """Records what you did with a report."""
    return runs.record_event(token=body["token"], event=body["event"], detail=body["detail"])


@bp.post("/api/fix/feedback")
@bp.declare(changes_state=True, refuses={400: ["unknown_event"], 404: ["not_found"]})
@bp.arguments(FixEventBody)
@bp.response(200, FixEventAnswer)
def fix_feedback(body):
    """Records your feedback on a report (the same events as /api/fix/event)."""
    return runs.record_event(token=body["token"], event=body["event"], detail=body["detail"])

