"""The isolation sweep (reliability guide, "Isolation and injection"): every operation of the
served OpenAPI document, called by founder B with founder A's identifiers, shows nothing of A
and changes nothing of A.

Founder A goes through a rich journey (tests/isolation_journey.py) and writes marker texts
wherever it writes anything. Then two founders B, an anonymous session and a signed-in
account with a claimed product of its own, call every operation of the document: A's
identifiers go wherever a parameter names one (path, query, body), other required values are
filled from the schema, and a body whose `action` or `op` picks what it does is sent once per
choice. No answer to B may hold A's markers (B's own request aside: an echo of what B sent
is not a leak), every answer is JSON or the type the document gives that status, and A's reads
answer the same after the sweep as before it (clocks aside).

The iteration is over the document, so a new route is swept the day it is documented (the
document lists every route: tests/test_openapi.py); a route that is public on purpose is
listed in PUBLIC with its reason, and is still swept for A's private markers and its type."""
from __future__ import annotations

import itertools
import re

import pytest

from tests.factories import claim, cookie_of, find, payment_of
from tests.fix_site import Site
from tests.isolation_journey import (
    A_EMAIL,
    B_EMAIL,
    PRIVATE,
    STOREFRONT,
    catalog_for_two,
    founder_a,
)
from tests.mailbox import sign_in_here

pytestmark = pytest.mark.usefixtures("jobs_drained")

# Operations whose answers are meant for whoever calls them, with why. They are swept after
# A's state is compared (what they change of A is theirs to change: a customer's order, a
# provider's notice), and their answers are still checked for A's private markers, but for
# those named beside the reason (what the route hands to the holder of its key).
PUBLIC = {
    "GET /store/{slug}/": ("A's published store is for everyone", set()),
    "GET /store/{slug}/{name}": ("a page of A's published store is for everyone", set()),
    "GET /store/{slug}/checkout": ("the buy box of A's published store", set()),
    "POST /store/{slug}/checkout": ("a customer buying from A's published store (a new order of A's)", set()),
    "GET /store/{slug}/thanks": ("the customer's thank-you page of A's store", set()),
    "POST /api/store/checkout": ("a customer buying from A's published store (a new order of A's)", set()),
    "GET /api/store/confirm": ("the public confirmation of an order (spec 4.7); it names no customer", set()),
    "POST /api/track": ("the funnel events A's store pages send for their visitors (spec 4.7)", set()),
    "POST /api/support": ("a customer asking A's published store (its product_id) a question", set()),
    "GET /api/model/{product_id}.gltf": ("the 3D model of a catalog product, shown on store pages", set()),
    "GET /pay/sandbox/checkout/{checkout_id}": ("the provider's hosted page, keyed by its unguessable id: the "
                                                "customer's own page, which shows the address it pays for",
                                                {"customer_email"}),
    "POST /pay/sandbox/checkout/{checkout_id}": ("the provider's hosted page, keyed by its unguessable id", set()),
    "GET /pay/sandbox/v1/checkouts/{checkout_id}": ("the provider's own state API, keyed by the same id", set()),
    "GET /pay/landing": ("the provider's redirect back: asks the provider, names nothing", set()),
    "GET /pay/back": ("the provider's redirect back: asks the provider, names nothing", set()),
    "POST /pay/notify": ("the provider's signed notification (refused unsigned)", set()),
    "POST /api/billing/webhook": ("the billing provider's signed callback (refused unsigned)", set()),
    "GET /api/fix/mine": ("with a token: the Fix run's token is its key (spec 2.15; whoever holds it reads it)",
                          set()),
    "GET /api/fix/page": ("a corrected page of a Fix run, by its token", set()),
    "POST /api/fix/event": ("an event of a Fix run, by its token (spec 4.6, optional auth)", set()),
    "POST /api/fix/feedback": ("feedback on a Fix run, by its token (spec 4.6, optional auth)", set()),
    "POST /api/journey/{carrier_id}/consume": ("a journey carrier is a bearer link: whoever opens it first gets "
                                               "its screen and data, once (spec 4.7)", {"journey_data"}),
    "GET /r/{code}": ("A's referral link, made to be shared", set()),
    "POST /api/login/request": ("anyone may ask a link for any address; the body never tells (spec 5.6)", set()),
    "POST /api/auth/request-link": ("anyone may ask a link for any address; the answer is always {ok: true}", set()),
    "GET /internal/domain-check": ("the TLS server's question whether a domain is connected to a store", set()),
}

