"""The OpenAPI document: generated from the routes, documents every refusal's reasons, and
is fuzzed in-process by schemathesis (no server error; every answer matches the document)."""
import schemathesis
from schemathesis.checks import positive_data_acceptance
from hypothesis import HealthCheck, settings

from api import create_app
from tests.conftest import SETTINGS
from services.reasons import REASONS


def test_document_lists_every_route_with_responses(app, client):
    document = client.get("/api/openapi.json").get_json()
    assert document["openapi"].startswith("3.")
    operations = {(method.upper(), path) for path, ops in document["paths"].items() for method in ops
                  if method != "parameters"}
    controls = {tuple(key.split(" ", 1)) for key in client.get("/api/controls").get_json()["controls"]}
    assert operations == controls
    for path, ops in document["paths"].items():
        for method, operation in ops.items():
            if method == "parameters":
                continue
            assert operation["summary"], (method, path)
            assert "500" in operation["responses"] and "503" in operation["responses"]


def test_every_documented_refusal_names_registered_reasons(client):
    document = client.get("/api/openapi.json").get_json()
    for ops in document["paths"].values():
        for method, operation in ops.items():
            if method == "parameters":
                continue
            for response in operation["responses"].values():
                if "application/json" not in response.get("content", {}):  # a redirect, or GET /metrics' text
                    continue
                schema = response["content"]["application/json"]["schema"]
                for option in schema.get("anyOf", [schema]):
                    reason = option.get("properties", {}).get("reason", {})
                    assert set(reason.get("enum", [])) <= set(REASONS)


def test_document_records_the_decisions(client):
    info = client.get("/api/openapi.json").get_json()["info"]
    assert len(info["x-decisions"]) >= 5
    assert "internal_error" in info["description"]


# Loaded at collection from its own instance of the real app (schemathesis' fixture
# loader does not work with pytest 9).
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", create_app(SETTINGS))


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_matches_its_document(case, worker):
    # Every other built-in check runs (no server error, status codes, content types, headers
    # and bodies as documented, schema-violating input refused). A schema-valid value may
    # still be refused for what it means (an empty address, an unknown product): those
    # refusals are documented 4xx answers, so "positive data acceptance" does not apply.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
