"""With a model, the same contract (issue 50 point 5): the `command` and `openai` backends are
given the grammar's reading of the founder's request as context, and their answers pass the
offline editor's checks: whole words (a name cut mid-name is asked for again, with why),
within bounds, no unbacked claims. The command backend is a small scripted model answering in
the documented JSON (README "AI backends")."""
from __future__ import annotations

import json
import sys

from tests.ad_factories import ad_founder, ad_of
from tests.ai_factories import completion, openai_settings
from tests.factories import edit, refusal

FIRST_REQUEST = "make the headline shorter and mention free returns within 30 days"

# A scripted model: it logs each request it is given, carries out the parse it is handed
# (`current.requests`) and, asked the first time, cuts the product's name as a careless
# model does; asked again (previous_error), it keeps the name whole.
SCRIPTED_EDITOR = '''
import json, pathlib, sys
request = json.load(sys.stdin)
here = pathlib.Path(__file__).parent
with open(here / "requests.jsonl", "a") as log:
    log.write(json.dumps(request) + "\\n")
current = request["current"]
copy = dict(current["copy"])
for asked in current.get("requests", []):
    if asked["verb"] == "shorten" and asked.get("part") == "headline":
        copy["headline"] = "Acacia Wood Magnetic Knife Strip" if request.get("previous_error") else "Acacia Wood Magnetic"
    elif asked["verb"] == "mention":
        copy["subheadline"] = copy["subheadline"] + " " + asked["text"][0].upper() + asked["text"][1:] + "."
    elif asked["verb"] == "set":
        copy[asked["part"]] = asked["text"]
print(json.dumps({"copy": copy, "lead": None, "price": None}))
'''


def scripted(tmp_path, settings_with):
    program = tmp_path / "editor_model.py"
    program.write_text(SCRIPTED_EDITOR)
    settings_with(ai_backend="command", ai_command=f"{sys.executable} {program}", ai_timeout_seconds=10)
    return lambda: [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]


def test_the_command_model_gets_the_parse_and_a_cut_name_is_asked_for_again(founder, run_jobs, settings_with,
                                                                          tmp_path):
    client = ad_founder(founder, run_jobs, email="model@example.com")
    seen = scripted(tmp_path, settings_with)
    answer = edit(client, FIRST_REQUEST)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    assert body["status"] == "edited", body
    changed = {change["path"]: change.get("value") for change in body["diff"]}
    assert changed["/copy/headline"] == "Acacia Wood Magnetic Knife Strip"
    assert changed["/copy/subheadline"].endswith("Free returns within 30 days.")
    first, second = seen()
    assert [(r["verb"], r.get("part"), r.get("text")) for r in first["current"]["requests"]] == [
        ("shorten", "headline", None), ("mention", None, "free returns within 30 days")]
    assert "previous_error" not in first
    assert "cuts the product's name" in second["previous_error"] and "Acacia Wood Magnetic" in second["previous_error"]
    # The founder's statement backs the model's sentence, as it backs the offline editor's.
    assert client.get("/api/settings/business").get_json()["settings"]["return_days"] == 30


def test_a_models_unbacked_claim_is_refused_as_the_offline_editors_is(founder, run_jobs, settings_with, tmp_path):
    client = ad_founder(founder, run_jobs, email="model-claim@example.com")
    scripted(tmp_path, settings_with)
    body = refusal(edit(client, "change the headline to Certified organic knife strip"), 200, "unbacked_claim")
    assert body["unbacked"][0]["why"] == "certification"
    # Past its bound: asked twice, then refused in words (never the schema's path).
    body = refusal(edit(client, "change the subheadline to " + "Long words here. " * 12), 200, "cli_failed")
    assert "$." not in body["explanation"] and "nothing was changed" in body["explanation"]
    assert client.get("/api/store").get_json()["version"] == 1


def test_the_ad_editors_model_answer_is_held_to_whole_names_too(founder, run_jobs, settings_with, tmp_path):
    client = ad_founder(founder, run_jobs, email="model-ad@example.com")
    program = tmp_path / "ad_model.py"  # cuts the Google headline to the name's first words, every time
    program.write_text("import json, sys\nrequest = json.load(sys.stdin)\ncopy = request['current']['copy']\n"
                       "copy['google']['headline'] = 'Acacia Wood'\nprint(json.dumps(copy))\n")
    settings_with(ai_backend="command", ai_command=f"{sys.executable} {program}", ai_timeout_seconds=10)
    refusal(client.post("/api/growth/edit", json={"message": "make the headline shorter"}), 200,
            "invalid_editor_response")
    assert ad_of(client, "google")["headline"] == "Wood Magnetic Knife Strip"


def test_the_openai_backend_is_sent_the_same_parse(founder, run_jobs, settings_with, chat):
    client = ad_founder(founder, run_jobs, email="model-openai@example.com")
    current = client.get("/api/editor/draft").get_json()["document"]["copy"]
    chat.reply(completion(json.dumps({"copy": {**current, "headline": "Acacia Wood Magnetic Knife Strip"},
                                      "lead": None, "price": None})))
    from tests.conftest import SETTINGS  # the installed settings, with the loopback model server
    settings_with(**{k: v for k, v in vars(openai_settings(chat)).items() if getattr(SETTINGS, k, None) != v})
    body = edit(client, "make the headline shorter").get_json()
    assert body["status"] == "edited" and body["diff"][0]["value"] == "Acacia Wood Magnetic Knife Strip", body
    [sent] = chat.received
    prompt = sent["body"]["messages"][-1]["content"]
    assert '"verb": "shorten"' in prompt and '"part": "headline"' in prompt and "current.requests" in prompt
