"""The reasons registry and the controls registry (spec 2.16, 7.1.3)."""
import ast
from pathlib import Path

import pytest

from api.openapi import iter_routes
from api.routing import BODY_METHODS, declaration_of, declares_answers, takes_form_body, takes_json_body
from services.errors import Refused
from services.reasons import REASONS
from tests.factories import EXPLANATION_ONLY_401, EXPLANATION_ONLY_BODY

ROOT = Path(__file__).resolve().parent.parent
SOURCE_PACKAGES = ("api", "services", "jobs", "workers", "integrations", "models", "deploy")
REGISTRY_FILES = {ROOT / "services" / "reasons.py", ROOT / "services" / "reasons_spec.py"}

# Every code of interface-spec section 7.2, copied literally.
SPEC_7_2 = [
    "account_required", "invalid_link", "no_account", "no_account_yet", "invalid_email", "not_shown",
    "claimed_by_another_founder", "held_by_another_founder", "passed_by_you", "all_held", "passed_out",
    "catalog_exhausted", "claim_limit_reached", "not_servable", "unknown_product", "no_product", "no_claim",
    "not_claimed", "not_yet_researched", "not_started", "build_in_progress", "generation_failed", "verify_failed",
    "unknown_section", "no_section", "not_an_intent", "no_row_justifies_this", "no_proposal_echoed",
    "stale_proposal", "nothing_to_apply", "nothing_to_revert", "irreversible_without_confirmation",
    "intents_book_unreadable", "apply_build_raised", "revert_build_raised", "order_build_raised", "no_message",
    "message_too_long", "cli_unavailable", "cli_failed", "editor_unavailable", "unbacked_claim", "unknown_field",
    "unknown_diff", "unknown_version", "no_diff", "too_long", "nothing_to_undo", "nothing_to_redo", "no_history",
    "no_direction", "invalid_platform", "invalid_editor_response", "usage_limit_reached", "weekly_limit_reached",
    "unknown_tier", "billing_unconfigured", "unsigned_callback", "payment_unavailable", "legacy_checkout_retired",
    "ticket_not_found", "unknown_action", "bad_field", "resolution_required", "empty_reply", "empty_note",
    "unknown_op", "no_question", "empty_question", "no_query_terms", "invalid_name", "invalid_description",
    "invalid_price", "invalid_images", "images_too_large", "nothing_to_record", "invalid_outcome",
    "no_claim_record", "nothing_to_analyze", "no_product_id", "not_presearch_qualified", "no_worker",
    "no_orders_yet", "no_tickets_yet", "nothing_to_watch", "order_not_found", "not_available",
]
# Also named by the spec outside 7.2, or by decisions.md.
SPEC_OTHER = ["unknown_surface", "not_found", "invalid_action", "bad_signature", "internal_error", "invalid_json",
              "launch_blocked"]

