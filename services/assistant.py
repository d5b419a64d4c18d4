"""The commerce assistant (spec 4.7 POST /api/intent with `message`; decisions.md "Commerce
assistant"): a founder's sentence is routed through the AI seam (the `assistant_route` kind;
the offline backend reads it with keyword rules over the app's screens) to one of three
answers: `navigate` to a screen of the app, `answer` a question from the service's own data
(the figures computed here, never by the AI, and cited), or `page`, a generated page
(services/pages.py). The AI only chooses; what is said and linked is the service's.

The reading runs in a job (`assistant_route`) that the route waits on, like every AI task
(services/ai_tasks.py); a page is then written by the page's own job (services/pages.py)."""
from __future__ import annotations

import re
import secrets

from integrations import ai
from integrations.ai.schemas import record
from integrations.ai.task import Facts, Task
from models.db import transaction
from models.discovery import Claim
from models.job import Job
from models.payment import CustomerOrder, RevenueTotal
from models.research import Research
from models.session import Session
from services import ai_tasks, assistant_answers, pages, suppliers
from services.catalog import OWN_PRODUCT_PREFIX
from services.discovery import resolve
from services.errors import Refused
from services.jobs import create_job
from services.money import display, display_major
from services.ownership import owner_of
from services.store import facts as store_facts
from services.store.own import name_of

KIND = "assistant_route"  # the AI task and the job that reads the sentence
MAX_MESSAGE = 2000
WAIT_SECONDS = 60  # how long the route waits on the job (as organic research's)
_FAILED = "The assistant did not finish reading that, so nothing was done. Try again."
NAVIGATE, ANSWER, PAGE = "navigate", "answer", "page"
QUESTIONS = ("orders", "revenue", "price", "product", *assistant_answers.QUESTIONS, "help")

# The app's screens (api/static/app/main.js ROUTES) and the words that name each, checked in order.
SCREENS = (
    ("/app/orders", r"orders?|purchases|customers?"),
    ("/app/desk", r"desk|support|tickets?|inbox|emails?"),
    ("/app/tasks", r"tasks?|to-?dos?|checklist"),
    ("/app/settings", r"settings|preferences|business name"),
    ("/app/suppliers", r"suppliers?|samples?|sourcing"),
    ("/app/domains", r"domains?"),
    ("/app/growth", r"growth|ads?|adverts?|campaigns?|marketing"),
    ("/app/research", r"research"),
    ("/app/insights", r"insights?|analytics|metrics|stats"),
    ("/app/workspace", r"workspace|notes|shortlist"),
    ("/app/learn", r"learn|lessons?|guides?"),
    ("/app/fix", r"fix|repair|audit"),
    ("/app/meter", r"meter|credits?|usage|limits?"),
    ("/app/account", r"account|sign ?in|log ?in"),
    ("/app/launch", r"launch"),
    ("/app/edit", r"edit(or)?"),
    ("/app/offer", r"offer|pricing"),
    ("/app/dashboard", r"dashboard|verdict"),
    ("/app/store", r"store|shop|storefront|website|site"),
    ("/app/find", r"find|feed|discover|browse|new products?"),
    ("/app/product", r"product"),
    ("/app/home", r"home|start"),
)
ROUTES = tuple(route for route, _words in SCREENS)
_SCREEN_WORDS = [(route, re.compile(rf"\b(?:{words})\b", re.I)) for route, words in SCREENS]
_MAKE_PAGE = re.compile(r"\b(make|create|write|generate|draft|build|add|need)\b.*\b(page|policy|faq|faqs)\b", re.I)
_QUESTION = re.compile(r"^\s*(how|what|what's|whats|when|which|who|where|why|do|does|did|is|are|am|have|has|"
                       r"should|can|any|tell me)\b|\?\s*$", re.I)
_ASKS = (
    ("orders", re.compile(r"\borders?\b|\bsold\b|\bsales\b|\bsell anything\b", re.I)),
    ("revenue", re.compile(r"\brevenue\b|\bearn(ed|ings)?\b|\bmade\b|\bincome\b|\bmoney\b", re.I)),
    ("price", re.compile(r"\bprice\b|\bcharge\b|\bcost\b|\bsell (it|for)\b|\bmargin\b|\bprofit\b", re.I)),
    ("product", re.compile(r"\bproduct\b|\bselling\b", re.I)),
)

ROUTE_SCHEMA = record({
    "kind": {"type": "string", "enum": [NAVIGATE, ANSWER, PAGE]},
    "route": {"type": "string", "enum": [*ROUTES, ""], "description": "navigate: the app's screen"},
    "question": {"type": "string", "enum": [*QUESTIONS, ""], "description": "answer: what is asked about"},
})
ASKS_ROUTE = ("Say what the founder's message asks for: a screen of the app to go to (kind navigate, with its "
              "route), a question about their next step, profit, visitors, ads, verdict, orders, revenue, price, "
              "product, return policy (returns), shipping time (shipping), where they ship (ships_to) or guarantee "
              "(kind answer, with the question), "
              "or a page to write for their store (kind page).")


