"""The AI seam's one interface: every backend answers the same protocol, a kind is all a
feature registers, one retry policy holds for a build and an edit, the store's sections
come from one list, and schema refusals come from jsonschema with their path apart."""
from __future__ import annotations

import json
import sys
import threading
import time

import pytest

from integrations import ai
from integrations.ai import offline
from integrations.ai.schemas import STORE_COPY, Problem, validate
from integrations.processes import run_capped
from models.job import Job
from services import ai_tasks
from services.errors import Refused
from services.store import document, edits, intents, offline_edit, render, sections
from tests.ai_factories import completion, openai_settings, own_copy, store_task
from tests.conftest import SETTINGS
from tests.factories import claim, edit, find, load, product, signed_in_founder_with_store

# --- one Backend protocol ---------------------------------------------------------------------

def _backends(chat, tmp_path):
    """One settings of each backend, each able to write the same store copy."""
    model = tmp_path / "model.py"  # a small program standing in for a model
    model.write_text(f"import sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(own_copy()))})\n")
    chat.reply(completion(json.dumps(own_copy())))
    return {"offline": SETTINGS, "openai": openai_settings(chat),
            "command": SETTINGS.but(ai_backend="command", ai_command=f"{sys.executable} {model}")}


def test_every_backend_answers_the_same_protocol_and_the_seam_checks_it(chat, tmp_path):
    for name, settings in _backends(chat, tmp_path).items():
        backend = ai.backend_for(settings)
        assert backend.name == name and callable(backend.write)
        written = backend.write(store_task())
        assert isinstance(written, dict) and validate(written, STORE_COPY) == [], name
        expected = offline.store_copy(store_task().facts) if name == "offline" else own_copy()
        assert written == expected, name
    with pytest.raises(ValueError):
        ai.backend_for(SETTINGS.but(ai_backend="carrier-pigeon"))


def test_an_offline_answer_that_breaks_the_schema_is_asked_again_then_refused():
    calls = []

    def sloppy(task):
        calls.append(task.previous_error)
        return {"headline": "Only this"}

    ai.register(ai.Kind("test_sloppy", STORE_COPY, "Write badly.", offline=sloppy))
    with pytest.raises(ai.AIError) as caught:
        ai.complete(ai.Task(kind="test_sloppy", facts=store_task().facts), settings=SETTINGS)
    assert caught.value.reason == ai.errors.INVALID_OUTPUT
    assert calls[0] is None and "$: missing key 'benefits'" in calls[1]


def test_a_kind_registers_its_own_finish_and_the_seam_has_no_branch_for_it():
    seam = open(ai.__file__).read() + open(offline.__file__).read()
    assert '"store_edit"' not in seam  # the edit kind is the store editor's (services/store/edits.py)
    edit_kind = ai.kinds.kind_of("store_edit")
    assert edit_kind.offline is offline_edit.edit and edit_kind.finish is ai.as_written
    # The store page is read by shoppers: its finish drops what the facts without the research
    # do not back (claims.public_backing), as the other public kinds' finishes do.
    assert ai.kinds.kind_of("store_copy").finish is ai._public_store_copy


def test_error_kinds_are_constants_and_only_unreachable_is_transient():
    assert {ai.errors.UNAVAILABLE, ai.errors.FAILED, ai.errors.INVALID_OUTPUT} == {
        "cli_unavailable", "cli_failed", "invalid_ai_output"}
    assert ai.AIError(ai.errors.UNAVAILABLE, "x").transient
    assert not ai.AIError(ai.errors.FAILED, "x").transient
    assert ai_tasks.gave_up_on("cli_unavailable: the AI command 'x' was not found") == ai.errors.UNAVAILABLE
    assert ai_tasks.gave_up_on("ran past its time limit") == ai.errors.FAILED


# --- one retry policy -------------------------------------------------------------------------

