"""The commerce assistant's questions read without a model, and the figures that answer
them (issue 50 point 3): the next step, profit, visitors, the ad balance and campaigns and
the verdict, each computed by the service (the same functions behind GET /api/launch,
/api/tracking, /api/metrics, /api/adbalance, /api/growth/book and /api/dashboard) and cited
in a founder's words; and the business's policy (returns, shipping time, where it ships, the
guarantee) as the founder stated it in Settings (services/founder_statements.py, issue 50
point 2), said to be their own statement, with the way to Settings when they stated none.
services/assistant.py routes a sentence here."""
from __future__ import annotations

import re

from models.session import Session
from services import founder_statements
from services.commerce import orders as commerce_orders
from services.errors import Refused
from services.money import display
from services.ownership import owner_of

# The questions this module answers, with the words that ask them, checked before the
# assistant's older topics (orders, revenue, price, product).
ASKS = (
    ("next_step", re.compile(r"\bnext\b|\bwhat now\b|\bwhere (do|should) i (start|begin)\b|\bwhat should i do\b"
                             r"|\bhow do i (start|begin)\b|\bwhat do i do\b", re.I)),
    ("profit", re.compile(r"\bprofits?\b|\bmargin\b|\bearn(ed|ing)? per\b|\bnet\b", re.I)),
    ("visitors", re.compile(r"\bvisit(ors?|ed|s)?\b|\btraffic\b|\bpeople\b.*\b(store|shop|site)\b|\bviews?\b", re.I)),
    ("ads", re.compile(r"\bad ?balance\b|\bads?\b|\badverts?\b|\bcampaigns?\b|\bbudget\b", re.I)),
    ("verdict", re.compile(r"\bverdict\b|\bshould i sell\b|\bworth (it|selling)\b|\bany good\b|\bgood product\b"
                           r"|\bsell this\b|\bgo or\b", re.I)),
    # The founder's stated policy, after the figures above ("the return on my ads" is about ads).
    ("guarantee", re.compile(r"\bguarantee|\bwarrant(y|ies)\b", re.I)),
    ("returns", re.compile(r"\breturns?\b|\brefunds?\b", re.I)),
    ("shipping", re.compile(r"\b(ship(ping|s|ped)?|deliver(y|ies|ed)?|arrive)\b.*\b(take|long|time|times|days?|fast|"
                            r"quick|soon)\b|\bhow (long|fast|quickly|soon)\b.*\b(ship|deliver|arrive)", re.I)),
    ("ships_to", re.compile(r"\bwhere\b.*\b(ship|deliver)|\b(ship|shipping|deliver|delivery) to\b|\bwhich countries\b"
                            r"|\bship(ping)? (worldwide|abroad|internationally)\b", re.I)),
)
QUESTIONS = tuple(name for name, _words in ASKS)
EXAMPLES = ("\u201cwhat should I do next?\u201d", "\u201cwhat is my profit?\u201d",
            "\u201chow many orders do I have?\u201d")
CANNOT = "I can't answer that yet; try " + ", ".join(EXAMPLES) + "."

# Where each next step is done (services/next_step.py STEPS -> a screen of the app).
STEP_ROUTES = {"find": "#/app/find", "claim": "#/app/product", "research": "#/app/offer",
               "build": "#/app/dashboard", "publish": "#/app/store", "launch": "#/app/launch",
               "live": "#/app/orders", "paused": "#/app/launch", "retired": "#/app/find"}


def asked(message: str) -> str | None:
    for name, words in ASKS:
        if words.search(message):
            return name
    return None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def next_step(session: Session) -> tuple[str, list[dict]]:
    from services.research import answers
    step = answers.launch_facts(session=session)["next_step"]
    route = STEP_ROUTES.get(step["step"], "#/app/home")
    return f"Your next step: {step['says']}", [{"kind": "next_step", "step": step["step"], "route": route,
                                                 "source": "your launch checklist"}]


def profit(session: Session) -> tuple[str, list[dict]]:
    tracked = commerce_orders.tracking(session=session)
    paid = tracked["orders"]
    if not paid:
        return "No profit yet: no customer has paid for an order.", [{"kind": "profit", "orders": 0,
                                                                       "route": "#/app/orders"}]
    counted = [o for o in paid if o["profit_minor"] is not None]
    if not counted:
        return (f"You have {_plural(len(paid), 'paid order')}, but no researched offer to read their cost from, "
                "so their profit is unknown."), [{"kind": "profit", "orders": len(paid), "route": "#/app/offer"}]
    currency = counted[0]["currency"]
    total = sum(o["profit_minor"] for o in counted if o["currency"] == currency)
    each = {o["profit_minor"] for o in counted}
    basis = (f"{_plural(len(counted), 'paid order')} \u00d7 {display(counted[0]['profit_minor'], currency)} each"
             if len(each) == 1 else f"{_plural(len(counted), 'paid order')}")
    return (f"Your profit is {display(total, currency)}: {basis}, at your offer's cost."), [
        {"kind": "profit", "orders": len(counted), "profit_minor": total, "currency": currency,
         "source": "your paid orders and your offer's unit cost", "route": "#/app/orders"}]