def read_message(message: str) -> dict:
    """The offline reading of a message: keyword rules over the app's screens."""
    if _MAKE_PAGE.search(message) and pages.page_kind(message):
        return {"kind": PAGE, "route": "", "question": ""}
    topic = assistant_answers.asked(message)
    if topic == "next_step" or (topic and _QUESTION.search(message)):
        return {"kind": ANSWER, "route": "", "question": topic}
    if _QUESTION.search(message):
        for question, words in _ASKS:
            if words.search(message):
                return {"kind": ANSWER, "route": "", "question": question}
    for route, words in _SCREEN_WORDS:
        if words.search(message):
            return {"kind": NAVIGATE, "route": route, "question": ""}
    for question, words in _ASKS:
        if words.search(message):
            return {"kind": ANSWER, "route": "", "question": question}
    if topic:
        return {"kind": ANSWER, "route": "", "question": topic}
    return {"kind": ANSWER, "route": "", "question": "help"}


ai.register(ai.Kind(KIND, ROUTE_SCHEMA, ASKS_ROUTE, offline=lambda task: read_message(task.instructions),
                    finish=ai.as_written))


def checked_message(message) -> str:
    text = " ".join(str(message or "").split())
    if not text:
        raise Refused("no_message", "Your message was empty. Say what you want to see, know or make.")
    if len(text) > MAX_MESSAGE:
        raise Refused("message_too_long", f"Say it in at most {MAX_MESSAGE} characters.")
    return text


def start(*, session: Session, message) -> Job:
    """Checks the sentence and creates the job that reads it (sent after commit by the route,
    which then waits on `choice`)."""
    text = checked_message(message)
    with transaction():
        # Each sentence is its own job (two tabs may ask at once): the subject is unique.
        job, _created = create_job(kind=KIND, subject=f"assistant:{owner_of(session).key}:{secrets.token_hex(8)}",
                                   max_attempts=ai_tasks.ATTEMPTS, payload={"message": text})
    return job


def run(payload: dict, *, stage=lambda name: None) -> dict:
    """The job: what the AI reads the sentence as ({choice: {kind, route, question}}); it
    writes nothing, so a second delivery only reads it again."""
    stage("reading")
    try:
        chosen = ai_tasks.write(Task(kind=KIND, facts=Facts(product={}, evidence=[], offer=None),
                                     instructions=payload["message"])).copy
    except ai.AIError:
        return {"refused": {"reason": "cli_failed", "explanation": _FAILED}}
    return {"choice": chosen}


def choice(job_id: str) -> dict:
    """What the sentence asks for once its job finished ({kind, route, question}); a refusal is raised."""
    return ai_tasks.finished(job_id, seconds=WAIT_SECONDS, failed=_FAILED,
                             unavailable="The assistant cannot be reached right now. Try again in a moment.")["choice"]


def wants_page(chosen: dict) -> bool:
    return chosen["kind"] == PAGE


def answer(*, session: Session, chosen: dict) -> dict:
    """The assistant's answer to a sentence read as a screen or a question: the route, or what
    the founder's own data says with the rows it read (computed here, never by the AI)."""
    if chosen["kind"] == NAVIGATE and chosen["route"] in ROUTES:
        return {"status": "ok", "kind": NAVIGATE, "route": "#" + chosen["route"]}
    said, cites = ANSWERS.get(chosen["question"], _help)(session)
    if chosen["question"] == "next_step":  # a button to where the step is done, as navigate answers carry
        return {"status": "ok", "kind": ANSWER, "answer": said, "cites": cites, "route": cites[0]["route"]}
    if chosen["question"] in assistant_answers.POLICY_SAID and not cites[0]["stated"]:
        # Nothing stated yet: a button to Settings, where the founder states it.
        return {"status": "ok", "kind": ANSWER, "answer": said, "cites": cites, "route": cites[0]["route"]}
    return {"status": "ok", "kind": ANSWER, "answer": said, "cites": cites}


def page_answer(made: dict) -> dict:
    """The assistant's answer once the page a sentence asked for was written (services/pages.py)."""
    said = f"I wrote your page \u201c{made['title']}\u201d."
    if made.get("draft"):
        # Written with no product (services/pages.draft): say what it still lacks.
        needed = [pages.NEEDS[need] for need in made.get("needs", []) if need in pages.NEEDS]
        said = (f"I wrote a draft of your page \u201c{made['title']}\u201d from what you have told me so far; it "
                "states nothing else." + (f" Fill in {_listed(needed)}, then ask again." if needed else ""))
    return {"status": "ok", "kind": PAGE, "page_id": made["page_id"], "url": made["url"], "title": made["title"],
            "draft": bool(made.get("draft")), "needs": list(made.get("needs", [])),
            **({"guest_id": made["guest_id"]} if "guest_id" in made else {}), "answer": said}


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else "; ".join(words[:-1]) + "; and " + words[-1]


