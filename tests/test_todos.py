"""The task list (GET, POST /api/todos): the founder's own tasks, the next launch steps the
service adds and ticks off, every refusal, isolation between founders and adoption."""
from __future__ import annotations

import pytest

from models.business import Todo
from services.todos import MAX_TASKS, NEXT_STEPS
from tests.factories import catalog, claim, find, new_account, refusal, session_of, sign_in
from tests.helpers import in_threads


def todos_of(client) -> dict:
    response = client.get("/api/todos")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def change(client, **body):
    return client.post("/api/todos", json=body)


def launch_steps(body) -> list[str]:
    return [t["fact_id"] for t in body["todos"] if t["source"] == "launch" and not t["done"]]


def test_a_new_founder_gets_the_next_launch_steps_as_tasks(client):
    body = todos_of(client)
    assert body["status"] == "ok" and body["open"] == NEXT_STEPS and body["done"] == 0
    assert launch_steps(body) == ["product_claimed", "offer_researched", "store_built"]
    first = body["todos"][0]
    assert first["text"] == "Claim a product from your feed." and first["completed_at"] is None
    # Reading again adds nothing twice.
    assert todos_of(client)["todos"] == body["todos"]
    assert Todo.select().count() == NEXT_STEPS


def test_a_step_whose_fact_comes_true_is_ticked_off_and_the_next_added(founder, held_worker):
    # The worker is paused: the research job a find sends would otherwise make "offer researched"
    # come true too, or not, depending on whether it finished before the list is read.
    catalog(2)
    # A founder who claims before ever reading the list never gets that step at all.
    early = founder()
    find(early)
    assert claim(early).get_json()["status"] == "claimed"
    body = todos_of(early)
    assert [t for t in body["todos"] if t["done"]] == [] and "product_claimed" not in launch_steps(body)

    fresh = founder()
    todos_of(fresh)
    find(fresh)
    assert claim(fresh).get_json()["status"] == "claimed"
    body = todos_of(fresh)
    ticked = {t["fact_id"]: t for t in body["todos"] if t["done"]}
    assert ticked["product_claimed"]["completed_at"] and ticked["product_claimed"]["source"] == "launch"
    assert ticked["product_claimed"]["text"] == "Product claimed"  # what was achieved, no longer the advice
    assert launch_steps(body)[0] != "product_claimed" and len(launch_steps(body)) == NEXT_STEPS
    assert body["done"] == 1


def test_a_founders_own_tasks_are_added_completed_reopened_and_deleted(client):
    added = change(client, op="add", text="  Order packaging samples  ").get_json()
    assert added["status"] == "added" and added["todo"]["text"] == "Order packaging samples"
    assert added["todo"]["source"] == "founder" and added["todo"]["done"] is False
    task_id = added["todo"]["id"]
    # Open tasks: the launch steps first, then the founder's.
    assert [t["source"] for t in added["todos"]][-1] == "founder"

    completed = change(client, op="complete", id=task_id).get_json()
    assert completed["status"] == "completed" and completed["todo"]["done"] and completed["todo"]["completed_at"]
    assert completed["todos"][-1]["id"] == task_id and completed["done"] == 1
    again = change(client, op="complete", id=task_id).get_json()  # a repeat changes nothing
    assert again["todo"]["completed_at"] == completed["todo"]["completed_at"]

    reopened = change(client, op="reopen", id=task_id).get_json()
    assert reopened["todo"]["done"] is False and reopened["todo"]["completed_at"] is None

    deleted = change(client, op="delete", id=task_id).get_json()
    assert deleted["status"] == "deleted" and deleted["todo"] is None
    assert task_id not in [t["id"] for t in deleted["todos"]]
    assert Todo.get_or_none(Todo.id == task_id) is None


def test_a_deleted_launch_step_is_not_added_again(client):
    step = todos_of(client)["todos"][0]
    assert step["source"] == "launch"
    body = change(client, op="delete", id=step["id"]).get_json()
    assert step["fact_id"] not in launch_steps(body)
    assert step["fact_id"] not in launch_steps(todos_of(client))
    assert Todo.get(Todo.id == step["id"]).deleted is True  # kept, marked
    refusal(change(client, op="complete", id=step["id"]), 404, "not_found")


@pytest.mark.parametrize("body, status, reason", [
    ({"op": "add"}, 400, "invalid_todo"),
    ({"op": "add", "text": "   "}, 400, "invalid_todo"),
    ({"op": "add", "text": "x" * 301}, 400, "invalid_todo"),
    ({"op": "add", "text": "two\nlines"}, 400, "invalid_todo"),
    ({"op": "complete"}, 400, "invalid_todo"),
    ({"op": "complete", "id": "1"}, 400, "invalid_todo"),
    ({"op": "complete", "id": True}, 400, "invalid_todo"),
    ({"op": "complete", "id": 999999}, 404, "not_found"),
    ({"op": "finish", "id": 1}, 400, "invalid_action"),
    ({}, 400, "invalid_action"),
])
def test_bad_changes_are_refused_and_change_nothing(client, body, status, reason):
    before = todos_of(client)
    refusal(change(client, **body), status, reason)
    assert todos_of(client) == before


def test_another_founders_task_is_not_found(founder):
    alice, bob = founder(), founder()
    task = change(alice, op="add", text="Alice's task").get_json()["todo"]
    for op in ("complete", "reopen", "delete"):
        refusal(change(bob, op=op, id=task["id"]), 404, "not_found")
    assert "Alice's task" not in str(todos_of(bob))
    assert Todo.get(Todo.id == task["id"]).done is False


def test_a_founder_keeps_a_bounded_number_of_tasks(client):
    assert change(client, op="add", text="the first").status_code == 200
    owner = f"session:{session_of(client).id}"
    Todo.insert_many([{"owner": owner, "text": f"task {n}", "source": "founder"} for n in range(MAX_TASKS - 1)]).execute()
    refusal(change(client, op="add", text="one more"), 409, "todo_limit_reached")
    assert Todo.select().where(Todo.text == "one more").count() == 0


def test_reads_at_once_add_each_step_once(client):
    assert client.get("/api/usage").status_code == 200  # the session exists before the race
    in_threads(10, lambda _: todos_of(client))
    assert Todo.select().count() == NEXT_STEPS


def test_a_sessions_tasks_become_its_accounts(founder, run_jobs):
    laptop = new_account(founder, run_jobs, "tasks@example.com")
    todos_of(laptop)
    phone = founder()
    change(phone, op="add", text="Written on the phone")
    todos_of(phone)  # the same launch steps, on the phone's own list
    sign_in(phone, run_jobs, "tasks@example.com")
    body = todos_of(laptop)
    assert "Written on the phone" in [t["text"] for t in body["todos"]]
    facts = [t["fact_id"] for t in body["todos"] if t["fact_id"]]
    assert len(facts) == len(set(facts))  # no step twice