# Parameters that carry something of A's, by name, beyond those the journey collects under
# the same name ({name} in the document -> the journey's key).
ALIASES = {"product": "product_id", "order": "order_id", "carrier_id": "carrier_id", "email": "email"}
# Values a parameter needs to reach past its own validation to the ownership check.
EXTRA = {
    "POST /api/helpdesk": {"field": "status", "value": "closed", "resolution": "B closes it", "text": "B was here"},
    "POST /api/ad/edit": {"field": "headline", "value": "B's headline"},
    "POST /api/journey": {"route": "#/app/home"},
    "POST /api/settings/rules": {"keyword": "bkeyword", "set": {"priority": "low"}},
    "POST /api/organic/approve": {"platform": "tiktok", "post_id": "1"},
    "GET /api/fix/page": {"page": "/"},
}
VARIANT_FIELDS = ("action", "op")
FILLER = "bsweep01"  # 8 letters and digits: what every pattern of the document takes


# Reads of A's whose answers hold A's markers: the self-check sweeps them as A, and the
# detector must flag each (a leak there would be caught).
KNOWN_TO_SHOW_A = {"GET /api/helpdesk", "GET /api/todos", "GET /api/research-workspace", "GET /api/ads-manager",
                   "GET /api/ad", "GET /api/settings/payout", "GET /api/settings/business", "GET /api/product"}


def test_no_operation_called_by_another_founder_shows_or_changes_anything_of_yours(founder, run_jobs, settings_with):
    catalog_for_two()
    with Site() as site:
        settings_with(fix_allow_hosts=site.allow)
        a, journey = founder_a(founder, run_jobs, site)
        ids = _identifiers(journey)
        document = a.get("/api/openapi.json").get_json()
        operations = list(_operations(document))
        before = _reads(a, operations, ids, document)

        anonymous = founder()
        account = founder()  # signed in, with a claimed product of its own: routes go as far as they can
        sign_in_here(account, run_jobs, B_EMAIL)
        find(account)
        assert claim(account).get_json()["status"] == "claimed"
        run_jobs()

        scoped = _sweep(a, [account, anonymous], [op for op in operations if op.label not in PUBLIC], ids, document)
        run_jobs()
        assert _changed(before, _reads(a, operations, ids, document)) == {}
        public = _sweep(a, [account, anonymous], [op for op in operations if op.label in PUBLIC], ids, document)

        assert scoped["leaks"] == [] and public["leaks"] == []
        assert scoped["strays"] == [] and public["strays"] == []
        # The sweep really ran: every operation of the document was called, by both founders.
        assert scoped["called"] | public["called"] == {op.label for op in operations}
        assert len(operations) >= 120
        # And it would have caught a leak: swept as A, A's own reads show A's markers.
        own = _sweep(a, [a], [op for op in operations if op.method == "GET" and op.label not in PUBLIC], ids, document)
        assert KNOWN_TO_SHOW_A <= {leak[0] for leak in own["leaks"]}, own["leaks"]


def _sweep(a, clients, operations, ids, document) -> dict:
    """Every request of every operation, from each client in turn: what showed A's markers
    (label, request, status, markers), what answered a type of its own, what was called."""
    found = {"leaks": [], "strays": [], "called": set(), "requests": 0}
    for client in clients:
        for op in sorted(operations, key=_last_if_it_signs_out):
            markers = _markers(a, ids, public=op.label in PUBLIC)
            for request in _requests(op, ids, document):
                response = _call(client, op, request)
                found["called"].add(op.label)
                found["requests"] += 1
                shown = _markers_in(response, request, markers) - PUBLIC.get(op.label, ("", set()))[1]
                if shown:
                    found["leaks"].append((op.label, request, response.status_code, sorted(shown)))
                stray = _stray_type(op, response)
                if stray:
                    found["strays"].append((op.label, request, stray))
    return found


# --- The document ----------------------------------------------------------------------------

