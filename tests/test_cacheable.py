"""No answer a shared cache may keep carries a cookie (issue 19, point 5; reliability guide,
Bad input): every GET route of the app walked with real values, with and without a cookie;
/media/ image loads open no session; and the guard in api/http.py that makes private any
answer that would still set a cookie while shareable.

"Shareable" is judged here on its own, as a cache reads Cache-Control (RFC 9111): an
answer not marked `private` (unqualified) or `no-store` may be kept, with or without other
directives, and with none at all.
"""
from __future__ import annotations

import logging
import re
from urllib.parse import urlencode, urlsplit

import pytest
from flask import make_response

from api import create_app
from api.routing import Declaration, declaration_of, declared_arguments
from models.desk import Ticket, TicketMessage
from models.payment import Payment
from models.session import Session
from models.store import Store
from services import referrals
from services.desk.satisfaction import token_for
from services.sessions import hash_token
from tests.conftest import SETTINGS
from tests.factories import built, claimed_founder, data_url, png_bytes, saved, started

NEVER_ISSUED = "0123456789abcdef0123456789abcdef"


def directives(response) -> list[str]:
    return [d.strip().lower() for d in ",".join(response.headers.getlist("Cache-Control")).split(",") if d.strip()]


def shareable(response) -> bool:
    """Whether a shared cache may keep this answer: neither `private` nor `no-store` said."""
    found = directives(response)
    return "private" not in found and "no-store" not in found


def cookies_set(response) -> list[str]:
    return response.headers.getlist("Set-Cookie")


def session_of(client) -> Session:
    return Session.get(Session.token_hash == hash_token(client.get_cookie("ff_session").value))


# --- A world with a real value for every path parameter ------------------------------------------

@pytest.fixture
def world(founder, run_jobs):
    """A published store showing an uploaded image, an upload its published store does not
    show yet, an order started by a customer on the sandbox's checkout, a referral code and a
    generated page."""
    owner = claimed_founder(founder)
    built(owner, run_jobs)
    [public] = saved(owner, images=[data_url(png_bytes())])["product"]["images"]
    assert owner.post("/api/store/publish").get_json()["status"] == "published"
    unpublished = saved(owner, images=[public, data_url(png_bytes(color=(10, 20, 30)))])["product"]["images"][1]
    customer = founder()
    order = started(customer)
    owner_key = f"session:{session_of(owner).id}"
    ticket = Ticket.create(owner=owner_key, subject="Hello", customer_email="c@example.com",
                           support_address="help@example.com", product="p00")
    reply = TicketMessage.create(ticket=ticket.id, owner=owner_key, direction=TicketMessage.OUT,
                                 author=TicketMessage.FOUNDER, text="Hi", message_id="<r@example.com>")
    page = owner.post("/api/pages", json={"intent": "a returns policy page"}).get_json()
    assert page["status"] == "ok", page
    return {
        "owner": owner,
        "page_id": page["page_id"],
        "public_image": public,
        "private_image": unpublished,
        "slug": Store.get(Store.product == "p00").slug,
        "order_id": order["order_id"],
        "checkout_id": urlsplit(order["checkout_url"]).path.rsplit("/", 1)[1],
        "payment_id": Payment.select().order_by(Payment.created_at.desc()).first().id,
        "code": referrals.code_for(session_of(owner)),
        "rating_token": token_for(reply.id),
    }


def _paths(rule, world) -> list[str]:
    """Concrete paths for a URL rule: each parameter filled with a real value (both images
    for /media/, a page and the sitemap for the store's pages)."""
    choices = {
        "filename": ["app/main.js"],
        "slug": [world["slug"]],
        "number": ["1"],
        "product_id": ["p00"],
        "checkout_id": [world["checkout_id"]],
        "page_id": [world["page_id"]],  # a generated page at /store/p/<page_id>
        "code": [world["code"]],
        "token": [world["rating_token"], "1.not-a-signature"],  # a reply's rating page, and a bad link
    }
    if rule.endpoint == "product.media":
        choices["name"] = [world["public_image"].rsplit("/", 1)[1], world["private_image"].rsplit("/", 1)[1]]
    else:
        choices["name"] = ["product", "sitemap.xml"]
    paths = [rule.rule]
    for argument in rule.arguments:
        assert argument in choices, f"no real value for <{argument}> of {rule.rule}: add one to the walk"
        paths = [re.sub(rf"<(?:[^:<>]+:)?{argument}>", value, path) for path in paths for value in choices[argument]]
    return paths


def _query(view, world) -> str:
    """The declared query string, its required fields (and the ids the walk knows) filled in."""
    known = {"order": world["order_id"], "order_id": world["order_id"], "payment": world["payment_id"]}
    values = {}
    for location, schema in declared_arguments(view):
        if location != "query":
            continue
        for name, declared in schema.fields.items():
            key = declared.data_key or name
            if key in known:
                values[key] = known[key]
            elif declared.required:
                values[key] = "x"
    return f"?{urlencode(values)}" if values else ""


