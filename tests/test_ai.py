"""The AI backend seam: the offline copywriter, the schema, the unbacked-claim filter, the
openai backend against a real local chat-completions server, and the command backend
running real scripts."""
from __future__ import annotations

import copy as copying
import json
import logging
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from integrations.ai import AIError, Answer, Facts, Task, backend_name, claims, complete, offline
from integrations.ai.schemas import STORE_COPY, schema_for, validate
from tests.ai_factories import (
    API_KEY,
    BUSINESS,
    CATALOG,
    completion,
    demo_products,
    facts_of,
    knife_strip,
    openai_settings,
    own_copy,
    store_task,
)
from tests.conftest import ROOT, SETTINGS

# --- the offline copywriter --------------------------------------------------------------------

@pytest.mark.parametrize("with_offer", [True, False])
def test_offline_copy_of_every_demo_product_is_valid_and_drops_nothing(with_offer):
    for product in demo_products():
        task = store_task(facts_of(product, offer=with_offer, business=with_offer))
        answer = complete(task, settings=SETTINGS)
        assert answer.backend == "offline"
        assert answer.dropped == [], product["product_id"]
        assert validate(answer.copy, STORE_COPY) == [], product["product_id"]
        assert answer.copy == offline.write(task)


def test_offline_copy_is_the_same_for_the_same_facts_byte_for_byte():
    shuffler = random.Random(7)
    for product in demo_products():
        first = json.dumps(offline.write(store_task(facts_of(product))), ensure_ascii=False)
        rows = copying.deepcopy(product["evidence"])
        shuffler.shuffle(rows)  # the same rows in another order are the same facts
        again = facts_of({**product, "evidence": rows})
        assert json.dumps(offline.write(store_task(again)), ensure_ascii=False) == first, product["product_id"]


def test_offline_copy_is_the_same_in_another_process_with_another_hash_seed():
    # Self-contained on purpose: importing the tests' conftest would reset the suite's databases.
    program = ("import json, sys; from integrations.ai import offline; from services.ai_facts import facts_for; "
               "products = [json.loads(line) for line in open(sys.argv[1])]; "
               "facts = [facts_for(product={k: v for k, v in p.items() if k != 'evidence'}, evidence=p['evidence'], "
               "offer=None, business=json.loads(sys.argv[2])) for p in products]; "
               "print(json.dumps([offline.store_copy(f) for f in facts]))")
    outputs = set()
    for seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", program, str(CATALOG), json.dumps(BUSINESS)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    here = json.dumps([offline.write(store_task(facts_of(p, offer=False))) for p in demo_products()]) + "\n"
    assert outputs == {here}


def test_offline_copy_tells_the_offer_price_but_no_research_and_no_private_figure():
    product = knife_strip()
    facts = facts_of(product)
    text = json.dumps(offline.write(store_task(facts)), ensure_ascii=False)
    assert "$34.99" in text
    # The store's copy speaks to shoppers: no search counts or ranks of the research (issue 47).
    assert "22,400" not in text and "October 2026" not in text and "demand" not in text
    for private in (facts.offer["cost"], facts.offer["unit_margin"], facts.offer["margin_pct"], product["cost"], 7.85):
        assert f"{private:.2f}" not in text and f"{private:g}" not in text
    assert "help@wallside.example" in text and "Wallside Goods" in text


def test_offline_copy_promises_no_period_for_shipping_or_returns():
    copy = offline.write(store_task())
    for field in ("shipping", "returns", "guarantee"):
        assert not any(ch.isdigit() for ch in copy[field]), copy[field]


def test_offline_copy_of_a_bare_product_still_follows_the_schema():
    facts = Facts(product={"product_id": "p", "name": "Mug", "description": "", "price": None}, evidence=[], offer=None)
    answer = complete(store_task(facts), settings=SETTINGS)
    assert validate(answer.copy, STORE_COPY) == [] and answer.dropped == []
    assert answer.copy["headline"] == "Mug"