def _installed_after_first_failure(kind: str, program, source: str) -> threading.Thread:
    """Writes the model program once the first attempt of the `kind` job failed on its absence."""

    def watch():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            job = Job.select().where(Job.kind == kind).first()
            if job is not None and job.error and job.error.startswith(ai.errors.UNAVAILABLE):
                # Installed whole at once: an executable program, appearing under its name.
                staged = program.with_suffix(".staged")
                staged.write_text(f"#!{sys.executable}\n{source}")
                staged.chmod(0o755)
                staged.rename(program)
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    return watcher


def test_an_unreachable_backend_is_retried_for_a_build(founder, run_jobs, settings_with, tmp_path):
    load(product())
    client = founder()
    find(client)
    claim(client)
    model = tmp_path / "model"  # not installed yet: the backend cannot be started
    settings_with(ai_backend="command", ai_command=str(model))
    copy = offline.store_copy(ai.Facts(product={"name": "Knife strip", "description": "A strip for knives."},
                                       evidence=[], offer=None))
    watcher = _installed_after_first_failure("store_build", model,
                                             f"import sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(copy))})\n")
    assert client.post("/api/store").status_code == 200
    watcher.join()
    run_jobs()
    job = Job.get(Job.kind == "store_build")
    assert (job.status, job.attempt, job.max_attempts) == (Job.DONE, 2, ai_tasks.ATTEMPTS)
    assert client.get("/api/store").get_json()["status"] == "built"


def test_an_unreachable_backend_is_retried_for_an_edit_the_same_way(founder, run_jobs, settings_with, tmp_path):
    client = signed_in_founder_with_store(founder, run_jobs)
    model = tmp_path / "editor"  # not installed yet: the backend cannot be started
    settings_with(ai_backend="command", ai_command=str(model))
    watcher = _installed_after_first_failure("store_edit", model, (
        "import json, sys\nrequest = json.load(sys.stdin)\ncopy = request['current']['copy']\n"
        "copy['headline'] = 'Back after a restart'\nprint(json.dumps({'copy': copy, 'lead': None}))\n"))
    body = edit(client, "Make the headline say it is back").get_json()
    watcher.join()
    assert body["status"] == "edited" and body["diff"][0]["value"] == "Back after a restart"
    job = Job.get(Job.kind == "store_edit")
    assert (job.status, job.attempt, job.max_attempts) == (Job.DONE, 2, ai_tasks.ATTEMPTS)


# --- one section list -------------------------------------------------------------------------

def test_render_document_intents_and_edits_read_one_section_list():
    assert render.SECTION_TYPES == set(sections.NAMES)
    assert {page: types for page, (_title, types) in render.DEFAULT_PAGES.items()} == sections.PAGES
    assert intents.SECTIONS is sections.LEADS and document.SECTIONS is sections.LEADS
    built_doc = document.build_document(product={"product_id": "p", "name": "Mug", "currency": "USD"}, evidence=[],
                                        price=9.5, copy=offline.store_copy(store_task().facts), slug="mug-1")
    assert {p["id"]: tuple(s["type"] for s in p["sections"]) for p in built_doc["pages"]} == sections.PAGES
    assert document.SCHEMA["properties"]["lead"]["enum"] == list(sections.LEADS)
    assert all(section in edits.STORE_EDIT["properties"]["lead"]["description"] for section in sections.LEADS)


@pytest.mark.parametrize("word, section", [
    ("headline", "hero"), ("Title", "hero"), ("photo", "hero"), ("questions", "faq"), ("review", "reviews"),
    ("delivery", "shipping"), ("proof", "evidence"), ("features", "benefits"), ("pricing", "price"),
    ("about", "about"), ("footer", None), ("seo title", None),
])
def test_a_founders_word_names_one_section_everywhere(word, section):
    assert sections.named(word) == section
    lead = f"Lead with the {word.lower()}"
    if section in sections.LEADS:
        assert intents._topic_of(lead).section == section
        assert _offline_edit(lead)["lead"] == section
    else:
        with pytest.raises(Refused) as in_intents:
            intents._topic_of(lead)
        with pytest.raises(Refused) as in_editor:
            _offline_edit(lead)
        assert (in_intents.value.reason, in_editor.value.reason) == ("unknown_section", "editor_unavailable")


