"""The support desk (spec 2.14, 4.6, 4.7; decisions.md "Desk, tasks and settings"): GET and
POST /api/helpdesk and POST /api/settings/rules; services/desk/."""
from marshmallow import Schema, fields

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from config import get_settings
from services import business
from services.desk import inbound, public, rules, tickets
from services.discovery import resolve
from services.ownership import owner_of

bp = Blueprint("helpdesk", __name__, description="The support desk: customers' mail as tickets, and keyword rules.")

DECISIONS: list[str] = [
    "Inbound mail: customers write to the founder's support address, support_email_local @ the domain connected to "
    "the store of a product they claimed (GET /api/settings/business). The service reads a Maildir folder "
    "(INBOUND_MAILDIR, default var/inbound: what is in new/ is unread, and is moved to cur/ once read) or, when "
    "IMAP_URL is set, an IMAP mailbox (its UNSEEN messages, fetched without marking them, and flagged \\Seen only "
    "after their tickets are committed). A message goes to each founder whose support address is among its To, "
    "Cc, Delivered-To or X-Original-To recipients; mail for no founder's address is given to nobody (the poll "
    "counts it as unrouted).",
    "Threading and exactly once: a message whose In-Reply-To or References names a message of one of the "
    "founder's tickets (the customer's earlier mail, or one of our replies) joins that ticket and opens it again; "
    "anything else is a new ticket (subject, customer_email: the From address, never Reply-To, the text part, else "
    "the HTML's text). The desk, and the agent in auto mode, answer the From address: a Reply-To naming someone "
    "else is ignored, so a stranger's mail cannot make the store write to a third party. A message is kept under "
    "its sender and its Message-ID (a digest of its bytes when it has none), unique per founder in the database: "
    "however many polls overlap, each message is on the desk once, and a Message-ID another sender used first does "
    "not make a customer's mail a duplicate.",
    "Polling: the clock starts the `mail_poll` job every MAIL_POLL_SECONDS (60), one at a time (a worker runs it; "
    "`make run` has one), so mail is on the desk within about that long of arriving. GET /api/helpdesk reads what "
    "the polls filed and never reads the mailbox itself: `mail` says when the latest poll finished (`checked_at`), "
    "whether it read the mailbox within the last two periods (`checked`) and the period (`every_seconds`). A "
    "mailbox that cannot be read is tried again at the next poll; its password is never logged.",
    "GET /api/helpdesk (session) answers 200 always: {status: ok, tickets, counts: {open, pending, solved, "
    "closed}, total, support_email, rules, mail: {checked, checked_at, every_seconds}} with the founder's tickets, the latest changed "
    f"first ({tickets.LISTED} at most), or {{status: no_tickets_yet, reason, explanation, tickets: [], counts, "
    "total: 0, ...}. A ticket: {id, subject, customer_email, customer_name, status: open | pending | solved | "
    "closed, priority: low | normal | high | urgent, category: question | order | shipping | return | billing | "
    "other, messages: [{id, direction: in | out | note | draft, author: customer | founder | agent, from, to, "
    "subject, text, created_at, message_id, sent}], resolution, satisfaction, product_id, support_address, "
    "created_at, updated_at}. A new ticket is open, normal, question, before the keyword rules.",
    "POST /api/helpdesk {action: set, ticket_id, field, value, resolution?} sets status, priority or category "
    "(another field: 400 `bad_field`; a value the field does not take: 400 `invalid_ticket_value`); status solved "
    "or closed needs a non-blank resolution (400 `resolution_required`, at most "
    f"{tickets.MAX_RESOLUTION} characters), kept on the ticket. {{action: reply, ticket_id, text}} mails the reply "
    "to the customer (From the service's address with the business name, Reply-To the store's support address, "
    "a Message-ID at the support domain, In-Reply-To the customer's last message, References the thread) and "
    "keeps it on the thread with `sent` (whether the mailer took it); an open ticket becomes pending. "
    "{action: note, ticket_id, text} keeps a note only the founder sees. Blank text: 400 `empty_reply` / "
    f"`empty_note`; over {tickets.MAX_TEXT} characters: 400 `text_too_long`. {{action: draft, ticket_id}} asks the "
    "support agent for a draft reply (metered `support`: 429 usage_limit_reached / weekly_limit_reached). Another "
    "action: 400 `unknown_action`; a ticket_id that is not one of the founder's tickets (another founder's alike): "
    "400 `ticket_not_found`. Answers {status: updated | replied | noted | drafted, ticket, message?, draft?}.",
    "POST /api/settings/rules {op: add, keyword, set: {category?, priority?, status?}} adds a keyword rule "
    f"(keyword 1-{rules.MAX_KEYWORD} characters; status open or pending only, since solving needs a resolution; "
    f"at most {rules.MAX_RULES} rules) and {{op: delete, id}} deletes one (not one of the founder's: 404 "
    "`not_found`); a bad keyword, set or id is 400 `invalid_rule` with `field`, another op 400 `unknown_op`. "
    "Answers {status: added | deleted, rules, rule}. A rule matches a new ticket whose subject or text contains "
    "its keyword (case-insensitive) and sets what it names, once, when the ticket is made; oldest rule first, so "
    "a newer rule's value stands. Messages joining a ticket are not matched again.",
    "Tickets, their messages and rules are the founder's (session, or account once signed in; a session's become "
    "the account's on sign-in). Another founder's are never answered or changed.",
    f"GET /api/helpdesk also answers public_questions: {{share (the percent of the support allowance visitors' "
    f"questions may use, as set), days: {public.SHOWN_DAYS}, answered, from_earlier, turned_away}}: the questions "
    "visitors asked POST /api/support about the founder's published stores over the last 7 days (UTC, today "
    "included), answered (from_earlier of them from an answer kept before, at no cost) and turned away as "
    "support_busy. Counted in the database per store and day when each is answered or turned away; a store's "
    "counts follow its owner.",
    "A ticket's `order` (issue 50) is the founder's customer order it is about, or null: first the order whose "
    "number (the id's first 8 characters, as the receipt shows, or the whole id) a customer message or the "
    "subject names, as a whole word in any case (`matched_by: number`); else the latest paid (else latest) order "
    "placed with the address the customer wrote from, compared without case (`matched_by: sender`). Only orders "
    "of stores the founder owns are looked at: another founder's number or customer matches nothing. {order_id, "
    "number, matched_by, status: open | paid | failed | expired, status_words, product_id, product_name, "
    "quantity, amount_minor, currency, total, created_at, paid_at}; looked up again on every answer, nothing "
    "stored. The agent answers an order question with the status as the order row holds it, never a delivery "
    "the service has no record of. A draft answers the backed parts of the latest customer message; the parts it "
    "cannot back are written in the same transaction as one note (direction note, author agent), one line "
    "\"Left for you: <part>\" each, and the draft answer has `left: [part]` (also on a repeated press, read from "
    "that note). No part backed: refused `not_in_store_facts`, nothing written. Auto mode with parts left mails "
    "the backed parts with a sentence saying the rest follows, writes the same note and leaves the ticket open.",
]