def test_offline_price_keeps_the_cents_the_facts_give():
    facts = Facts(product={"name": "Lamp", "price": 16.990, "currency": "SEK"}, evidence=[], offer=None)
    assert offline.price_text(facts) == "16.99 SEK"
    facts = Facts(product={"name": "Lamp", "price": 10}, evidence=[], offer={"price": 1299.5, "currency": "eur"})
    assert offline.price_text(facts) == "€1,299.50"


def test_an_unknown_task_kind_is_a_programming_error():
    with pytest.raises(ValueError):
        complete(Task(kind="sonnet", facts=facts_of(knife_strip())), settings=SETTINGS)


def test_backend_name_follows_the_settings():
    assert backend_name(SETTINGS) == "offline"
    assert backend_name(SETTINGS.but(ai_backend="command", ai_command="x")) == "command"


# --- the schema -------------------------------------------------------------------------------

def _broken(change) -> dict:
    copy = offline.write(store_task())
    change(copy)
    return copy


@pytest.mark.parametrize("change, complaint", [
    (lambda c: c.pop("faq"), "$: missing key 'faq'"),
    (lambda c: c.update(price="$5"), "$: unexpected key 'price'"),
    (lambda c: c.update(headline="Hi"), "$.headline: must be at least 3 characters"),
    (lambda c: c.update(headline="x" * 91), "$.headline: must be at most 90 characters"),
    (lambda c: c.update(headline=42), "$.headline: must be a string"),
    (lambda c: c.update(benefits=c["benefits"][:2]), "$.benefits: must have at least 3 items"),
    (lambda c: c.update(benefits=c["benefits"] * 2), "$.benefits: must have at most 5 items"),
    (lambda c: c.update(benefits={"title": "x"}), "$.benefits: must be an array"),
    (lambda c: c["benefits"][1].update(text="Short"), "$.benefits[1].text: must be at least 10 characters"),
    (lambda c: c["faq"][2].update(votes=3), "$.faq[2]: unexpected key 'votes'"),
    (lambda c: c["faq"].__setitem__(0, "Is it good?"), "$.faq[0]: must be an object"),
    (lambda c: c.update(faq=c["faq"][:1] * 7), "$.faq: must have at most 6 items"),
    (lambda c: c.update(seo_description="Too short for a search result."), "$.seo_description: must be at least 50"),
    (lambda c: c.update(call_to_action="Buy this wonderful knife strip now"), "$.call_to_action: must be at most 30"),
])
def test_the_schema_refuses_what_breaks_it(change, complaint):
    problems = validate(_broken(change), STORE_COPY)
    assert any(p.startswith(complaint) for p in problems), problems


def test_the_schema_accepts_an_empty_subheadline_and_refuses_a_list_for_the_copy():
    assert validate(_broken(lambda c: c.update(subheadline="")), STORE_COPY) == []
    assert validate([], STORE_COPY) == ["$: must be an object"]
    assert schema_for("store_copy") is STORE_COPY


# --- the unbacked-claim filter ----------------------------------------------------------------

def _why(sentence: str, facts: Facts | None = None) -> str | None:
    return claims.why_unbacked(sentence, claims.index(facts or facts_of(knife_strip())))


@pytest.mark.parametrize("sentence", [
    "It costs $34.99.",  # the catalog and offer price
    "It costs $34.990 today.",  # the same number written differently
    "It holds knives on a 16-inch bar.",  # from the description
    "People search for it 22,400 times a month.",  # an evidence value, with a thousands comma
    "It holds a top-2,000 spot.",  # from an evidence note
    "Interest was measured in August 2026.",  # the year of an evidence date
    "Measured on 2026-10-18.",  # an evidence date, whole
    "It holds up to eight knives.",  # a spelled-out number the description uses
    "Write to help@wallside.example for help.",
    "No numbers, no marks, no places here.",
    # The About text's markup: a link's address is not words a shopper reads, whatever its digits.
    'See <a href="http://127.0.0.1:8123/catalog-2019">our old catalog</a>.',
])
def test_a_sentence_the_facts_back_is_kept(sentence):
    assert _why(sentence) is None


