"""Research runs and the research workspace (spec 4.7, 5.13; the decisions in api/workspace.py):
both belong to the signed-in account, are shared by its sessions and never reach another;
a session without an account gets the sign-in-to-research sentence and no reason code."""
import importlib

import pytest

import api.workspace
from api import create_app
from api.errors import SIGN_IN_TO_RESEARCH
from models.catalog import Product
from models.clock import clock
from models.job import Job
from models.workspace import ResearchNote, SavedQuery, ShortlistEntry
from services import discovery, workspace
from tests.conftest import SETTINGS
from tests.factories import catalog, claim, find, new_account, refusal, sign_in
from tests.helpers import in_threads

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

WORKSPACE = "/api/research-workspace"
RESEARCH = "/api/discovery-research"
SIGN_IN_ANSWER = {"status": "refused", "explanation": SIGN_IN_TO_RESEARCH}


def bound(signed_in, email="researcher@example.com"):
    """A founder signed in to an account (the mailed link opened in the same browser)."""
    return signed_in(email)


def act(client, op, **fields):
    return client.post(WORKSPACE, json={"op": op, **fields})


def ok(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    return body


def texts(client):
    return [note["text"] for note in ok(client.get(WORKSPACE))["notes"]]


def shortlisted(client):
    return [entry["product_id"] for entry in ok(client.get(WORKSPACE))["shortlist"]]


# --- Without an account ---------------------------------------------------------------------------

@pytest.mark.parametrize("method, path, body", [
    ("GET", WORKSPACE, None), ("POST", WORKSPACE, {"op": "add_note", "text": "x"}),
    ("GET", RESEARCH, None), ("POST", RESEARCH, {"q": "kettle"}),
    ("POST", WORKSPACE, {"op": "no such op"}), ("POST", RESEARCH, {"q": 5}),
])
def test_without_an_account_research_routes_answer_401_with_the_sentence_and_no_reason(client, method, path, body):
    response = client.open(path, method=method, json=body)
    assert response.status_code == 401 and response.mimetype == "application/json"
    assert response.get_json() == SIGN_IN_ANSWER
    assert "reason" not in response.get_json()
    assert Job.select().count() == 0 and ResearchNote.select().count() == 0


def test_signing_out_loses_the_workspace_until_signing_in_again(founder, run_jobs):
    client = new_account(founder, run_jobs, "leaver@example.com")
    ok(act(client, "add_note", text="keep me"))
    assert client.post("/api/logout").get_json() == {"status": "signed_out"}
    assert client.get(WORKSPACE).get_json() == SIGN_IN_ANSWER
    sign_in(client, run_jobs, "leaver@example.com")
    assert texts(client) == ["keep me"]


def test_the_401_sentence_is_published_in_the_decisions(client):
    decisions = client.get("/api/openapi.json").get_json()["info"]["x-decisions"]
    assert any(SIGN_IN_TO_RESEARCH in decision and "no reason code" in decision for decision in decisions)


# --- Notes ------------------------------------------------------------------------------------------

def test_an_empty_workspace_reads_ok_with_three_empty_lists(founder, signed_in):
    assert bound(signed_in).get(WORKSPACE).get_json() == {"status": "ok", "notes": [], "shortlist": [],
                                                       "saved_queries": []}


def test_notes_are_added_trimmed_listed_newest_first_and_deleted(founder, signed_in):
    client = bound(signed_in)
    first = ok(act(client, "add_note", text="  check the supplier's MOQ \n"))
    assert first["op"] == "add_note"
    note = first["note"]
    assert note["text"] == "check the supplier's MOQ" and isinstance(note["id"], int)
    assert note["created_at"] == "2026-11-22T12:00:00Z"
    assert first["notes"] == [note]
    second = ok(act(client, "add_note", text="margins look thin"))
    assert [n["text"] for n in second["notes"]] == ["margins look thin", "check the supplier's MOQ"]
    after = ok(act(client, "delete_note", id=note["id"]))
    assert after["op"] == "delete_note" and [n["text"] for n in after["notes"]] == ["margins look thin"]
    assert "note" not in after
    assert texts(client) == ["margins look thin"]


@pytest.mark.parametrize("fields", [{}, {"text": None}, {"text": ""}, {"text": "   \n\t"}])
def test_a_missing_or_blank_note_is_400_empty_note(founder, fields, signed_in):
    client = bound(signed_in)
    refusal(act(client, "add_note", **fields), 400, "empty_note")
    assert ResearchNote.select().count() == 0


def test_a_note_past_the_limit_is_400_note_too_long_and_one_at_the_limit_is_kept(founder, signed_in):
    client = bound(signed_in)
    body = refusal(act(client, "add_note", text="x" * (workspace.MAX_NOTE_CHARS + 1)), 400, "note_too_long")
    assert str(workspace.MAX_NOTE_CHARS) in body["explanation"]
    assert ResearchNote.select().count() == 0
    assert len(ok(act(client, "add_note", text="y" * workspace.MAX_NOTE_CHARS))["note"]["text"]) == \
        workspace.MAX_NOTE_CHARS


def test_deleting_a_note_or_query_that_is_not_there_is_404_not_found(founder, signed_in):
    client = bound(signed_in)
    note_id = ok(act(client, "add_note", text="only"))["note"]["id"]
    refusal(act(client, "delete_note", id=note_id + 1000), 404, "not_found")
    refusal(act(client, "delete_query", id=note_id), 404, "not_found")  # a note's id is not a query's
    ok(act(client, "delete_note", id=note_id))
    refusal(act(client, "delete_note", id=note_id), 404, "not_found")  # deleted once


@pytest.mark.parametrize("fields", [{}, {"id": None}, {"id": "3"}, {"id": 1.5}, {"id": True}, {"id": 0}])
def test_a_delete_without_a_usable_id_is_400_invalid_request(founder, fields, signed_in):
    client = bound(signed_in)
    ok(act(client, "add_note", text="stays"))
    refusal(act(client, "delete_note", **fields), 400, "invalid_request")
    refusal(act(client, "delete_query", **fields), 400, "invalid_request")
    assert texts(client) == ["stays"]


def test_an_id_past_64_bits_is_refused_before_the_workspace_reads_it(signed_in):
    # The JSON reader refuses any integer outside the signed 64-bit range (api/json_body.py).
    client = bound(signed_in)
    ok(act(client, "add_note", text="stays"))
    for op in ("delete_note", "delete_query"):
        refusal(act(client, op, id=2**63), 400, "invalid_json")
    assert texts(client) == ["stays"]


@pytest.mark.parametrize("body", [{}, {"op": None}, {"op": "add"}, {"op": "ADD_NOTE"}, {"op": 3},
                                  {"op": "delete", "id": 1}])
def test_a_missing_or_unknown_op_is_400_unknown_workspace_op(founder, body, signed_in):
    response = bound(signed_in).post(WORKSPACE, json=body)
    refusal(response, 400, "unknown_workspace_op")


def test_a_body_that_is_not_a_json_object_is_400_invalid_json_for_a_signed_in_session(founder, signed_in):
    client = bound(signed_in)
    for path in (WORKSPACE, RESEARCH):
        refusal(client.post(path, data="[1]", content_type="application/json"), 400, "invalid_json")
        refusal(client.post(path, data="op=add_note", content_type="application/x-www-form-urlencoded"), 400,
                "invalid_json")
    assert ResearchNote.select().count() == 0 and Job.select().where(Job.kind == discovery.DISCOVER).count() == 0


# --- The shortlist ----------------------------------------------------------------------------------

def test_a_shortlisted_product_is_named_and_a_repeated_add_keeps_one_entry(founder, signed_in):
    catalog(3)
    client = bound(signed_in)
    body = ok(act(client, "shortlist", product_id="p01"))
    assert body["op"] == "shortlist"
    assert body["shortlist"] == [{"product_id": "p01", "name": "Product p01", "added_at": "2026-11-22T12:00:00Z"}]
    ok(act(client, "shortlist", product_id="p02"))
    again = ok(act(client, "shortlist", product_id="p01"))
    assert [e["product_id"] for e in again["shortlist"]] == ["p02", "p01"]
    assert ShortlistEntry.select().count() == 2


def test_shortlisting_needs_a_product_in_the_catalog(founder, signed_in):
    catalog(1)
    client = bound(signed_in)
    refusal(act(client, "shortlist"), 400, "no_product_id")
    refusal(act(client, "shortlist", product_id=""), 400, "no_product_id")
    refusal(act(client, "shortlist", product_id="nope"), 400, "unknown_product")
    refusal(act(client, "shortlist", product_id="p" * 500), 400, "unknown_product")
    refusal(act(client, "shortlist", product_id=7), 400, "invalid_request")
    assert ShortlistEntry.select().count() == 0


def test_unshortlist_removes_the_entry_and_one_not_on_the_list_is_404(founder, signed_in):
    catalog(2)
    client = bound(signed_in)
    ok(act(client, "shortlist", product_id="p00"))
    ok(act(client, "shortlist", product_id="p01"))
    assert ok(act(client, "unshortlist", product_id="p00"))["shortlist"][0]["product_id"] == "p01"
    refusal(act(client, "unshortlist", product_id="p00"), 404, "not_found")
    refusal(act(client, "unshortlist"), 400, "no_product_id")
    assert shortlisted(client) == ["p01"]


def test_a_product_claimed_by_another_founder_cannot_be_shortlisted(founder, signed_in):
    catalog(3)
    other = founder()
    taken = find(other).get_json()["product_id"]
    assert claim(other).get_json()["status"] == "claimed"
    client = bound(signed_in)
    refusal(act(client, "shortlist", product_id=taken), 409, "claimed_by_another_founder")
    assert shortlisted(client) == [] and ShortlistEntry.select().count() == 0


def test_a_shortlisted_product_claimed_later_by_another_founder_leaves_the_shortlist(founder, signed_in):
    catalog(3)
    client = bound(signed_in)
    ok(act(client, "shortlist", product_id="p00"))
    ok(act(client, "shortlist", product_id="p01"))
    other = founder()
    assert find(other).get_json()["product_id"] == "p00"
    assert claim(other).get_json()["status"] == "claimed"
    assert shortlisted(client) == ["p01"]
    assert "p00" not in str(ok(act(client, "add_note", text="n")))  # nor in any other answer
    refusal(act(client, "shortlist", product_id="p00"), 409, "claimed_by_another_founder")


def test_your_own_claimed_product_can_be_shortlisted(founder, signed_in):
    catalog(3)
    client = bound(signed_in)
    mine = find(client).get_json()["product_id"]
    assert claim(client).get_json()["status"] == "claimed"
    assert shortlisted(client) == []
    assert ok(act(client, "shortlist", product_id=mine))["shortlist"][0]["product_id"] == mine


# --- Saved queries ----------------------------------------------------------------------------------

def test_queries_are_saved_trimmed_once_and_deleted(founder, signed_in):
    client = bound(signed_in)
    first = ok(act(client, "save_query", query="  bamboo cutting board "))
    saved = first["saved_query"]
    assert (saved["query"], saved["created_at"]) == ("bamboo cutting board", "2026-11-22T12:00:00Z")
    assert first["saved_queries"] == [saved]
    assert ok(act(client, "save_query", query="bamboo cutting board"))["saved_query"] == saved
    ok(act(client, "save_query", query="yoga mat"))
    assert SavedQuery.select().count() == 2
    after = ok(act(client, "delete_query", id=saved["id"]))
    assert [q["query"] for q in after["saved_queries"]] == ["yoga mat"]


@pytest.mark.parametrize("query", [None, "", "   ", "q" * (discovery.MAX_QUERY_CHARS + 1)])
def test_a_blank_missing_or_too_long_query_is_400_invalid_query(founder, query, signed_in):
    client = bound(signed_in)
    refusal(act(client, "save_query", **({} if query is None else {"query": query})), 400, "invalid_query")
    assert SavedQuery.select().count() == 0


def test_a_query_as_long_as_a_discovery_query_may_be_is_saved(founder, signed_in):
    client = bound(signed_in)
    assert ok(act(client, "save_query", query="q" * discovery.MAX_QUERY_CHARS))["saved_query"]["query"]
    refusal(client.post("/api/discover", json={"q": "q" * (discovery.MAX_QUERY_CHARS + 1)}), 400, "invalid_request")


# --- Limits -----------------------------------------------------------------------------------------

def test_an_add_past_each_cap_is_409_workspace_full_and_adds_nothing(founder, monkeypatch, signed_in):
    catalog(4)
    monkeypatch.setattr(workspace, "MAX_NOTES", 2)
    monkeypatch.setattr(workspace, "MAX_SHORTLIST", 2)
    monkeypatch.setattr(workspace, "MAX_SAVED_QUERIES", 2)
    client = bound(signed_in)
    for n in range(2):
        ok(act(client, "add_note", text=f"note {n}"))
        ok(act(client, "shortlist", product_id=f"p0{n}"))
        ok(act(client, "save_query", query=f"query {n}"))
    body = refusal(act(client, "add_note", text="one too many"), 409, "workspace_full")
    assert "2 notes" in body["explanation"]
    refusal(act(client, "shortlist", product_id="p02"), 409, "workspace_full")
    refusal(act(client, "save_query", query="query 2"), 409, "workspace_full")
    # What is already there is no addition: repeating it answers as before.
    ok(act(client, "shortlist", product_id="p00"))
    assert ok(act(client, "save_query", query="query 0"))["saved_query"]["query"] == "query 0"
    assert (ResearchNote.select().count(), ShortlistEntry.select().count(), SavedQuery.select().count()) == (2, 2, 2)
    # Deleting one makes room again.
    ok(act(client, "delete_note", id=ok(client.get(WORKSPACE))["notes"][0]["id"]))
    ok(act(client, "add_note", text="room again"))


def test_a_shortlisted_product_claimed_by_another_founder_no_longer_counts_against_the_cap(founder, monkeypatch, signed_in):
    catalog(4)
    monkeypatch.setattr(workspace, "MAX_SHORTLIST", 2)
    client = bound(signed_in)
    ok(act(client, "shortlist", product_id="p00"))
    ok(act(client, "shortlist", product_id="p01"))
    other = founder()
    assert find(other).get_json()["product_id"] == "p00" and claim(other).get_json()["status"] == "claimed"
    assert ok(act(client, "shortlist", product_id="p02"))["shortlist"][0]["product_id"] == "p02"
    assert shortlisted(client) == ["p02", "p01"]


def _decisions(app) -> str:
    return " ".join(app.test_client().get("/api/openapi.json").get_json()["info"]["x-decisions"])


def _limit_phrases() -> list[str]:
    return [f"a note is at most {workspace.MAX_NOTE_CHARS} characters",
            f"a saved query 1 to {discovery.MAX_QUERY_CHARS} characters",
            f"at most {workspace.MAX_NOTES} notes, {workspace.MAX_SHORTLIST} shortlisted products and "
            f"{workspace.MAX_SAVED_QUERIES} saved queries"]


def test_the_limits_are_published_from_the_constants(app, monkeypatch):
    decisions = _decisions(app)
    assert all(phrase in decisions for phrase in _limit_phrases())
    for name, value in (("MAX_NOTE_CHARS", 777), ("MAX_NOTES", 12), ("MAX_SHORTLIST", 13),
                        ("MAX_SAVED_QUERIES", 14)):
        monkeypatch.setattr(workspace, name, value)
    monkeypatch.setattr(discovery, "MAX_QUERY_CHARS", 99)
    try:
        importlib.reload(api.workspace)  # the decisions are built when the module loads
        changed = _decisions(create_app(SETTINGS))
        assert all(phrase in changed for phrase in _limit_phrases())
        assert "at most 12 notes, 13 shortlisted products and 14 saved queries" in changed
    finally:
        monkeypatch.undo()
        importlib.reload(api.workspace)


# --- Races: the database decides --------------------------------------------------------------------

def tabs_of(app, client, count):
    """The same founder in `count` browser tabs (one cookie, a client per thread)."""
    cookie = client.get_cookie("ff_session").value
    tabs = [app.test_client() for _ in range(count)]
    for tab in tabs:
        tab.set_cookie("ff_session", cookie)
    return tabs


def test_sessions_of_one_account_adding_one_product_or_query_at_once_make_one_entry(app, founder, run_jobs):
    catalog(2)
    laptop = new_account(founder, run_jobs, "twin@example.com")
    phone = founder()
    sign_in(phone, run_jobs, "twin@example.com")
    tabs = tabs_of(app, laptop, 6) + tabs_of(app, phone, 6)
    answers = in_threads(len(tabs), lambda i: act(tabs[i], "shortlist", product_id="p01").status_code)
    assert answers == [200] * len(tabs)
    assert ShortlistEntry.select().count() == 1
    saved = in_threads(len(tabs), lambda i: ok(act(tabs[i], "save_query", query="kettle"))["saved_query"]["id"])
    assert len(set(saved)) == 1 and SavedQuery.select().count() == 1


def test_adds_racing_for_the_last_place_take_it_once(app, founder, monkeypatch, signed_in):
    monkeypatch.setattr(workspace, "MAX_NOTES", 5)
    client = bound(signed_in, "racer@example.com")
    for n in range(4):
        ok(act(client, "add_note", text=f"n{n}"))
    tabs = tabs_of(app, client, 12)
    statuses = in_threads(len(tabs), lambda i: act(tabs[i], "add_note", text=f"racer {i}").status_code)
    assert sorted(statuses) == [200] + [409] * 11
    assert ResearchNote.select().count() == 5


# --- Accounts: isolation and sharing ----------------------------------------------------------------

def test_another_account_or_an_anonymous_session_never_sees_or_touches_the_workspace(founder, signed_in):
    catalog(2)
    alice = bound(signed_in, "alice@example.com")
    note_id = ok(act(alice, "add_note", text="alice's secret"))["note"]["id"]
    query_id = ok(act(alice, "save_query", query="alice query"))["saved_query"]["id"]
    ok(act(alice, "shortlist", product_id="p00"))
    bob = bound(signed_in, "bob@example.com")
    assert bob.get(WORKSPACE).get_json() == {"status": "ok", "notes": [], "shortlist": [], "saved_queries": []}
    refusal(act(bob, "delete_note", id=note_id), 404, "not_found")
    refusal(act(bob, "delete_query", id=query_id), 404, "not_found")
    refusal(act(bob, "unshortlist", product_id="p00"), 404, "not_found")
    ok(act(bob, "shortlist", product_id="p00"))  # a shortlist is no claim: both may keep it
    assert founder().get(WORKSPACE).get_json() == SIGN_IN_ANSWER
    assert texts(alice) == ["alice's secret"] and shortlisted(alice) == ["p00"]
    assert [q["id"] for q in ok(alice.get(WORKSPACE))["saved_queries"]] == [query_id]


def test_a_second_session_signed_in_by_the_link_shares_the_workspace(founder, run_jobs):
    catalog(2)
    laptop = new_account(founder, run_jobs, "shared@example.com")
    note_id = ok(act(laptop, "add_note", text="from the laptop"))["note"]["id"]
    ok(act(laptop, "shortlist", product_id="p01"))
    phone = founder()
    assert phone.get(WORKSPACE).get_json() == SIGN_IN_ANSWER
    assert sign_in(phone, run_jobs, "shared@example.com").headers["Location"] == "/?view=home#/app/home"
    assert texts(phone) == ["from the laptop"] and shortlisted(phone) == ["p01"]
    ok(act(phone, "add_note", text="from the phone"))
    ok(act(phone, "delete_note", id=note_id))
    assert texts(laptop) == ["from the phone"]


# --- Discovery research runs ------------------------------------------------------------------------

def test_an_account_with_no_run_reads_never_run_as_a_state(founder, signed_in):
    response = bound(signed_in).get(RESEARCH)
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "never_run" and "Start one" in body["explanation"]


def test_a_run_starts_at_once_runs_in_the_worker_and_is_reported_by_get(founder, run_jobs, monkeypatch, signed_in):
    client = bound(signed_in)
    sent = []
    monkeypatch.setattr(api.workspace, "send_all", lambda jobs: sent.extend(jobs))
    started = client.post(RESEARCH, json={"q": "bamboo cutting board"})
    assert started.status_code == 200
    body = started.get_json()
    assert (body["status"], body["state"], body["result"], body["exit_code"]) == ("started", "queued", None, None)
    assert (body["query"], body["ran"], body["mode"], body["use_research_brief"]) == (
        "bamboo cutting board", None, None, False)
    assert (body["log"], body["stderr"], body["started_at"], body["finished_at"]) == ([], [], None, None)
    assert body["created_at"] == "2026-11-22T12:00:00Z"
    assert [job.id for job in sent] == [body["job_id"]]
    waiting = client.get(RESEARCH).get_json()
    assert (waiting["status"], waiting["job_id"], waiting["result"]) == ("queued", body["job_id"], None)

    monkeypatch.undo()
    api.workspace.send_all(sent)
    run_jobs()
    done = client.get(RESEARCH).get_json()
    assert (done["status"], done["state"], done["stage"], done["result"], done["exit_code"]) == (
        "done", "done", "running", "ok", 0)
    assert done["job_id"] == body["job_id"] and done["query"] == "bamboo cutting board"
    added = [line for line in done["log"] if line.startswith("added ")]
    assert added and all("Bamboo Cutting Board" in line for line in added)
    assert 'matched (the query "bamboo cutting board")' in done["log"][-1]
    assert done["stderr"] == [] and done["started_at"] and done["finished_at"]
    assert Product.select().count() == len(added)


def test_a_run_without_a_query_runs_the_scheduled_script(founder, run_jobs, signed_in):
    client = bound(signed_in)
    body = client.post(RESEARCH, json={}).get_json()
    assert (body["status"], body["query"], body["ran"]) == ("started", None, discovery.DISCOVER_SCRIPT)
    run_jobs()
    done = client.get(RESEARCH).get_json()
    assert (done["status"], done["result"], done["ran"]) == ("done", "ok", discovery.DISCOVER_SCRIPT)


def test_a_run_the_script_refuses_is_done_with_result_refused_and_its_own_lines(founder, run_jobs, signed_in):
    client = bound(signed_in)
    client.post(RESEARCH, json={"q": "kettle", "mode": "sideways"})
    run_jobs()
    done = client.get(RESEARCH).get_json()
    assert (done["status"], done["result"], done["exit_code"], done["mode"]) == ("done", "refused", 2, "sideways")
    assert done["stderr"][-1].startswith("scripts/discover.py: error: argument --mode: invalid choice: 'sideways'")


@pytest.mark.parametrize("body", [{"q": 5}, {"q": "q" * (discovery.MAX_QUERY_CHARS + 1)},
                                  {"use_research_brief": "yes"}, {"mode": ["new"]}])
def test_a_run_body_is_validated_as_for_discover(founder, body, signed_in):
    client = bound(signed_in)
    refusal(client.post(RESEARCH, json=body), 400, "invalid_request")
    refusal(client.post("/api/discover", json=body), 400, "invalid_request")
    assert Job.select().where(Job.kind == discovery.DISCOVER).count() == 0


def test_one_run_at_a_time_per_account_shared_by_its_sessions_and_hidden_from_others(founder, run_jobs,
                                                                                       monkeypatch, signed_in):
    laptop = new_account(founder, run_jobs, "runner@example.com")
    phone = founder()
    sign_in(phone, run_jobs, "runner@example.com")
    sent = []
    monkeypatch.setattr(api.workspace, "send_all", lambda jobs: sent.extend(jobs))
    first = laptop.post(RESEARCH, json={"q": "yoga mat"}).get_json()
    joined = phone.post(RESEARCH, json={"q": "kettle", "mode": "refresh"}).get_json()
    assert (joined["status"], joined["job_id"], joined["query"], joined["mode"]) == (
        "running", first["job_id"], "yoga mat", None)
    assert len(sent) == 1
    assert phone.get(RESEARCH).get_json()["job_id"] == first["job_id"]
    other = bound(signed_in, "someone-else@example.com")
    assert other.get(RESEARCH).get_json()["status"] == "never_run"
    assert founder().get(RESEARCH).get_json() == SIGN_IN_ANSWER
    # A session's own POST /api/discover run is not the account's research run.
    assert laptop.get("/api/discover").status_code == 404

    monkeypatch.undo()
    api.workspace.send_all(sent)
    run_jobs()
    assert phone.get(RESEARCH).get_json()["status"] == "done"
    clock.advance(minutes=5)
    second = phone.post(RESEARCH, json={"q": "kettle"}).get_json()
    assert second["status"] == "started" and second["job_id"] != first["job_id"]
    run_jobs()
    latest = laptop.get(RESEARCH).get_json()
    assert (latest["job_id"], latest["query"], latest["status"]) == (second["job_id"], "kettle", "done")
    assert other.get(RESEARCH).get_json()["status"] == "never_run"
