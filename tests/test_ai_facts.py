"""What the services hand the AI seam (services/ai_facts.py): the evidence without the
founder's private readings, and what it backs in a shopper's words (never its figures or
sources: issue 47). The seam decides neither: a private reading never reaches a hosted model,
whatever the catalog calls it, and every place that gives the seam a product's evidence
builds its facts here."""
from __future__ import annotations

import ast
import json
from datetime import timedelta

from integrations.ai import claims, offline
from services import ai_facts
from services.growth import ad_copy
from services.store import facts as store_facts
from tests.ai_factories import completion, facts_of, knife_strip
from tests.conftest import ROOT
from tests.factories import TODAY, built, claimed_founder, demo_item

# A money reading under a name no catalog of ours uses, with figures found nowhere else.
QUOTE = {"date": (TODAY - timedelta(days=12)).isoformat(), "source": "supplier_portal", "metric": "wholesaleCost",
         "value": 7.37, "note": "quoted for 413 units"}


def test_a_private_reading_never_reaches_the_hosted_model_of_a_store_build(founder, run_jobs, settings_with, chat):
    line = demo_item()
    line["evidence"].append(QUOTE)
    client = claimed_founder(founder, line)
    loaded = store_facts.load("p00")
    assert any(row["metric"] == "wholesaleCost" for row in loaded.evidence)  # the store's own facts keep it
    facts = ai_facts.facts_for(product=loaded.product, evidence=loaded.evidence, offer=loaded.offer)
    chat.reply(completion(json.dumps(offline.store_copy(facts))))
    chat.reply(completion(json.dumps(ad_copy.ad_copy(facts))))  # the ad written once the store is built
    settings_with(ai_backend="openai", ai_base_url=chat.url, ai_model="test-model", ai_timeout_seconds=5)

    state = built(client, run_jobs)
    run_jobs()

    assert state["status"] == "built"
    assert [ad_copy.ASKS_COPY in r["body"]["messages"][1]["content"] for r in chat.received] == [False, True]
    for request in chat.received:
        sent = json.dumps(request["body"], ensure_ascii=False)
        assert "interest_index" in sent  # the evidence a shopper may be told is given
        for private in ("wholesaleCost", "supplier_portal", "7.37", "413"):
            assert private not in sent, private


def test_the_seam_is_given_the_evidence_without_money_and_what_it_backs_in_a_shoppers_words():
    product = knife_strip()
    facts = facts_of(product)
    assert any(row["metric"] == "unit_price_quote" for row in product["evidence"])
    assert [row for row in product["evidence"] if row["metric"] != "unit_price_quote"] == facts.evidence
    # What a shopper may be told is the store's own line, with no figure, rank or source (issue 47).
    [line] = facts.demand
    assert line in (f"Shoppers are looking for {product['name']}.",
                    f"More and more shoppers are looking for {product['name']}.")
    # The store's copy leaves the line to the store's evidence section, and tells none of the research.
    copy = json.dumps(offline.store_copy(facts), ensure_ascii=False)
    assert line not in copy and "22,400" not in copy


def test_the_store_copywriter_writes_the_same_copy_with_or_without_the_research_sentences():
    facts = facts_of(knife_strip())
    told = offline.store_copy(facts)
    untold = offline.store_copy(ai_facts.Facts(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                                               business=facts.business))
    assert told == untold


def test_a_rank_and_a_count_of_any_catalog_back_a_shopper_line_without_their_figures_and_money_never():
    rows = [{"date": "2026-10-01", "source": "shop_feed", "metric": "category_rank", "value": 900, "note": ""},
            {"date": "2026-11-01", "source": "shop_feed", "metric": "category_rank", "value": 400, "note": ""},
            {"date": "2026-11-02", "source": "shop_feed", "metric": "units_sold_30d", "value": 1250, "note": ""},
            {"date": "2026-11-03", "source": "shop_feed", "metric": "return_rate", "value": 0.04, "note": ""},
            {"date": "2026-11-04", "source": "quotes", "metric": "fob_price", "value": 3.5, "note": ""}]
    facts = ai_facts.facts_for(product={"name": " Knife   Strip "}, evidence=rows, offer=None)
    # A rank that improves (900 -> 400) is rising demand.
    assert facts.demand == ("More and more shoppers are looking for Knife Strip.",)
    assert [row["metric"] for row in facts.evidence] == [
        "category_rank", "category_rank", "units_sold_30d", "return_rate"]
    # Without a name there is nothing to say shoppers look for; without demand, nothing backs it.
    assert ai_facts.facts_for(product={}, evidence=rows, offer=None).demand == ()
    assert ai_facts.facts_for(product={"name": "Knife Strip"}, evidence=rows[3:], offer=None).demand == ()


def test_public_copy_is_backed_by_the_facts_without_the_research():
    facts = facts_of(knife_strip())
    public = claims.public_backing(facts)
    assert public.evidence == [] and public.product == facts.product and public.demand == facts.demand


# --- every place that gives the seam a product's evidence builds its facts with facts_for ---------

SEAM_FACTS = ("integrations.ai", "integrations.ai.task")


def _seam_facts_calls(path):
    """(line, the evidence argument) of every call of the seam's Facts in the module."""
    tree = ast.parse(path.read_text())
    names, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in SEAM_FACTS:
            names |= {alias.asname or alias.name for alias in node.names if alias.name == "Facts"}
        elif isinstance(node, ast.ImportFrom) and node.module == "integrations":
            modules |= {alias.asname or alias.name for alias in node.names if alias.name == "ai"}
        elif isinstance(node, ast.Import):
            modules |= {alias.asname for alias in node.names if alias.name == "integrations.ai" and alias.asname}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = node.func
        if (isinstance(called, ast.Name) and called.id in names) or (
                isinstance(called, ast.Attribute) and called.attr == "Facts" and isinstance(called.value, ast.Name)
                and called.value.id in modules):
            given = {k.arg: k.value for k in node.keywords}
            yield node.lineno, given.get("evidence", node.args[1] if len(node.args) > 1 else None)


def test_facts_with_evidence_are_built_only_where_the_private_readings_are_left_out():
    built_by_hand, found = {}, 0
    for package in ("api", "jobs", "services", "integrations"):
        for path in (ROOT / package).rglob("*.py"):
            if path == ROOT / "services" / "ai_facts.py":
                continue
            for line, evidence in _seam_facts_calls(path):
                found += 1
                if not (isinstance(evidence, ast.List) and not evidence.elts):
                    built_by_hand[f"{path.relative_to(ROOT)}:{line}"] = ast.unparse(evidence) if evidence else None
    assert built_by_hand == {}
    assert found >= 3  # the check reads the calls it is about (Fix's drafts, the assistant, the desk)


def test_the_facts_check_reads_every_spelling(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from integrations import ai\nfrom integrations.ai.task import Facts as F\n"
                      "from services.research.records import Facts\n"
                      "ai.Facts(product={}, evidence=rows, offer=None)\nF({}, [], None)\n"
                      "F(product={}, evidence=[row], offer=None)\nFacts(record, rows, peers)\n")
    assert [(line, ast.unparse(evidence)) for line, evidence in _seam_facts_calls(sample)] == [
        (4, "rows"), (5, "[]"), (6, "[row]")]