@pytest.mark.parametrize("sentence, why", [
    ("It costs $29.99.", "number"),
    ("Enjoy a 30-day money-back guarantee.", "number"),
    ("Save 20% today.", "number"),
    ("Rated #1 by chefs.", "number"),
    ("Measured on 2026-10-19.", "number"),  # a date the facts do not hold
    ("It holds thirty knives.", "number"),
    ("Thousands of happy customers.", "number"),
    ("Our strip is FSC certified acacia.", "certification"),
    ("The finish is BPA-free and non-toxic.", "certification"),
    ("Clinically proven to calm a kitchen.", "certification"),
    ("An award-winning design.", "certification"),
    ("Made in Portugal by a family workshop.", "origin"),
    ("Each strip is handmade.", "origin"),
    ("Ships from our warehouse in Ohio.", "origin"),
    ("Proudly German-made.", "origin"),
    ('See <a href="https://example.com/">our 30-day returns</a>.', "number"),  # a link's words are read
])
def test_a_sentence_the_facts_cannot_back_is_unbacked(sentence, why):
    assert _why(sentence) == why


def test_claims_are_backed_by_what_the_facts_say_and_nothing_near_it():
    product = {"product_id": "cork-board-9", "name": "Cork Board", "images": ["/static/cork-2024.svg"],
               "description": "A BPA-free cork board, made in Portugal and FSC certified. Handmade frame.",
               "price": 16.99, "currency": "EUR"}
    facts = Facts(product=product, evidence=[], offer=None)
    assert _why("Made in Portugal.", facts) is None
    assert _why("This board is BPA free.", facts) is None
    assert _why("FSC certified cork.", facts) is None
    assert _why("A handmade frame.", facts) is None
    assert _why("Designed in Portugal.", facts) == "origin"
    assert _why("Made in Spain.", facts) == "origin"
    assert _why("Certified organic cork.", facts) == "certification"
    assert _why("Since 2024.", facts) == "number"  # a digit in an image's name backs nothing
    assert _why("Only 9 left.", facts) == "number"  # nor one in the product id


def test_the_sellers_private_figures_back_nothing():
    facts = facts_of(knife_strip())
    assert facts.offer["target_margin_pct"] == 30 and "100" in json.dumps(facts.offer["figures"])
    assert _why("Returns within 30 days.", facts) == "number"
    assert _why("100% satisfaction.", facts) == "number"
    assert _why(f"We keep {facts.offer['unit_margin']:.2f} a sale.", facts) == "number"
    assert _why(f"It costs us {knife_strip()['cost']:.2f}.", facts) == "number"
    assert _why(f"It costs {facts.offer['price']:.2f} {facts.offer['currency']}.", facts) is None
    assert _why("Loved by 500 chefs.", facts) == "number"  # 500 is only in a supplier quote's note


def test_sentences_split_and_join_back_to_the_text():
    text = "One. Two, e.g. Amazon and eBay! Three costs 4.60?  Four…\nFive \"quoted.\" six stays with five."
    parts = claims.sentences(text)
    assert "".join(s + gap for s, gap in parts) == text
    assert [s for s, _ in parts] == ["One.", "Two, e.g. Amazon and eBay!", "Three costs 4.60?", "Four…",
                                     "Five \"quoted.\" six stays with five."]