def _owned_products(session: Session):
    return Claim.select(Claim.product).where(owner_of(session).owns(Claim))


def _orders(session: Session) -> tuple[str, list[dict]]:
    """An order is what a customer paid for, as the Orders screen counts it; a checkout still
    awaiting payment is said apart."""
    query = CustomerOrder.select().where(CustomerOrder.product.in_(_owned_products(session)))
    paid = query.where(CustomerOrder.state == CustomerOrder.PAID).count()
    waiting = query.where(CustomerOrder.state == CustomerOrder.OPEN).count()
    said = (f"You have {paid} paid order{'s' if paid != 1 else ''}." if paid
            else "You have no orders yet: no customer has paid for one in your store.")
    if waiting:
        said += (f" {waiting} checkout{'s are' if waiting != 1 else ' is'} open, awaiting payment: "
                 f"{'they are' if waiting != 1 else 'it is'} not an order until paid.")
    return said, [{"kind": "orders", "count": paid, "open_checkouts": waiting, "route": "#/app/orders"}]


def _revenue(session: Session) -> tuple[str, list[dict]]:
    rows = list(RevenueTotal.select().where(RevenueTotal.product.in_(_owned_products(session))))
    if not rows:
        return "No revenue is confirmed yet: no order has been paid.", [{"kind": "revenue", "stores": 0,
                                                                          "route": "#/app/orders"}]
    parts = [f"{display(row.confirmed_minor, row.currency)} from {row.orders} paid order{'s' if row.orders != 1 else ''}"
             f" of {name_of(row.product_id) or row.product_id}" for row in rows]
    cites = [{"kind": "revenue", "product_id": row.product_id, "currency": row.currency,
              "confirmed_minor": row.confirmed_minor, "orders": row.orders, "route": "#/app/orders"} for row in rows]
    return "Confirmed revenue: " + "; ".join(parts) + ".", cites


def _facts(session: Session):
    resolved = resolve(session)
    return (resolved, store_facts.load(resolved.product_id)) if resolved is not None else (None, None)


def _no_product() -> tuple[str, list[dict]]:
    return "You have no product yet. Find one and hold or claim it first.", [{"kind": "product", "product_id": None,
                                                                             "route": "#/app/find"}]


def _price(session: Session) -> tuple[str, list[dict]]:
    resolved, found = _facts(session)
    if found is None:
        return _no_product()
    name = found.product.get("name") or resolved.product_id
    currency = str((found.offer or {}).get("currency") or found.product.get("currency") or "")
    source = "offer" if found.offer else "catalog"
    # A founder's own product (or a product whose price they set) sells at their own price,
    # researched or not: never call it the catalog's market price, nor an offer they did not
    # make. The cite says which, so the app need not read the product's id.
    own = resolved.product_id.startswith(OWN_PRODUCT_PREFIX) or "price" in found.own
    said = f"Your price for {name} is {display_major(found.price, currency)}" + (
        " (the price you set)." if own
        else " (your offer)." if found.offer
        else " (the catalog's market price; there is no offer yet).")
    cites = [{"kind": source, "product_id": resolved.product_id, "price": found.price, "currency": currency,
              "own": own, "route": "#/app/offer"}]
    researched = Research.get_or_none(Research.product == resolved.product_id) if found.offer else None
    if researched is not None:
        # The cost and margin the Offer screen shows: priced with the founder's connected supplier.
        offer = suppliers.priced_offer(owner_of(session), resolved.product_id, researched.offer)
        line = offer["supplier"]
        said += f" Each unit costs you {display_major(offer['cost'], currency)}" + (
            f" from your supplier {line['supplier']}." if line and line["used_as_cost"] else ".")
        cites[0].update(cost=offer["cost"], margin_pct=offer["margin_pct"])
    return said, cites


def _product(session: Session) -> tuple[str, list[dict]]:
    resolved, found = _facts(session)
    if found is None:
        return _no_product()
    name = found.product.get("name") or resolved.product_id
    held = "claimed" if resolved.claimed_product_id else "held"
    return f"Your product is {name} ({held}).", [{"kind": "product", "product_id": resolved.product_id,
                                                   "name": name, "route": "#/app/product"}]


def _help(session: Session) -> tuple[str, list[dict]]:
    return (assistant_answers.CANNOT + " I can also take you to a screen (\u201cshow my orders\u201d), answer "
            "about your next step, profit, orders, revenue, visitors, ads, verdict, price or product (\u201chow many orders do I have\u201d), say the return policy, shipping time, shipping area or guarantee you stated (\u201cwhat is my return policy?\u201d), or write a page (\u201cmake a returns policy page\u201d)."
            ), [{"kind": "screens", "routes": ["#" + r for r in ROUTES]}]


ANSWERS = {"orders": _orders, "revenue": _revenue, "price": _price, "product": _product,
           **assistant_answers.ANSWERS, "help": _help}