def _get_requests(app, world):
    """(rule, path with its query string) for every GET rule of the URL map."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if "GET" not in rule.methods:
            continue
        query = _query(app.view_functions[rule.endpoint], world)
        for path in _paths(rule, world):
            yield rule, path + query


def test_no_get_route_lets_a_shared_cache_keep_a_cookie(app, founder, world, caplog):
    caplog.set_level(logging.ERROR, logger="api.request")
    walked, answers = set(), {}
    for rule, path in _get_requests(app, world):
        walked.add(rule.rule)
        for who in ("no cookie", "its own cookie", "a cookie never issued"):
            client = world["owner"] if who == "its own cookie" else founder()
            if who == "a cookie never issued":
                client.set_cookie("ff_session", NEVER_ISSUED)
            response = client.get(path)
            assert response.status_code < 500, (path, who, response.status_code, response.get_data(as_text=True))
            if shareable(response):
                assert cookies_set(response) == [], (path, who, response.headers.get("Cache-Control"))
            answers[(path, who)] = response
    assert walked == {r.rule for r in app.url_map.iter_rules() if "GET" in r.methods}
    # No route relied on the guard: it made nothing private that a route had marked shareable.
    assert [r.getMessage() for r in caplog.records if "programming error" in r.getMessage()] == []

    # The walk reached the shareable answers themselves, not only their refusals.
    media = f"/media/{world['public_image'].rsplit('/', 1)[1]}"
    for path in (media, f"/store/{world['slug']}/", f"/store/{world['slug']}/product", "/static/app/main.js",
                 "/pay/logo.svg"):
        for who in ("no cookie", "a cookie never issued"):
            response = answers[(path, who)]
            assert response.status_code == 200 and shareable(response), (path, who, response.headers)
    assert "public" in directives(answers[(media, "no cookie")])
    # A founder's unpublished upload reaches its founder only, privately, and nobody gets a cookie for it.
    private = f"/media/{world['private_image'].rsplit('/', 1)[1]}"
    assert answers[(private, "its own cookie")].status_code == 200
    assert "private" in directives(answers[(private, "its own cookie")])
    assert answers[(private, "no cookie")].status_code == 404
    # Answers kept from shared caches still issue the cookie where the route reads the session:
    # the API's private, no-store answers (spec 5.14), the app's shell and the sign-in link.
    for path in ("/api/health", "/api/store", "/", "/login", f"/r/{world['code']}"):
        for who in ("no cookie", "a cookie never issued"):
            response = answers[(path, who)]
            assert [c for c in cookies_set(response) if c.startswith("ff_session=")], (path, who)
            assert not shareable(response), (path, who, response.headers.get("Cache-Control"))


def test_image_loads_open_no_session_and_set_no_cookie(founder, world):
    public = world["public_image"]
    private = world["private_image"]
    before = Session.select().count()
    for _ in range(10):
        response = founder().get(public)
        assert response.status_code == 200 and response.headers["Content-Type"] == "image/png"
        assert "public" in directives(response) and cookies_set(response) == []
    stranger = founder()
    stranger.set_cookie("ff_session", NEVER_ISSUED)
    for visitor in (founder(), stranger):
        response = visitor.get(private)
        assert response.status_code == 404 and response.get_json()["reason"] == "not_found"
        assert cookies_set(response) == []
    # The founder's own browser is still recognised by the cookie it sends, and given no new one.
    response = world["owner"].get(private)
    assert response.status_code == 200 and "private" in directives(response) and cookies_set(response) == []
    assert Session.select().count() == before


# --- The guard: a shareable answer that would set a cookie is made private -------------------------

PROBES = {
    # name: (the route's Cache-Control, what goes out when the answer sets the cookie, logged as an error)
    "public": ("public, max-age=60", "private, max-age=60", True),
    "s-maxage": ("s-maxage=600, max-age=60", "private, max-age=60", True),
    "no-cache": ("no-cache", "private, no-cache", True),
    "qualified-private": ('private="Set-Cookie", max-age=60', "private, max-age=60", True),
    "proxy-revalidate": ("public, proxy-revalidate, max-age=5", "private, max-age=5", True),
    "none": (None, "private", False),
    "private": ("private, max-age=60", "private, max-age=60", False),
    "no-store": ("no-store", "no-store", False),
}


@pytest.fixture
def probed_app():
    """The app with one extra route per probe, each reading the session like any founder's route."""
    app = create_app(SETTINGS)

    def probe(name):
        def view():
            response = make_response("the same for everyone")
            declared = PROBES[name][0]
            if declared is not None:
                response.headers["Cache-Control"] = declared
            return response

        view.declaration = Declaration(changes_state=False)
        return view

    for name in PROBES:
        app.add_url_rule(f"/probe/{name}", f"probe_{name}", probe(name))
    # A spec endpoint under /api/ that issues the cookie (issue 20 will make them all do so).
    app.add_url_rule("/api/probe", "probe_api", probe("public"))
    return app


@pytest.mark.parametrize("name", list(PROBES))
def test_an_answer_that_sets_a_cookie_is_never_left_shareable(probed_app, caplog, name):
    declared, sent, logged = PROBES[name]
    caplog.set_level(logging.ERROR, logger="api.request")
    client = probed_app.test_client()
    first = client.get(f"/probe/{name}")
    assert first.status_code == 200
    # The visitor keeps the session it was given; the answer is kept out of shared caches.
    assert len([c for c in cookies_set(first) if c.startswith("ff_session=")]) == 1
    assert first.headers["Cache-Control"] == sent and not shareable(first)
    errors = [r for r in caplog.records if "programming error" in r.getMessage()]
    assert len(errors) == (1 if logged else 0)
    if logged:
        assert errors[0].fields["route"] == f"/probe/{name}" and errors[0].fields["cache_control"] == declared
    # The next answer sets no cookie: the route's own Cache-Control goes out untouched.
    again = client.get(f"/probe/{name}")
    assert cookies_set(again) == [] and again.headers.get("Cache-Control") == declared


def test_api_answers_are_private_no_store_and_keep_their_cookie(probed_app, caplog):
    caplog.set_level(logging.ERROR, logger="api.request")
    response = probed_app.test_client().get("/api/probe")
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert len([c for c in cookies_set(response) if c.startswith("ff_session=")]) == 1
    assert [r for r in caplog.records if "programming error" in r.getMessage()] == []


def test_media_is_declared_without_sessions(app):
    assert declaration_of(app.view_functions["product.media"]).session is False