def test_the_filter_drops_unbacked_sentences_and_falls_back_where_a_field_would_be_too_short():
    facts = facts_of(knife_strip())
    fallback = offline.write(store_task(facts))
    fallback["benefits"] = fallback["benefits"][:3]  # an offline copy with fewer benefits than the answer
    copy = own_copy(facts)
    copy["about"] = "We love this strip. It is made in Portugal from recycled cork. " + copy["about"]
    copy["guarantee"] = "A 30-day money-back guarantee."
    copy["benefits"][1] = {"title": "Kitchen safe", "text": "Certified by the FDA for kitchens."}
    copy["benefits"][4] = {"title": "Lifetime", "text": "It lasts 25 years or more."}
    copy["faq"][0] = {"question": "Is it safe?", "answer": "Yes, it is safe. It is vegan and hypoallergenic."}

    kept, dropped = claims.filter_copy(copy, facts, fallback, STORE_COPY)

    assert kept["about"] == "We love this strip. " + fallback["about"]
    assert kept["guarantee"] == fallback["guarantee"]  # nothing was left of it
    assert kept["benefits"] == [copy["benefits"][0], fallback["benefits"][1], *copy["benefits"][2:4]]
    assert kept["faq"][0] == {"question": "Is it safe?", "answer": "Yes, it is safe."}  # still long enough
    assert validate(kept, STORE_COPY) == []
    assert dropped == [
        {"field": "benefits[1].text", "sentence": "Certified by the FDA for kitchens.", "why": "certification"},
        {"field": "benefits[4].text", "sentence": "It lasts 25 years or more.", "why": "number"},
        {"field": "faq[0].answer", "sentence": "It is vegan and hypoallergenic.", "why": "certification"},
        {"field": "about", "sentence": "It is made in Portugal from recycled cork.", "why": "origin"},
        {"field": "guarantee", "sentence": "A 30-day money-back guarantee.", "why": "number"},
    ]


def test_a_field_left_empty_by_the_model_is_not_replaced():
    facts = facts_of(knife_strip())
    copy = own_copy(facts)
    copy["subheadline"] = ""
    kept, dropped = claims.filter_copy(copy, facts, offline.write(store_task(facts)), STORE_COPY)
    assert kept == copy and dropped == []


# --- the openai backend, against a real chat-completions server on loopback --------------------


def test_openai_answer_is_used_and_the_request_is_a_chat_completion(chat):
    answer_copy = own_copy()
    chat.reply(completion(json.dumps(answer_copy)))
    answer = complete(store_task(instructions="Keep it short."), settings=openai_settings(chat))
    assert answer == Answer(copy=answer_copy, dropped=[], backend="openai")
    [sent] = chat.received
    assert sent["path"] == "/v1/chat/completions"
    body = sent["body"]
    assert body["model"] == "test-model"
    assert body["response_format"] == {"type": "json_object"} and body["temperature"] == 0.2
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    system, user = (m["content"] for m in body["messages"])
    assert "Write only from the facts" in system and "one JSON object" in system
    assert "Acacia Wood Magnetic Knife Strip" in user and '"minItems": 3' in user and "Keep it short." in user
    assert "authorization" not in sent["headers"]
    assert '"unit_margin"' not in user and '"cost"' not in user and "supplier_quote" not in user


def test_openai_sends_the_key_as_a_bearer_token_only_when_one_is_set(chat):
    chat.reply(completion(json.dumps(own_copy())))
    complete(store_task(), settings=openai_settings(chat, ai_api_key=API_KEY))
    assert chat.received[0]["headers"]["authorization"] == f"Bearer {API_KEY}"


def test_openai_answer_with_an_unbacked_sentence_loses_it_and_reports_it(chat):
    answer_copy = own_copy()
    answer_copy["benefits"][0]["text"] += " Made in Portugal from recycled cork."
    chat.reply(completion(json.dumps(answer_copy)))
    answer = complete(store_task(), settings=openai_settings(chat))
    assert answer.copy["benefits"][0]["text"] == "Your knives hang flat on the wall, within reach."
    assert answer.dropped == [{"field": "benefits[0].text", "sentence": "Made in Portugal from recycled cork.",
                               "why": "origin"}]


