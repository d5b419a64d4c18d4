"""Builders shared by the growth area's tests (the campaign book and the ad balance): what a
founder does through the HTTP client, so each test module reads like the spec."""
from __future__ import annotations

from models.payment import Payment


def campaign(name="Spring launch", **changes) -> dict:
    """A new campaign as the founder would send it (no id: it takes `next`)."""
    return {"name": name, "platform": "meta", "status": "draft", "daily_budget_minor": 1500, **changes}


def saved_book(client, **body) -> dict:
    response = client.post("/api/ads-manager", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    assert answer["status"] == "ok" and answer["updated_at"], answer
    return answer


def book_of(client) -> dict:
    response = client.get("/api/ads-manager")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def topup(client, amount_minor=2500) -> dict:
    """Starts a top-up; answers {status: pending, topup_id, checkout_url, amount_minor, currency}."""
    response = client.post("/api/adbalance", json={"amount_minor": amount_minor})
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    assert answer["status"] == "pending", answer
    return answer


def balance_of(client) -> dict:
    response = client.get("/api/adbalance")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def topup_payment(answer: dict) -> Payment:
    return Payment.get((Payment.purpose == Payment.AD_TOPUP) & (Payment.subject == answer["topup_id"]))


def fact(client, fact_id: str) -> dict:
    return next(f for f in client.get("/api/launch").get_json()["facts"] if f["id"] == fact_id)


def funded(client, amount_minor: int) -> dict:
    """Tops the ad balance up by `amount_minor`, paid on the sandbox's hosted page; answers the balance."""
    from tests.factories import choose, follow

    follow(client, choose(client, topup(client, amount_minor)["checkout_url"], "pay"))
    return balance_of(client)
