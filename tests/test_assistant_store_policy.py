"""The commerce assistant answers what the business's policy is from the founder's own
statements in Settings (issue 50 point 2), through HTTP (POST /api/intent {message}): said as
the founder's stated policy, in the words the store and the desk use, and, while nothing is
stated, with the way to Settings to state it."""
from __future__ import annotations

import pytest

from services import founder_statements
from services.founder_statements import Statements

POLICY = {"return_days": 30, "free_returns": True, "shipping_days_min": 3, "shipping_days_max": 7,
          "guarantee": "30-day money-back guarantee", "ships_to": "the United States and Canada"}
SAID = founder_statements.sentences(Statements(**POLICY))

# (question, the topic it asks about, what the answer says while nothing is stated)
QUESTIONS = [
    ("what is my return policy?", "returns", "You have not stated a return window yet; set it in Settings."),
    ("Do I offer free returns?", "returns", "You have not stated a return window yet; set it in Settings."),
    ("can customers get a refund?", "returns", "You have not stated a return window yet; set it in Settings."),
    ("how long does shipping take?", "shipping", "You have not stated how long shipping takes yet; set it in "
                                                 "Settings."),
    ("How fast do orders arrive?", "shipping", "You have not stated how long shipping takes yet; set it in Settings."),
    ("what's the delivery time?", "shipping", "You have not stated how long shipping takes yet; set it in Settings."),
    ("where do we ship?", "ships_to", "You have not stated where you ship yet; set it in Settings."),
    ("do we ship to Canada?", "ships_to", "You have not stated where you ship yet; set it in Settings."),
    ("what is my guarantee?", "guarantee", "You have not stated a guarantee yet; set it in Settings."),
]


def ask(client, message: str) -> dict:
    response = client.post("/api/intent", json={"message": message})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


@pytest.mark.parametrize("question, topic, unstated", QUESTIONS)
def test_a_policy_question_is_answered_from_the_founders_statements(client, run_jobs, question, topic, unstated):
    before = ask(client, question)
    assert before["kind"] == "answer" and before["answer"] == unstated
    assert before["route"] == "#/app/settings"  # a button to where it is stated
    assert before["cites"] == [{"kind": "policy", "topic": topic, "stated": False, "source": "your business settings",
                                "route": "#/app/settings"}]

    assert client.post("/api/settings/business", json=POLICY).status_code == 200
    after = ask(client, question)
    assert SAID[topic] in after["answer"] and "as you stated it in Settings" in after["answer"]
    assert "route" not in after
    assert after["cites"][0] == {"kind": "policy", "topic": topic, "stated": True, "text": SAID[topic],
                                      "source": "your business settings", "route": "#/app/settings"}


def test_the_answer_says_the_founders_words_as_saved(client, run_jobs):
    client.post("/api/settings/business", json={"return_days": 14})
    assert ask(client, "what is my return policy?")["answer"] == (
        "Your return policy, as you stated it in Settings: Returns are accepted within 14 days of delivery. Your "
        "store and your support desk say the same.")
    client.post("/api/settings/business", json={"return_days": None})
    assert ask(client, "what is my return policy?")["answer"].startswith("You have not stated a return window yet")


def test_another_founders_policy_is_never_said(founder, run_jobs):
    mine, theirs = founder(), founder()
    theirs.post("/api/settings/business", json=POLICY)
    assert ask(mine, "where do we ship?")["answer"] == "You have not stated where you ship yet; set it in Settings."