class Operation:
    def __init__(self, method: str, path: str, operation: dict, shared: list):
        self.method, self.path, self.operation = method.upper(), path, operation
        self.parameters = [p for p in shared + operation.get("parameters", []) if p["in"] in ("path", "query")]
        self.label = f"{self.method} {path}"

    def body_schema(self, document):
        content = self.operation.get("requestBody", {}).get("content", {})
        for kind, entry in content.items():
            return kind, _resolved(entry["schema"], document)
        return None, None


def _operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield Operation(method, path, operation, item.get("parameters", []))


def _resolved(schema, document):
    if "$ref" in schema:
        return _resolved(document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]], document)
    return schema


def _last_if_it_signs_out(op) -> tuple:
    return (op.label in {"POST /api/logout"}, op.label)


# --- Requests: A's identifiers wherever a parameter names one ----------------------------------

def _identifiers(journey) -> dict:
    ids = {key: value for key, value in journey.ids.items() if value is not None}
    ids["product_id"] = journey.product_id
    ids["email"] = A_EMAIL
    ids["payment"] = str(payment_of(ids["order_id"]).id)
    return ids


def _value_for(name, schema, ids, path, op_extra):
    if name in op_extra:
        return [op_extra[name]]
    key = ALIASES.get(name, name)
    if name == "id":
        # Which of A's rows an `id` names depends on the route.
        key = {"/api/todos": "todo_id", "/api/settings/rules": "rule_id"}.get(path)
        if path == "/api/research-workspace":
            return [ids["note_id"], ids["query_id"]]
        if path == "/api/ads-manager":
            key = "campaign_id"
    if name == "name" and path == "/media/{name}":
        key = "image"
    if key in ids:
        value = ids[key]
        kind = schema.get("type")
        if kind == "integer":
            return [int(value)]
        return [str(value)]
    return None


def _filled(schema, document):
    """A minimal value the schema allows (its first enum value, its minimum)."""
    schema = _resolved(schema, document)
    if "enum" in schema:
        return next(value for value in schema["enum"] if value is not None)
    kind = schema.get("type")
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {name: _filled(schema["properties"][name], document) for name in schema.get("required", [])
                if name in schema.get("properties", {})}
    if schema.get("format") == "email":
        return B_EMAIL
    return FILLER


def _requests(op, ids, document):
    """Each request B sends for the operation: {"path", "query", "body", "kind"}."""
    extra = EXTRA.get(op.label, {})
    path_choices, query_choices = {}, {}
    for parameter in op.parameters:
        name, schema = parameter["name"], parameter.get("schema", {})
        values = _value_for(name, schema, ids, op.path, extra)
        if values is None and op.path.startswith("/store/{slug}/") and name == "name":
            values = ["contact"]
        if values is None and (parameter["in"] == "path" or parameter.get("required")):
            values = [_filled(schema, document)]
        elif values is not None and parameter["in"] == "query" and not parameter.get("required"):
            values = [*values, None]  # and without it: the caller's own view
        if values is not None:
            (path_choices if parameter["in"] == "path" else query_choices)[name] = values
    kind, schema = op.body_schema(document)
    bodies = [None] if schema is None else list(_bodies(op, schema, ids, document, extra))
    for path_values in _product(path_choices):
        path = op.path
        for name, value in path_values.items():
            path = path.replace("{" + name + "}", str(value))
        for query in _product(query_choices):
            query = {name: value for name, value in query.items() if value is not None}
            for body in bodies:
                yield {"path": path, "query": query, "body": body, "kind": kind}


def _bodies(op, schema, ids, document, extra):
    branches = [_resolved(s, document) for s in schema["anyOf"]] if "anyOf" in schema and "properties" not in schema \
        else [schema]
    for branch in branches:
        properties = dict(branch.get("properties", {}))
        for sub in branch.get("anyOf", []):
            for name, more in sub.get("properties", {}).items():
                properties.setdefault(name, more)
        choices = {}
        for name, field in properties.items():
            values = _value_for(name, field, ids, op.path, extra)
            if name in VARIANT_FIELDS and "enum" in field:
                values = [v for v in field["enum"] if v is not None]
            if values is None and name in branch.get("required", []):
                values = [_filled(field, document)]
            if name == "campaigns" and "campaign_id" in ids:  # the campaign book names campaigns by id
                values = [[{"id": int(ids["campaign_id"]), "name": "B's campaign"}]]
            if values is not None:
                choices[name] = values
        yield from _product(choices)


