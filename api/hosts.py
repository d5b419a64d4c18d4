"""A connected domain serves its store: a request whose Host is a domain connected to a
store (services/domains.py) is routed to that store's public pages, and every other Host
gets the service as before. And GET /internal/domain-check, which a TLS-terminating proxy
asks before it gets a certificate for a name (Caddy's on-demand TLS).

The routing is one step of api/http.py's `start_request`, before the router's redirects,
the body limit and the cross-site guard, so each of them sees the store's route: on a
store's host `/` is matched as `/store/<slug>/`, `/<name>` as `/store/<slug>/<name>`
(pages, sitemap.xml, robots.txt, checkout, thanks), and `/static/...`, `/media/...` and
`POST /api/track` as they are; anything else (the API, sign-in, payments, the app, the
owner's preview, other stores) is the JSON 404 of an unknown path.
"""
from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from flask import g, request
from marshmallow import Schema, fields, validate
from werkzeug.exceptions import HTTPException, NotFound

from api import bounds
from api.errors import ApiError
from api.routing import Blueprint
from config import get_settings
from services import domains

bp = Blueprint("hosts", __name__, description="Connected domains: the TLS proxy's question.")

# The store routes a store's host serves, reached under its own paths (`/`, `/<name>`).
STORE_ENDPOINTS = frozenset({"storefront.store_home", "storefront.store_page", "storefront.store_checkout",
                             "storefront.store_checkout_page", "storefront.store_thanks"})
# The service's own paths a store's pages need on their origin: their stylesheet and
# script, the founder's uploaded images, and the funnel events the script posts.
SHARED_ENDPOINTS = frozenset({"static", "product.media", "funnel.track"})
SHARED_PREFIXES = ("/static/", "/media/", "/api/track")

DECISIONS: list[str] = [
    "A request whose Host (lower-cased, port and one trailing dot dropped) is a domain connected to a store serves "
    "that store's public pages: GET / is the home page (/store/<slug>/), /<page> a page (product, faq, shipping, "
    "contact, privacy, terms, sitemap.xml, robots.txt), POST /checkout the buy box, GET /checkout back to it, "
    "GET /thanks?order= the thank-you page, with the same escaping, content security policy, caching and no "
    "cookie as /store/<slug>/. Their links, canonical URLs, sitemap and robots.txt name https://<domain>/..., never "
    "/store/<slug>/. A store that is not published answers each page 404 `not_found`, as an unknown slug does.",
    "On a store's host the service's own paths are not served, except what the store's pages load from their "
    "origin: /static/ (stylesheet, script), /media/ (the founder's images) and POST /api/track (the funnel "
    "events; track.js posts to the relative /api/track, so the same origin). Everything else (the API, /login, "
    "/pay/, the app, the owner's preview, other stores' /store/ pages, GET /internal/domain-check) is 404 "
    "`not_found` in JSON with no redirect (a Location is never built from the Host) and no session cookie: a "
    "store's visitors are not founders, and the founder uses BASE_URL.",
    "Any other Host gets the service as before: BASE_URL's own host, an IP address, a name without a dot "
    "(localhost), and any name no store has connected. The store is looked up on every request with a foreign "
    "Host (one indexed query, no cache), so a domain that stops being connected stops serving at the next "
    "request. BASE_URL's host always gets the service, even if a store connected it. Only the exact connected "
    "name serves the store: www.<domain> is another name (the founder may buy it too, or redirect it at their DNS "
    "provider).",
    "The cross-site guard accepts an Origin of https://<domain> or http://<domain> (a TLS proxy in front may "
    "leave the scheme it was asked on unsaid) for the routes declared `storefront` (POST /api/track and the buy "
    "box's POST /store/<slug>/checkout) when the request came to that connected domain's host; founder routes "
    "keep accepting only the service's own origin. The buy box's form-action also allows BASE_URL's origin on a "
    "store's host, where the sandbox checkout lives; the payment's landing and the thank-you page after it are "
    "on BASE_URL.",
    "GET /internal/domain-check?domain=<name> (public, no cookie, not cached) answers 200 {status: ok, domain} "
    "when the name is connected to a store (published or not, so its certificate is ready when it publishes), "
    "404 `not_found` when not, 400 `invalid_domain` when malformed or missing; a TLS proxy asks it before getting "
    "a certificate for a name (Caddy's on_demand_tls ask). It is public because it tells no more than GET "
    "/api/domains?domain= (which says a connected name is `not_available`) and the name's own DNS.",
]

