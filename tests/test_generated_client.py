"""A Python client generated from the served document (openapi-python-client, pinned in
requirements-dev.txt; the generated code is never committed) drives a founder's journey
against the app: find, claim, the offer, a store build polled until built, publish, a
customer's sandbox checkout and its confirmation. Every answer must parse into the client's
typed model of the route's 200 answer: a document that says less (or other) than the service
answers fails here, as it would fail a client's developer (issue 29)."""
import importlib
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.factories import ADDRESS, demo_item, load, path_of

PACKAGE = "ff_client"
# Binary answers (images, the SVG logo) are read as bytes (README, "API").
GENERATOR_CONFIG = Path(__file__).resolve().parent.parent / "openapi-client.yaml"


@pytest.fixture(scope="module")
def generated(app, tmp_path_factory):
    """The client package, generated from GET /api/openapi.json into a temporary folder."""
    folder = tmp_path_factory.mktemp("client")
    document = folder / "openapi.json"
    document.write_text(json.dumps(app.test_client().get("/api/openapi.json").get_json()))
    generator = Path(sys.executable).parent / "openapi-python-client"
    run = subprocess.run([str(generator), "generate", "--path", str(document), "--meta", "none",
                          "--output-path", str(folder / PACKAGE), "--config", str(GENERATOR_CONFIG)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    # Every operation made it into the client: a warning means a piece the generator dropped.
    assert "Warning" not in run.stdout, run.stdout
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _operation(package, area: str, name: str):
    return importlib.import_module(f"{PACKAGE}.api.{area}.{name}")


def _answer(response, model: str):
    """The parsed 200 answer, which must be the route's own answer model (not a refusal)."""
    assert response.status_code == 200, (response.status_code, response.content[:300])
    assert type(response.parsed).__name__ == model, (type(response.parsed).__name__, response.content[:300])
    return response.parsed


def test_a_generated_client_runs_a_founders_journey(app, generated, run_jobs):
    load(demo_item())
    transport = httpx.WSGITransport(app=app)
    founder = generated.Client(base_url="http://localhost", raise_on_unexpected_status=True,
                               httpx_args={"transport": transport})
    models = importlib.import_module(f"{PACKAGE}.models")

    card = _answer(_operation(generated, "discovery", "get_api_find").sync_detailed(client=founder), "Card")
    claimed = _answer(_operation(generated, "discovery", "post_api_pass").sync_detailed(
        client=founder, body=models.PassBody(action=models.PassBodyAction.CLAIM)), "PassAnswer")
    assert claimed.status == "claimed" and card.product_id == "p00"
    _answer(_operation(generated, "research", "get_api_offer").sync_detailed(client=founder), "OfferAnswer")

    _answer(_operation(generated, "store", "post_api_store").sync_detailed(client=founder), "StoreAnswer")
    for _attempt in range(5):  # polled as the app polls, a worker drain between polls
        run_jobs()
        state = _answer(_operation(generated, "store", "get_api_store").sync_detailed(client=founder), "StoreAnswer")
        if state.status == "built":
            break
    assert state.status == "built"
    published = _answer(_operation(generated, "store", "post_api_store_publish").sync_detailed(client=founder),
                        "StoreAnswer")
    assert published.status == "published"

    customer = generated.Client(base_url="http://localhost", raise_on_unexpected_status=True,
                                httpx_args={"transport": transport})
    order = _answer(_operation(generated, "commerce", "post_api_store_checkout").sync_detailed(
        client=customer, body=models.CheckoutBody(product_id="p00", quantity=1, email="buyer@example.com")),
        "CheckoutAnswer")
    # The sandbox's hosted page is an HTML form, which a customer's browser fills in.
    paid = customer.get_httpx_client().post(path_of(order.checkout_url), data={"action": "pay", **ADDRESS})
    assert paid.status_code == 303, paid.text[:300]
    run_jobs()
    confirmed = _answer(_operation(generated, "commerce", "get_api_store_confirm").sync_detailed(
        client=customer, order_id=order.order_id), "ConfirmAnswer")
    assert confirmed.state == "paid" and confirmed.order_id == order.order_id