class MessageRow(Schema):
    id = fields.Integer(required=True)
    direction = fields.String(required=True, metadata={"enum": ["in", "out", "note", "draft"]})
    author = fields.String(required=True, metadata={"enum": ["customer", "founder", "agent"]})
    from_ = fields.String(attribute="from", data_key="from", required=True, allow_none=True)
    to = fields.String(required=True, allow_none=True)
    subject = fields.String(required=True, allow_none=True)
    text = fields.String(required=True)
    created_at = fields.String(required=True)
    message_id = fields.String(required=True, allow_none=True, metadata={"description": "RFC 5322 Message-ID"})
    sent = fields.Boolean(required=True, allow_none=True, metadata={"description": "Replies: the mailer took it"})


class TicketOrder(Schema):
    order_id = fields.String(required=True)
    number = fields.String(required=True, metadata={"description": "The order's number as the customer's receipt shows it"})
    matched_by = fields.String(required=True, metadata={"enum": ["number", "sender"], "description": (
        "number: the customer's mail names it; sender: the latest order placed with the address the mail came from")})
    status = fields.String(required=True, metadata={"enum": ["open", "paid", "failed", "expired"]})
    status_words = fields.String(required=True)
    product_id = fields.String(required=True)
    product_name = fields.String(required=True, allow_none=True)
    quantity = fields.Integer(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    total = fields.String(required=True, metadata={"description": "The amount as people read it"})
    created_at = fields.String(required=True)
    paid_at = fields.String(required=True, allow_none=True)


class TicketRow(Schema):
    id = fields.Integer(required=True)
    subject = fields.String(required=True)
    customer_email = fields.String(required=True)
    customer_name = fields.String(required=True, allow_none=True)
    status = fields.String(required=True, metadata={"enum": ["open", "pending", "solved", "closed"]})
    priority = fields.String(required=True, metadata={"enum": ["low", "normal", "high", "urgent"]})
    category = fields.String(required=True, metadata={"enum": ["question", "order", "shipping", "return", "billing",
                                                               "other"]})
    messages = fields.List(fields.Nested(MessageRow), required=True)
    resolution = fields.String(required=True, allow_none=True)
    satisfaction = fields.Dict(required=True, allow_none=True, metadata={"description": "{score, comment, rated_at}"})
    product_id = fields.String(required=True, allow_none=True)
    support_address = fields.String(required=True)
    order = fields.Nested(TicketOrder, required=True, allow_none=True, metadata={
        "description": "The founder's customer order the ticket is about, or null"})
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class Counts(Schema):
    open = fields.Integer(required=True)
    pending = fields.Integer(required=True)
    solved = fields.Integer(required=True)
    closed = fields.Integer(required=True)


class RuleRow(Schema):
    id = fields.Integer(required=True)
    keyword = fields.String(required=True)
    set = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    created_at = fields.String(required=True)


class MailState(Schema):
    checked = fields.Boolean(required=True, metadata={
        "description": "The latest poll read the mailbox, within the last two polling periods"})
    checked_at = fields.String(required=True, allow_none=True, metadata={
        "description": "When the latest poll finished (null before the first)"})
    every_seconds = fields.Integer(required=True, metadata={"description": "How often the mailbox is polled"})


class PublicQuestions(Schema):
    share = fields.Integer(required=True, metadata={"description": "Percent of the support allowance visitors may use"})
    days = fields.Integer(required=True, metadata={"description": "The days counted, today included"})
    answered = fields.Integer(required=True)
    from_earlier = fields.Integer(required=True, metadata={"description": "Answered from a kept answer, at no cost"})
    turned_away = fields.Integer(required=True)


class HelpdeskAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "no_tickets_yet"]})
    reason = fields.String()
    explanation = fields.String()
    tickets = fields.List(fields.Nested(TicketRow), required=True)
    counts = fields.Nested(Counts, required=True)
    total = fields.Integer(required=True)
    support_email = fields.String(required=True, allow_none=True,
                                  metadata={"description": "Where customers write (null until it is set up)"})
    rules = fields.List(fields.Nested(RuleRow), required=True)
    mail = fields.Nested(MailState, required=True)
    public_questions = fields.Nested(PublicQuestions, required=True,
                                     metadata={"description": "Visitors' questions to your stores' support agent"})