def visitors(session: Session) -> tuple[str, list[dict]]:
    from services.store.metrics import metrics
    try:
        seen = metrics(session=session, days=14)
    except Refused:
        return "You have no store yet, so no visitors.", [{"kind": "visitors", "sessions": 0, "route": "#/app/store"}]
    count = seen["sessions"]
    return (f"{_plural(count, 'visitor')} came to your store in the last 14 days "
            f"({_plural(seen['cart'], 'add')} to cart)."), [
        {"kind": "visitors", "sessions": count, "days": 14, "since": seen["since"], "route": "#/app/insights"}]


def ads(session: Session) -> tuple[str, list[dict]]:
    from services.growth import balance, book
    money = balance.balance(session=session)
    said = f"Your ad balance is {display(money['balance_minor'], money['currency'])}."
    campaigns = (book.book(session=session).get("book") or {}).get("campaigns") or []
    running = [c for c in campaigns if (c.get("delivery") or {}).get("state") in RUNNING]
    if not campaigns:
        said += " You have no ad campaigns yet."
    else:
        said += " " + "; ".join(f"{c.get('name') or 'A campaign'} is {_campaign_state(c)}" for c in campaigns) + "."
    return said, [{"kind": "ads", "balance_minor": money["balance_minor"], "currency": money["currency"],
                   "campaigns": len(campaigns), "running": len(running), "route": "#/app/growth"}]


RUNNING = ("running", "starting")


def _campaign_state(campaign: dict) -> str:
    """A campaign's state in words: its delivery's when it was started, else its book status."""
    delivery = campaign.get("delivery") or {}
    if delivery.get("state") in RUNNING:
        return "running" if delivery["state"] == "running" else "starting"
    if delivery.get("paused_because"):
        return f"paused by the service ({delivery['paused_because']})"
    return {"draft": "a draft, not running", "paused": "paused"}.get(str(campaign.get("status")),
                                                                    f"not running ({campaign.get('status')})")


def verdict(session: Session) -> tuple[str, list[dict]]:
    from services.research import answers
    found, _jobs = answers.dashboard(session=session)
    if not isinstance(found, answers.Verdict):
        return ("There is no verdict yet: claim a product and let its offer be researched."), [
            {"kind": "verdict", "verdict": None, "route": "#/app/dashboard"}]
    body = found.body()
    words = {"go": "sell it", "test_small": "test it small first", "pass": "pass on it"}
    said = f"The verdict is {words.get(body['verdict'], body['verdict'])}: {body['because']}"
    return said, [{"kind": "verdict", "verdict": body["verdict"], "rule": body["rule"], "route": "#/app/dashboard"}]


# What each policy question reads of the founder's statements (founder_statements.sentences
# topics), and how the answer names it when none is stated.
POLICY_SAID = {"returns": ("return policy", "a return window"), "shipping": ("shipping time", "how long shipping takes"),
               "ships_to": ("shipping area", "where you ship"), "guarantee": ("guarantee", "a guarantee")}


def _policy(topic: str):
    def answer(session: Session) -> tuple[str, list[dict]]:
        called, missing = POLICY_SAID[topic]
        stated = founder_statements.sentences(founder_statements.of(owner_of(session).key)).get(topic)
        cite = {"kind": "policy", "topic": topic, "stated": stated is not None, "source": "your business settings",
                "route": "#/app/settings"}
        if stated is None:
            return f"You have not stated {missing} yet; set it in Settings.", [cite]
        # The founder's own word, said as theirs: no catalog record or research backs a policy.
        return (f"Your {called}, as you stated it in Settings: {stated} Your store and your support desk say the "
                "same."), [{**cite, "text": stated}]
    answer.__name__ = f"policy_{topic}"
    return answer


ANSWERS = {"next_step": next_step, "profit": profit, "visitors": visitors, "ads": ads, "verdict": verdict,
           **{topic: _policy(topic) for topic in POLICY_SAID}}