def _product(choices: dict):
    names = list(choices)
    for combination in itertools.product(*(choices[name] for name in names)):
        yield dict(zip(names, combination, strict=True))


def _call(client, op, request):
    method = getattr(client, op.method.lower())
    options = {"query_string": request["query"]}
    if request["body"] is not None:
        if request["kind"] == "application/x-www-form-urlencoded":
            options["data"] = {k: str(v) for k, v in request["body"].items()}
        else:
            options["json"] = request["body"]
    response = method(request["path"], **options)
    assert response.status_code < 500, (op.label, request, response.get_data(as_text=True)[:500])
    return response


# --- What counts as showing or changing something of A's --------------------------------------

# A's identifiers that are long and unguessable: B sees one only where B sent it.
SECRET_IDS = ("token", "checkout_id", "topup_id", "carrier_id", "image", "job_id")


def _markers(a, ids, *, public: bool) -> dict:
    """What of A's B must never be shown: the text A (and A's customer) wrote, A's session
    cookie, A's unguessable identifiers (but where B sent them), and on a founder-scoped route
    also what A publishes on its store."""
    private = {**PRIVATE, "a_session_cookie": cookie_of(a), **{name: str(ids[name]) for name in SECRET_IDS}}
    return private if public else {**private, **STOREFRONT}


def _markers_in_text(text: str, markers: dict) -> set:
    text = text.lower()
    return {name for name, marker in markers.items() if marker.lower() in text}


def _markers_in(response, request, markers: dict) -> set:
    """A's markers in the answer (body, Location and cookies), but those B sent itself."""
    text = " ".join([response.get_data().decode("utf-8", "replace"), response.headers.get("Location", ""),
                     *response.headers.getlist("Set-Cookie")])
    sent = repr(request).lower()
    return {name for name in _markers_in_text(text, markers) if markers[name].lower() not in sent}


def _stray_type(op, response) -> str | None:
    """The answer's type when it is neither JSON nor a type the document gives its status."""
    kind = response.mimetype
    if kind == "application/json" or (300 <= response.status_code < 400 and response.headers.get("Location")):
        return None  # a redirect: Flask's few words of HTML beside the Location are no answer
    documented = op.operation.get("responses", {}).get(str(response.status_code), {}).get("content", {})
    if response.status_code == 304 or kind in documented:
        return None
    return f"{response.status_code} {kind}"


# A's reads: every GET operation under /api/ that does not change state (the document lists
# 403 cross_site_request for those that do), answering JSON, called as A with A's identifiers
# (and without the optional ones); but the sign-in routes and those whose answers move on
# their own (health, metrics, the registries, the nightly brief and track record).
CLOCKS = re.compile(r"(_at|_on|^now|^at|^date|^since|^ts|^timestamp|^generated|^expires|^resets_at\w*)$")
VOLATILE = {"GET /api/login/confirm", "GET /api/auth/callback", "GET /api/health", "GET /api/openapi.json",
            "GET /api/controls", "GET /api/reasons", "GET /api/brief", "GET /api/track-record"}


def _reads(client, operations, ids, document) -> dict:
    answers = {}
    for op in operations:
        if (op.method != "GET" or op.label in VOLATILE or not op.path.startswith("/api/")
                or "403" in op.operation.get("responses", {})):
            continue
        for request in _requests(op, ids, document):
            response = _call(client, op, request)
            if response.mimetype == "application/json":
                answers[(op.label, repr(request))] = _without_clocks(response.get_json())
    return answers


def _without_clocks(value):
    if isinstance(value, dict):
        return {k: _without_clocks(v) for k, v in value.items() if not CLOCKS.search(k)}
    if isinstance(value, list):
        return [_without_clocks(v) for v in value]
    return value


def _changed(before: dict, after: dict) -> dict:
    return {key: (before.get(key), after.get(key)) for key in before.keys() | after.keys()
            if before.get(key) != after.get(key)}