def test_openai_invalid_answer_is_asked_again_with_what_was_wrong(chat):
    too_few = own_copy()
    too_few["faq"] = too_few["faq"][:2]
    chat.reply(completion(json.dumps(too_few)))
    chat.reply(completion("```json\n" + json.dumps(own_copy()) + "\n```"))  # one fence is forgiven
    answer = complete(store_task(), settings=openai_settings(chat))
    assert answer.copy["headline"] == "Knives on the wall, counters clear"
    assert len(chat.received) == 2
    retry = chat.received[1]["body"]["messages"][1]["content"]
    assert "Your previous answer was refused: $.faq: must have at least 3 items" in retry


def test_openai_twice_invalid_is_invalid_ai_output(chat):
    chat.reply(completion("Sure! Here is your store copy: headline..."))
    chat.reply(b"<html>not a completion</html>")
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=openai_settings(chat))
    assert caught.value.reason == "invalid_ai_output"
    assert "not a chat completion" in caught.value.detail
    assert len(chat.received) == 2


def test_openai_server_error_is_cli_failed_at_once(chat):
    chat.reply({"error": {"message": "model crashed"}}, status=500)
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=openai_settings(chat))
    assert caught.value.reason == "cli_failed" and "HTTP 500" in caught.value.detail
    assert len(chat.received) == 1


def test_openai_answer_slower_than_the_timeout_is_cli_failed(chat):
    chat.reply(completion(json.dumps(own_copy())), delay=3)
    started = time.monotonic()
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=openai_settings(chat, ai_timeout_seconds=1))
    assert caught.value.reason == "cli_failed" and "longer than 1 s" in caught.value.detail
    assert time.monotonic() - started < 2.5


def test_openai_redirect_is_not_followed_with_the_key(chat):
    # urllib on its own would follow a 302 with a GET that carries the Authorization header.
    chat.reply(b"", status=302, headers={"Location": chat.url + "/elsewhere"})
    chat.reply(completion(json.dumps(own_copy())))
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=openai_settings(chat, ai_api_key=API_KEY))
    assert caught.value.reason == "cli_failed" and "HTTP 302" in caught.value.detail
    assert [r["path"] for r in chat.received] == ["/v1/chat/completions"]


def test_openai_with_nothing_listening_is_cli_unavailable():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = SETTINGS.but(ai_backend="openai", ai_base_url=f"http://127.0.0.1:{port}/v1", ai_model="m")
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=settings)
    assert caught.value.reason == "cli_unavailable"


def test_openai_logs_at_info_neither_the_key_nor_the_prompt(chat, caplog):
    caplog.set_level(logging.INFO)
    chat.reply(completion("not json"))
    chat.reply({"error": "overloaded"}, status=503)
    with pytest.raises(AIError):
        complete(store_task(), settings=openai_settings(chat, ai_api_key=API_KEY))
    chat.reply(completion(json.dumps(own_copy())))
    complete(store_task(), settings=openai_settings(chat, ai_api_key=API_KEY))
    logged = "\n".join(f"{r.getMessage()} {getattr(r, 'fields', '')}" for r in caplog.records
                       if r.levelno >= logging.INFO)
    assert "ai copy written" in logged and "ai answer refused" in logged
    assert API_KEY not in logged and "neodymium" not in logged and "Write only from the facts" not in logged


# --- the command backend, running real scripts --------------------------------------------------

SCRIPTED = '''
import json, pathlib, sys
here = pathlib.Path(__file__).parent
request = json.load(sys.stdin)
with open(here / "requests.jsonl", "a") as log:
    log.write(json.dumps(request) + "\\n")
answers = json.loads((here / "answers.json").read_text())
count = len((here / "requests.jsonl").read_text().splitlines())
sys.stdout.write(answers[min(count, len(answers)) - 1])
'''


def script(tmp_path: Path, source: str, answers: list[str] | None = None) -> str:
    path = tmp_path / "ai_program.py"
    path.write_text(source)
    if answers is not None:
        (tmp_path / "answers.json").write_text(json.dumps(answers))
    return f"{sys.executable} {path}"