def test_the_headline_is_the_heros_to_lead_with_and_a_copy_field_to_change():
    # A founder who says "headline" means the same thing wherever it is read: the hero
    # section (which shows it) when they choose what leads, its words when they rewrite it.
    changed = _offline_edit("Change the headline to Knives off the counter")
    assert changed["copy"]["headline"] == "Knives off the counter" and changed["lead"] is None
    assert _offline_edit("Lead with the headline") == {"copy": own_copy(), "lead": "hero", "price": None}


def _offline_edit(message: str) -> dict:
    return offline_edit.edit(ai.Task(kind="store_edit", facts=store_task().facts, instructions=message,
                                     current={"copy": own_copy(), "lead": "benefits", "field": None}))


def test_lead_with_the_headline_through_http_leads_with_the_hero(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    assert edit(client, "Lead with the faq").get_json()["status"] == "edited"
    assert edit(client, "Lead with the headline").get_json()["status"] == "edited"
    assert client.get("/api/editor/draft").get_json()["document"]["lead"] == "hero"
    proposal = client.post("/api/intent", json={"surface": "home", "requested": "Lead with the headline"}).get_json()
    assert proposal["status"] == "proposed" and proposal["proposal"]["lead"] == "hero"


# --- jsonschema-backed refusals ---------------------------------------------------------------

def test_a_problem_reads_as_one_line_and_keeps_its_path_and_words_apart():
    copy = own_copy()
    copy["benefits"][1]["text"] = "Short"
    [problem] = validate(copy, STORE_COPY)
    assert isinstance(problem, Problem) and problem == "$.benefits[1].text: must be at least 10 characters (has 5)"
    assert (problem.path, problem.words) == ("$.benefits[1].text", "must be at least 10 characters (has 5)")


def test_store_document_refusals_name_the_place_and_the_rule():
    good = document.build_document(product={"product_id": "p", "name": "Mug", "currency": "USD"}, evidence=[],
                                   price=9.5, copy=own_copy(), slug="mug-1")
    assert document.problems(good) == []
    assert document.problems(good | {"price": "30"}) == ["$.price: must be a number"]
    assert document.problems(good | {"format": 1.0}) == ["$.format: must be an integer"]  # whole numbers stay whole
    assert document.problems(good | {"lead": "footer"}) == [
        "$.lead: must be one of hero, benefits, evidence, price, reviews, faq, guarantee, shipping"]
    assert document.problems(good | {"extra": 1}) == ["$: unexpected key 'extra'"]
    business = good | {"business": {"name": "Mugs", "support_email": 7}}
    assert document.problems(business) == ["$.business.support_email: must be one of string, null"]
    assert document.problems(good | {"price": -1}) == ["$.price: must be at least 0"]


def test_an_edit_past_a_fields_bound_is_refused_naming_the_field_and_the_bound_in_words():
    with pytest.raises(Refused) as caught:
        _offline_edit("Change the headline to " + "very " * 30 + "long")
    assert caught.value.reason == "too_long"
    assert caught.value.explanation == "The headline can be at most 90 characters (this would be 154)."


# --- one capped runner ------------------------------------------------------------------------

def test_the_capped_runner_feeds_stdin_and_stops_a_program_past_its_cap():
    echoed = run_capped([sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read().upper())"],
                        timeout=10, cap=100, stdin=b"hello")
    assert (echoed.exit_code, echoed.stdout, echoed.truncated) == (0, b"HELLO", False)
    started = time.monotonic()
    flood = run_capped([sys.executable, "-c", "import time\nwhile True: print('y' * 1000, flush=True)"],
                       timeout=10, cap=5000, stop_past_cap=True)
    assert flood.truncated and not flood.timed_out and flood.exit_code < 0 and len(flood.stdout) == 5000
    assert time.monotonic() - started < 5