# Registered codes whose feature is not built yet, so no code emits them. Each feature
# that lands removes its codes from here; the test below keeps this list exact.
AWAITING_FEATURE = set(SPEC_7_2 + SPEC_OTHER) - {
    "not_found", "internal_error", "invalid_json",
    # accounts, sign-in, the meter and billing
    "account_required", "invalid_email", "no_account", "invalid_link", "usage_limit_reached",
    "weekly_limit_reached", "bad_signature", "billing_unconfigured", "unknown_tier", "unsigned_callback",
    # discovery, holds and claims
    "all_held", "passed_out", "catalog_exhausted", "not_servable", "claim_limit_reached",
    "claimed_by_another_founder", "held_by_another_founder", "not_shown", "passed_by_you", "no_product",
    "no_product_id", "unknown_product", "not_presearch_qualified", "invalid_action", "nothing_to_watch",
    # research and verdict
    "nothing_to_record", "invalid_outcome", "no_claim", "no_claim_record", "not_claimed", "not_yet_researched",
    "nothing_to_analyze", "invalid_name", "invalid_description",
    # ask
    "no_question", "empty_question", "no_query_terms",
    # research workspace
    "empty_note",
    # the 3D preview
    "no_worker",
    # storefronts
    "generation_failed", "not_started", "verify_failed", "unbacked_claim",
    # store intents
    "not_an_intent", "no_row_justifies_this", "unknown_section", "unknown_surface", "no_section",
    "no_proposal_echoed", "stale_proposal", "nothing_to_apply", "nothing_to_revert",
    "irreversible_without_confirmation", "build_in_progress", "intents_book_unreadable", "apply_build_raised",
    "revert_build_raised", "order_build_raised",
    # the store editor's history
    "editor_unavailable", "unknown_field", "unknown_version", "nothing_to_undo", "nothing_to_redo", "no_history",
    "no_direction", "no_message", "message_too_long",
    # plain-language edits
    "no_diff", "too_long", "cli_unavailable", "cli_failed", "unknown_diff",
    # the launch state machine
    "launch_blocked",
    # the founder's own product
    "invalid_price", "invalid_images", "images_too_large",
    # commerce and payments
    "no_orders_yet", "order_not_found", "payment_unavailable",
    # domains
    "not_available",
    # growth: ads, organic research, the campaign book and the ad balance
    "invalid_platform", "invalid_editor_response", "legacy_checkout_retired",
    # the support desk (and the support agent's draft of a ticket's reply)
    "ticket_not_found", "unknown_action", "bad_field", "resolution_required", "empty_reply", "unknown_op",
    "no_tickets_yet",
}


_CALLS_FIRST = {"Refused", "JobFailed"}
_CALLS_SECOND = {"ApiError", "refusal"}


def _codes_in(node) -> set[str]:
    if node is None:
        return set()
    return {n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and "_" in n.value
            and n.value.replace("_", "").isalnum() and n.value.islower()}


def _name(func) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def emitted_codes(paths) -> dict[str, set[str]]:
    """Codes written at the places a reason is given: Refused(code), JobFailed(code),
    ApiError(status, code), refusal(status, code), reason=code, {"reason": code},
    reason = code, refuses={...}, and the *_REASONS / *_REFUSALS tables."""
    found: dict[str, set[str]] = {}
    for path in paths:
        tree = ast.parse(path.read_text(), filename=str(path))
        codes: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = _name(node.func)
                if name in _CALLS_FIRST and node.args:
                    codes |= _codes_in(node.args[0])
                if name in _CALLS_SECOND and len(node.args) > 1:
                    codes |= _codes_in(node.args[1])
                for keyword in node.keywords:
                    if keyword.arg in ("reason", "refuses"):
                        codes |= _codes_in(keyword.value)
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "reason":
                        codes |= _codes_in(value)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and (target.id == "reason" or target.id.endswith(("_REASONS", "_REFUSALS"))):
                        codes |= _codes_in(node.value)
        if codes:
            found[str(path.relative_to(ROOT))] = codes
    return found


def _source_files():
    return [p for package in SOURCE_PACKAGES for p in (ROOT / package).rglob("*.py") if p not in REGISTRY_FILES]


def test_reasons_endpoint_serves_the_whole_registry_with_count(client):
    body = client.get("/api/reasons").get_json()
    assert body["count"] == len(body["reasons"]) == len(REASONS)
    assert all(isinstance(text, str) and text.endswith(".") for text in body["reasons"].values())


def test_every_code_the_spec_names_is_registered(client):
    served = client.get("/api/reasons").get_json()["reasons"]
    assert sorted(set(SPEC_7_2 + SPEC_OTHER) - set(served)) == []


def test_every_code_the_code_emits_is_registered():
    emitted = emitted_codes(_source_files())
    unregistered = {path: sorted(codes - set(REASONS)) for path, codes in emitted.items() if codes - set(REASONS)}
    assert unregistered == {}


def test_every_registered_code_is_emitted_or_awaits_its_feature():
    emitted = set().union(*emitted_codes(_source_files()).values())
    assert sorted(set(REASONS) - emitted - AWAITING_FEATURE) == [], "registered but never emitted"
    assert sorted(AWAITING_FEATURE & emitted) == [], "emitted now: remove from AWAITING_FEATURE"