def command_settings(command: str, **changes):
    return SETTINGS.but(**{"ai_backend": "command", "ai_command": command, "ai_timeout_seconds": 10, **changes})


def requests_seen(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]


def test_command_answer_is_used_and_the_program_reads_the_whole_prompt(tmp_path):
    answer_copy = own_copy()
    command = script(tmp_path, SCRIPTED, [json.dumps(answer_copy)])
    answer = complete(store_task(instructions="Warmer, please."), settings=command_settings(command))
    assert answer == Answer(copy=answer_copy, dropped=[], backend="command")
    [request] = requests_seen(tmp_path)
    assert request["kind"] == "store_copy" and request["instructions"] == "Warmer, please."
    assert request["current"] is None and request["schema"] == STORE_COPY
    assert request["facts"]["product"]["name"] == "Acacia Wood Magnetic Knife Strip, 16 in"
    assert request["facts"]["offer"] == {"price": 34.99, "currency": "USD"} and "one JSON object" in request["rules"]
    # The seller's private figures never leave the service.
    assert "cost" not in request["facts"]["product"] and "rank" not in request["facts"]["product"]
    assert "unit_price_quote" not in json.dumps(request) and "7.85" not in json.dumps(request)


def test_command_invalid_answer_is_asked_again_and_then_used(tmp_path):
    command = script(tmp_path, SCRIPTED, ['{"headline": "Only this"}', json.dumps(own_copy())])
    answer = complete(store_task(), settings=command_settings(command))
    assert answer.copy["headline"] == "Knives on the wall, counters clear"
    first, second = requests_seen(tmp_path)
    assert "previous_error" not in first and "$: missing key 'benefits'" in second["previous_error"]


def test_command_garbage_twice_is_invalid_ai_output(tmp_path):
    command = script(tmp_path, SCRIPTED, ["I am sorry, I cannot do that.", "[1, 2, 3]"])
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=command_settings(command))
    assert caught.value.reason == "invalid_ai_output" and "not one JSON object" in caught.value.detail
    assert len(requests_seen(tmp_path)) == 2


def test_command_exiting_with_an_error_is_cli_failed(tmp_path):
    command = script(tmp_path, "import sys\nsys.stdin.read()\nsys.stderr.write('model not loaded')\nsys.exit(1)\n")
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=command_settings(command))
    assert caught.value.reason == "cli_failed" and "exited with status 1" in caught.value.detail
    assert "model not loaded" not in caught.value.detail


def test_command_past_its_time_is_stopped_with_what_it_started_and_is_cli_failed(tmp_path):
    command = script(tmp_path, (
        "import os, pathlib, subprocess, sys, time\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"pathlib.Path({str(tmp_path / 'pids')!r}).write_text(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(60)\n"))
    started = time.monotonic()
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=command_settings(command, ai_timeout_seconds=1))
    assert caught.value.reason == "cli_failed" and "longer than 1 s" in caught.value.detail
    assert time.monotonic() - started < 5
    for pid in map(int, (tmp_path / "pids").read_text().split()):
        assert not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether the process still runs (a zombie waiting for its parent has stopped)."""
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def test_command_that_does_not_exist_is_cli_unavailable(tmp_path):
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=command_settings(str(tmp_path / "no-such-model-cli") + " --json"))
    assert caught.value.reason == "cli_unavailable" and "no-such-model-cli" in caught.value.detail


def test_command_printing_more_than_a_mebibyte_is_invalid_ai_output(tmp_path):
    command = script(tmp_path, "import sys\nsys.stdin.read()\nsys.stdout.write('{\"x\": \"' + 'a' * 2_000_000 + '\"}')\n")
    with pytest.raises(AIError) as caught:
        complete(store_task(), settings=command_settings(command))
    assert caught.value.reason == "invalid_ai_output" and "more than 1048576 bytes" in caught.value.detail
