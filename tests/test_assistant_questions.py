"""The commerce assistant answers a founder's questions from the service's own data, offline
(issue 50 point 3): 40 questions phrased the ways people ask them, asked through HTTP (POST
/api/intent {message}) by a founder with a claimed product, a published store, paid orders, a
visitor, a funded ad balance and a campaign. Each expected figure is read from the service's
own endpoints (GET /api/launch, /api/tracking, /api/revenue, /api/editor/metrics,
/api/adbalance, /api/dashboard), never guessed; a question outside what it knows is answered
with "I can't answer that yet; try …"."""
from __future__ import annotations

from services.money import display
from tests.factories import choose, follow, published_store, started
from tests.growth_factories import campaign, funded, saved_book

CANNOT = "I can't answer that yet; try"

# (question, expected kind, topic whose expected figure the answer must carry)
QUESTIONS = [
    ("what should I do next?", "answer", "next_step"),
    ("What's my next step", "answer", "next_step"),
    ("next step", "answer", "next_step"),
    ("what now?", "answer", "next_step"),
    ("where do I start?", "answer", "next_step"),
    ("What do I do now?", "answer", "next_step"),
    ("what is my profit?", "answer", "profit"),
    ("how much profit have I made?", "answer", "profit"),
    ("what's my margin?", "answer", "profit"),
    ("Am I making a profit?", "answer", "profit"),
    ("profit so far?", "answer", "profit"),
    ("how many orders do I have", "answer", "orders"),
    ("any sales?", "answer", "orders"),
    ("did I sell anything?", "answer", "orders"),
    ("Have I had any orders?", "answer", "orders"),
    ("how many sales have I had", "answer", "orders"),
    ("how much have I made", "answer", "revenue"),
    ("what's my revenue?", "answer", "revenue"),
    ("how much money did I make?", "answer", "revenue"),
    ("what are my earnings?", "answer", "revenue"),
    ("total income?", "answer", "revenue"),
    ("how many people visited my store", "answer", "visitors"),
    ("how many visitors do I have?", "answer", "visitors"),
    ("any traffic?", "answer", "visitors"),
    ("how many visits this week?", "answer", "visitors"),
    ("did anyone visit my shop?", "answer", "visitors"),
    ("how much is left in my ad balance", "answer", "ads"),
    ("are my ads running?", "answer", "ads"),
    ("what's my ad balance?", "answer", "ads"),
    ("how are my campaigns doing?", "answer", "ads"),
    ("is my campaign running?", "answer", "ads"),
    ("how much budget do I have left for ads?", "answer", "ads"),
    ("should I sell this?", "answer", "verdict"),
    ("is this product any good", "answer", "verdict"),
    ("what's the verdict?", "answer", "verdict"),
    ("is it worth selling?", "answer", "verdict"),
    ("should I sell this product?", "answer", "verdict"),
    ("what's the weather tomorrow?", "answer", "cannot"),
    ("who won the game last night?", "answer", "cannot"),
    ("how tall is the Eiffel tower?", "answer", "cannot"),
]


def _plural(count, word):
    return f"{count} {word}{'' if count == 1 else 's'}"


def _world(founder, run_jobs):
    """The founder, with 2 paid orders (one open checkout beside), a visitor and a funded campaign."""
    shop = published_store(founder, run_jobs)
    for _ in range(2):
        customer = founder()
        follow(customer, choose(customer, started(customer)["checkout_url"], "pay"))
    started(founder())  # an open checkout: never counted as an order
    run_jobs()
    founder().post("/api/track", json={"product_id": "p00", "event": "page_view", "session_id": "visitor-one-0001",
                                       "campaign": None})
    funded(shop, 5000)
    saved_book(shop, campaigns=[campaign()])
    return shop


def _expected(shop) -> dict[str, list[str]]:
    """What each topic's answer must say, read from the service's own endpoints."""
    launch = shop.get("/api/launch").get_json()["next_step"]
    tracked = shop.get("/api/tracking").get_json()["orders"]
    profit = sum(o["profit_minor"] for o in tracked)
    each = tracked[0]["profit_minor"]
    revenue = shop.get("/api/revenue").get_json()["stores"][0]
    visitors = shop.get("/api/editor/metrics").get_json()
    balance = shop.get("/api/adbalance").get_json()
    dashboard = shop.get("/api/dashboard").get_json()
    book = shop.get("/api/ads-manager").get_json()["book"]["campaigns"]
    assert visitors["sessions"] == 1 and balance["balance_minor"] == 5000 and [c["status"] for c in book] == ["draft"]
    return {
        "next_step": [launch["says"]],
        "profit": [display(profit, "USD"), f"{_plural(len(tracked), 'paid order')} \u00d7 {display(each, 'USD')} each"],
        "orders": [f"You have {_plural(len(tracked), 'paid order')}."],
        "revenue": [display(revenue["confirmed_minor"], revenue["currency"]),
                    _plural(revenue["orders"], "paid order"), revenue["product_name"]],
        "visitors": [f"{_plural(visitors['sessions'], 'visitor')} came to your store in the last 14 days"],
        "ads": [f"Your ad balance is {display(balance['balance_minor'], balance['currency'])}.",
                *(f"{c['name']} is a draft, not running" for c in book if c["status"] == "draft")],
        "verdict": [dashboard["because"]],
        "cannot": [CANNOT],
    }


def test_the_assistant_answers_forty_questions_from_the_services_own_data(founder, run_jobs):
    shop = _world(founder, run_jobs)
    expected = _expected(shop)
    assert len(QUESTIONS) == 40
    assert len(shop.get("/api/tracking").get_json()["orders"]) == 2  # the open checkout is not an order
    wrong = []
    for question, kind, topic in QUESTIONS:
        body = shop.post("/api/intent", json={"message": question}).get_json()
        said = body.get("answer", "")
        if body.get("kind") != kind or not all(part in said for part in expected[topic]):
            wrong.append((question, topic, body))
    assert not wrong, "\n".join(f"{q!r} ({t}): {b}" for q, t, b in wrong)


def test_what_to_do_next_carries_the_route_to_go_there(founder, run_jobs):
    shop = published_store(founder, run_jobs)
    step = shop.get("/api/launch").get_json()["next_step"]
    body = shop.post("/api/intent", json={"message": "what should I do next?"}).get_json()
    assert body["kind"] == "answer" and step["says"] in body["answer"]
    assert body["route"] == body["cites"][0]["route"] and body["route"].startswith("#/app/")


def test_profit_and_orders_with_no_paid_order_say_so(founder, run_jobs):
    shop = published_store(founder, run_jobs)
    started(founder())
    assert "No profit yet" in shop.post("/api/intent", json={"message": "what is my profit?"}).get_json()["answer"]
    assert "no orders yet" in shop.post("/api/intent", json={"message": "any sales?"}).get_json()["answer"]
