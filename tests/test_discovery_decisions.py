"""The discovery decisions in the served OpenAPI document (info.x-decisions) state the
numbers the code runs with: they are generated from the constants and settings defaults,
so changing one changes the document."""
import importlib

import config
import services.discovery as discovery
from api import create_app
from tests.conftest import SETTINGS


def _decisions(app) -> str:
    return " ".join(app.test_client().get("/api/openapi.json").get_json()["info"]["x-decisions"])


def _expected_sentences() -> list[str]:
    settings = config.Settings
    return [
        f"Holds last {discovery.HOLD_MINUTES} minutes (`held_minutes: {discovery.HOLD_MINUTES}`)",
        f"then up to {discovery.FEED_SIZE - 1} candidates",
        f"Evidence gate (EVIDENCE_MIN_ROWS={settings.evidence_min_rows}, "
        f"EVIDENCE_MAX_AGE_DAYS={settings.evidence_max_age_days}, MIN_MARGIN_PCT={settings.min_margin_pct})",
        f"at least {settings.evidence_min_rows} dated evidence rows from the last {settings.evidence_max_age_days} days",
        f"of at least {settings.min_margin_pct} %",
        f"Claim allowance: base {discovery.BASE_ALLOWANCE}, +1 per share action, at most "
        f"{discovery.BASE_ALLOWANCE + discovery.MAX_SHARE_LIFTS} (after {discovery.MAX_SHARE_LIFTS} lifting shares",
        f"waits up to DISCOVER_WAIT_SECONDS ({settings.discover_wait_seconds})",
        f"DISCOVER_MAX_ADD ({settings.discover_max_add})",
        f"DISCOVER_TIMEOUT_SECONDS ({settings.discover_timeout_seconds})",
        f"runs {discovery.DISCOVER_SCRIPT} in a worker",
    ]


def test_decisions_state_the_numbers_the_code_runs_with(client):
    decisions = _decisions(client.application)
    for sentence in _expected_sentences():
        assert sentence in decisions
    assert "Holds last 30 minutes" in decisions  # decisions.md's hold window, as shipped


def test_a_changed_constant_or_default_shows_in_the_served_document(monkeypatch):
    import api.discovery

    for name, value in (("HOLD_MINUTES", 45), ("FEED_SIZE", 9), ("BASE_ALLOWANCE", 2), ("MAX_SHARE_LIFTS", 6),
                        ("DISCOVER_SCRIPT", "scripts/other.py")):
        monkeypatch.setattr(discovery, name, value)
    for name, value in (("evidence_min_rows", 3), ("evidence_max_age_days", 400), ("min_margin_pct", 35),
                        ("discover_wait_seconds", 90), ("discover_max_add", 7), ("discover_timeout_seconds", 33)):
        monkeypatch.setattr(config.Settings, name, value)
    try:
        importlib.reload(api.discovery)  # the decisions are built when the module loads
        decisions = _decisions(create_app(SETTINGS))
        for sentence in _expected_sentences():
            assert sentence in decisions
        assert "Holds last 45 minutes (`held_minutes: 45`)" in decisions
        assert "at most 8 (after 6 lifting shares" in decisions
        assert "Holds last 30 minutes" not in decisions
    finally:
        monkeypatch.undo()
        importlib.reload(api.discovery)
    assert "Holds last 30 minutes" in " ".join(api.discovery.DECISIONS)