class ActionBody(Schema):
    action = fields.String(metadata={"reason": "unknown_action", "enum": list(tickets.ACTIONS)})
    ticket_id = fields.Integer(strict=True, metadata={"reason": "ticket_not_found"})
    field = fields.String(metadata={"reason": "bad_field", "enum": list(tickets.SETTABLE)})
    value = fields.String(metadata={"reason": "invalid_ticket_value"})
    resolution = fields.String(allow_none=True, metadata={"reason": "resolution_required"})
    text = fields.String(allow_none=True, metadata={"description": "reply and note"})


class ActionAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["updated", "replied", "noted", "drafted"]})
    ticket = fields.Nested(TicketRow, required=True)
    message = fields.Nested(MessageRow, metadata={"description": "reply and note: the message kept"})
    draft = fields.Dict(metadata={"description": "draft: what the support agent wrote"})


class RulesBody(Schema):
    op = fields.String(metadata={"reason": "unknown_op", "enum": list(rules.OPS)})
    # The service counts the keyword with its spaces collapsed (services/desk/rules._keyword), so
    # the bound is declared as that count: a maxLength on the raw text would call a padded
    # keyword that collapses within the limit too long (the fuzzer sent one, the service took it).
    keyword = fields.String(metadata={
        "reason": "invalid_rule", "description": f"At most {rules.MAX_KEYWORD} characters once runs of spaces are one",
        "pattern": bounds.collapsed_at_most(rules.MAX_KEYWORD)})
    set = fields.Dict(keys=fields.String(), values=fields.String(), metadata={"reason": "invalid_rule"})
    id = fields.Integer(strict=True, metadata={"reason": "invalid_rule"})

    # add takes a keyword and what it sets (services/desk/rules.change); delete names a rule.
    BODY_RULES = {"anyOf": [
        {"required": ["op", "keyword", "set"], "properties": {
            "op": {"enum": ["add"]},
            "keyword": {"type": "string", "pattern": bounds.SHOWN_WORDS},
            "set": {"type": "object", "minProperties": 1, "additionalProperties": False,
                    "properties": {name: {"type": "string", "enum": list(values)}
                                   for name, values in rules.SETTABLE.items()}}}},
        {"required": ["op", "id"], "properties": {"op": {"enum": ["delete"]}}},
    ]}


class RulesAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["added", "deleted"]})
    rules = fields.List(fields.Nested(RuleRow), required=True)
    rule = fields.Nested(RuleRow, allow_none=True, required=True)


@bp.get("/api/helpdesk")
@bp.declare(changes_state=False)
@bp.response(200, HelpdeskAnswer)
def helpdesk():
    """Answers the founder's tickets with counts by status, and when the mail was last polled."""
    session = current_session()
    support_email = business.support_address(owner_of(session), resolve(session))
    answer = tickets.desk(session=session, support_email=support_email)
    return {**answer, "rules": rules.rules_of(session=session)["rules"],
            "mail": inbound.mail_state(every_seconds=get_settings().mail_poll_seconds),
            "public_questions": public.summary(owner_of(session))}


@bp.post("/api/helpdesk")
@bp.declare(changes_state=True, refuses={
    400: ["unknown_action", "ticket_not_found", "bad_field", "invalid_ticket_value", "resolution_required",
          "empty_reply", "empty_note", "text_too_long"],
    # A draft the agent could not back, or could not write (services/desk/agent.py); nothing is charged.
    200: ["not_in_store_facts", "no_query_terms", "cli_unavailable", "cli_failed"],
    409: ["not_started"],
    429: ["usage_limit_reached", "weekly_limit_reached"]})
@bp.arguments(ActionBody)
@bp.response(200, ActionAnswer)
def helpdesk_act(body):
    """Sets a field of a ticket, replies to its customer, adds a note or drafts a reply."""
    return tickets.act(session=current_session(), action=body.get("action"), ticket_id=body.get("ticket_id"),
                       field=body.get("field"), value=body.get("value"), resolution=body.get("resolution"),
                       text=body.get("text"))


@bp.post("/api/settings/rules")
@bp.declare(changes_state=True, refuses={400: ["unknown_op", "invalid_rule"], 404: ["not_found"]})
@bp.arguments(RulesBody)
@bp.response(200, RulesAnswer)
def rules_change(body):
    """Adds or deletes a keyword rule of the support desk."""
    return rules.change(session=current_session(), op=body.get("op"), keyword=body.get("keyword"),
                        sets=body.get("set"), rule_id=body.get("id"))