def test_the_scanner_finds_codes_in_every_position(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        'raise Refused("aa_one")\nraise ApiError(400, "bb_two")\nf(reason="cc_three")\n'
        'x = {"reason": "dd_four"}\nreason = "ee_five" if y else "ff_six"\nMY_REASONS = {1: "gg_seven"}\n'
        '@endpoint(refuses={409: ["hh_eight"]})\ndef v(): pass\n'
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        codes = emitted_codes([sample])["sample.py"]
    finally:
        ROOT = saved
    assert codes == {"aa_one", "bb_two", "cc_three", "dd_four", "ee_five", "ff_six", "gg_seven", "hh_eight"}


def test_refusing_with_an_unregistered_code_fails_loudly():
    with pytest.raises(ValueError):
        Refused("no_such_code_anywhere")


def test_controls_list_exactly_the_routes_that_exist(app, client):
    served = client.get("/api/controls").get_json()
    expected = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            expected.add(f"{method} {rule.rule.replace('<', '{').replace('>', '}')}")
    assert set(served["controls"]) == expected
    assert served["count"] == len(expected)
    assert all(entry["description"] for entry in served["controls"].values())
    assert "GET /api/health" in served["controls"]


def test_every_route_declares_its_body_its_answers_and_whether_it_changes_state(app):
    lacking = []
    for rule, method, view in iter_routes(app):
        if rule.endpoint == "static":
            continue
        declaration = declaration_of(view)
        if declaration is None:
            lacking.append(f"{method} {rule.rule}: no bp.declare(changes_state=...)")
            continue
        if not declares_answers(view):
            lacking.append(f"{method} {rule.rule}: no bp.response(...)")
        if method in BODY_METHODS and not (takes_json_body(view) or takes_form_body(view) or declaration.no_body):
            lacking.append(f"{method} {rule.rule}: no bp.arguments(Body) and no no_body=True")
        if method in BODY_METHODS and not declaration.changes_state:
            lacking.append(f"{method} {rule.rule}: a body-taking method declared as not changing state")
    assert lacking == []


def test_the_declaration_check_would_catch_an_undeclared_route():
    import flask

    from api import create_app
    from tests.conftest import SETTINGS

    probed = create_app(SETTINGS)
    bare = flask.Blueprint("bare_registry_probe", __name__)
    bare.add_url_rule("/api/_probe/naked", "naked", lambda: {}, methods=["POST"])
    probed.register_blueprint(bare)
    naked = probed.view_functions["bare_registry_probe.naked"]
    assert declaration_of(naked) is None and not declares_answers(naked) and not takes_json_body(naked)


def test_every_declared_refusal_is_registered(app):
    for _rule, _method, view in iter_routes(app):
        for codes in (declaration_of(view).refuses if declaration_of(view) else {}).values():
            assert set(codes) <= set(REASONS)


def test_only_the_research_routes_refuse_without_a_reason_and_only_with_the_sign_in_sentence(app, client):
    declared = {f"{method} {rule.rule}" for rule, method, view in iter_routes(app)
                if declaration_of(view) is not None and declaration_of(view).sign_in_to_research}
    assert declared == EXPLANATION_ONLY_401
    for route in sorted(EXPLANATION_ONLY_401):
        method, path = route.split(" ")
        response = client.open(path, method=method, json={} if method in BODY_METHODS else None)
        assert (response.status_code, response.get_json()) == (401, EXPLANATION_ONLY_BODY), route


def test_every_documented_refusal_requires_a_reason_but_the_research_routes_401(client):
    document = client.get("/api/openapi.json").get_json()
    without_reason = set()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                schema = response.get("content", {}).get("application/json", {}).get("schema")
                if int(status) < 400 or schema is None:
                    continue
                if not all("reason" in option.get("required", []) for option in schema.get("anyOf", [schema])):
                    without_reason.add((f"{method.upper()} {path}", status))
    assert without_reason == {(route, "401") for route in EXPLANATION_ONLY_401}