# A host name as a Host header carries it: LDH labels, at least two, ASCII only (a Unicode
# name arrives in punycode). Anything else is not a domain anyone could have connected.
_NAME = re.compile(r"(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def host_name(host: str) -> str | None:
    """The Host header as a domain that could be connected (lower-cased, port and one trailing
    dot dropped), or None for an IP address, a name without a dot or anything malformed."""
    name = (host or "").strip().lower()
    if name.startswith("["):
        return None  # an IPv6 literal
    name = name.rpartition(":")[0] if ":" in name else name
    if name.endswith("."):
        name = name[:-1]
    if not _NAME.fullmatch(name) or name.rsplit(".", 1)[-1].isdigit():
        return None
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return name
    return None


def route_store_host(app) -> None:
    """Routes a request that came to a connected domain to its store's pages (see the module
    docstring); leaves every other request as the router matched it."""
    settings = get_settings()
    name = host_name(request.host)
    if name is None or name == (urlsplit(settings.base_url).hostname or "").lower():
        return
    slug = domains.connected_store_slug(name)
    if slug is None:
        return
    g.store_domain = name
    path = request.path
    if path.startswith(SHARED_PREFIXES):
        allowed, target = SHARED_ENDPOINTS, path
    elif "/" in path[1:]:
        allowed, target = frozenset(), None  # one segment at most: /store/..., /api/... are not the store's
    else:
        allowed, target = STORE_ENDPOINTS, f"/store/{slug}{path}" if path != "/" else f"/store/{slug}/"
    try:
        if target is None:
            raise NotFound()
        rule, arguments = app.create_url_adapter(request).match(target, method=request.method, return_rule=True)
        if rule.endpoint not in allowed:
            raise NotFound()  # e.g. /preview: the owner's preview is never served on the store's host
    except HTTPException as exc:
        request.url_rule, request.view_args, request.routing_exception = None, None, exc
        return
    request.url_rule, request.view_args, request.routing_exception = rule, arguments, None


def store_domain() -> str | None:
    """The connected domain this request came to, or None on the service's own host."""
    return g.get("store_domain")


def store_origin_accepted(origin: str, declaration) -> bool:
    """Whether the cross-site guard lets a `storefront` route take this Origin: the
    connected domain the request came to, over either scheme (the TLS proxy in front of the
    service may not say which one the visitor used)."""
    domain = store_domain()
    return bool(domain and declaration.storefront and origin in (f"https://{domain}", f"http://{domain}"))


def store_base(slug: str) -> tuple[str, str]:
    """(base path, origin) of the store's public pages on this request's host: "" and
    https://<domain> on its connected domain, /store/<slug> and BASE_URL otherwise."""
    domain = store_domain()
    if domain is not None:
        return "", f"https://{domain}"
    return f"/store/{slug}", get_settings().base_url


class DomainCheckQuery(Schema):
    domain = fields.String(required=True, validate=validate.Length(min=1, max=domains.MAX_DOMAIN_INPUT),
                           metadata={"reason": "invalid_domain", "pattern": bounds.DOMAIN,
                                     "description": "The name the proxy was asked for"})


class DomainCheckAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    domain = fields.String(required=True, metadata={"description": "The name, lower-case ASCII (punycode)"})


# The proxy is a server, not a browser: like /metrics it is given no session.
@bp.get("/internal/domain-check")
@bp.declare(changes_state=False, callback=True, session=False, refuses={400: ["invalid_domain"], 404: ["not_found"]})
@bp.arguments(DomainCheckQuery, location="query")
@bp.response(200, DomainCheckAnswer)
def domain_check(query):
    """Answers 200 when the name is connected to a store here (a TLS proxy asks before getting its certificate)."""
    name = domains.checked_name(query["domain"])
    if not domains.is_connected(domain=name):
        raise ApiError(404, "not_found", "No store on this service has that domain connected.")
    return {"status": "ok", "domain": name}, 200, {"Cache-Control": "no-store"}

