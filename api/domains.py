"""Domains for the founder's store (spec 4.7; decisions.md, Domains): suggestions and quotes
from the registrar. Buying one (POST /api/domains/checkout) goes through the payment
provider and connects the domain when the payment is confirmed (services/domains.py)."""
from marshmallow import Schema, fields, validate

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from services import domains
from services.commerce import domain_orders

bp = Blueprint("domains", __name__, description="Domain suggestions and quotes for the founder's store.")

_PRICES = ", ".join(f".{tld} {minor / 100:.2f}" for tld, minor in domains.SANDBOX_PRICES.items())
_PREMIUMS = ", ".join(f"{longest} characters or fewer x{factor}" for longest, factor in domains.SANDBOX_PREMIUMS)

DECISIONS: list[str] = [
    "POST /api/domains/checkout {domain} (session) orders the quoted domain for the founder's store and starts "
    "its payment: 200 {status: checkout_started, domain_order_id, domain, checkout_url, amount_minor, currency}. "
    "The domain is connected to the store when the provider confirms the payment (the landing, a notification or "
    "a later confirmation), in the transaction that marks it paid; a payment that fails or expires fails the "
    "order. Refusals: 200 `not_available` (taken, unpriceable or connected), 200 `not_claimed`, 409 "
    "`not_started` (no built store), 400 `invalid_domain`, 200 `payment_unavailable` (nothing charged). Of two "
    "orders of one name paid at once, one connects; the other order fails and its payment is refunded through "
    "the provider right after, and recorded as the provider settled it (the payment's refund_state: due, "
    "refunding, pending, refunded or failed; a refund the provider could not answer, refused, failed or canceled "
    "is asked again by the next confirmation or the clock: see the payments decisions).",
    "GET /api/domains ?q= answers {status: ok, query, suggestions: [{domain, available, price_minor, currency}], "
    f"connected}}: at most `limit` names (1-{domains.MAX_SUGGESTIONS}, default {domains.DEFAULT_SUGGESTIONS}) made "
    "from the query's words (accents dropped, small words like `the` and `for` left out, at most four words: the "
    "words joined, the first two, the last two, and the last two with get-, the-, -shop or -hq), under each "
    "top-level domain sold, available ones first; an unavailable one has price_minor and currency null. Without "
    "q (or with a blank one) the names are made from the claimed product's name as its store shows it (`query` "
    "says which words were used); with neither: 200 `not_claimed`. Words with no letter or digit: 200 "
    "`no_query_terms`. A q longer than 200 characters: 400 `invalid_request`.",
    "GET /api/domains ?domain= quotes one name (it wins over q): {status: ok, domain, available: true, "
    "price_minor, currency, connected}. A name that cannot be bought (registered by someone else, a top-level "
    "domain not sold, a name under another domain such as shop.brand.com, or a domain already connected to a "
    "store on this service, the founder's own included) is 200 {status: refused, reason: not_available, "
    "explanation, domain}. A malformed name is 400 `invalid_domain`: names are checked by IDNA 2008 and the LDH "
    "rule (labels of 1-63 characters of a-z, 0-9 and hyphens, no hyphen at either end, hyphens in the third and "
    "fourth characters only in a valid punycode xn-- label, at least two labels, a top-level domain not all "
    "digits, at most 253 characters), case folded to lower case, one trailing dot ignored, Unicode labels "
    "encoded to punycode (UTS 46), and answered in that ASCII spelling. The document's pattern declares the "
    "ASCII names (letters in either case, whitespace around and one trailing dot, the ideographic and full-width "
    "full stops as dots); Unicode and xn-- labels are read as said but not in the pattern, which cannot say "
    "which are valid IDNA. The same check serves POST /api/domains/checkout and GET /internal/domain-check. A quote is a price, not a hold: nothing "
    "is reserved until a payment connects it.",
    "`connected` (in every ok answer) is the domain connected to the founder's store (their claimed product's), "
    "or null; GET /api/launch's `domain_connected` is true with the same domain in its detail. Domain orders "
    "belong to the founder as claims do (the session, and the account once bound: signing in moves them).",
    "REGISTRAR=sandbox (the default and, for now, the only registrar) is deterministic and offline: a name "
    "containing `taken` is never available; names of exactly two labels under the top-level domains it sells "
    f"are priced per year in USD cents from the top-level domain ({_PRICES}) times a premium for short names "
    f"({_PREMIUMS}, longer x1); any other top-level domain is unpriceable, so not available.",
    "A domain order is pending until its payment settles: the confirmed payment connects it, a failed or "
    "expired one fails it, and nothing else connects a domain (never a redirect alone). A domain is connected "
    "to at most one store: a partial unique index on the connected orders decides, so of two payments that "
    "confirm for one name at once exactly one connects and the other order is failed. An order needs a claimed "
    "product whose store is built (200 `not_claimed`, 409 `not_started`) and a name that quotes available "
    "at that moment (200 `not_available`), and keeps the price quoted then.",
]


class DomainsQuery(Schema):
    q = fields.String(validate=validate.Length(max=domains.MAX_QUERY), metadata={
        "description": "A few words about the business; omit it to use the claimed product's name"})
    domain = fields.String(validate=validate.Length(max=domains.MAX_DOMAIN_INPUT), metadata={
        "reason": "invalid_domain", "pattern": bounds.DOMAIN,
        "description": "One name to quote (takes precedence over q); a Unicode name is read too (UTS 46)"})
    limit = fields.Integer(validate=validate.Range(min=1, max=domains.MAX_SUGGESTIONS), metadata={
        "description": f"At most this many suggestions (default {domains.DEFAULT_SUGGESTIONS})"})


class DomainSuggestion(Schema):
    domain = fields.String(required=True)
    available = fields.Boolean(required=True)
    price_minor = fields.Integer(required=True, allow_none=True,
                                 metadata={"description": "A year's registration in minor units; null if unavailable"})
    currency = fields.String(required=True, allow_none=True)


class DomainsAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    query = fields.String(metadata={"description": "The words the suggestions were made from"})
    suggestions = fields.List(fields.Nested(DomainSuggestion))
    domain = fields.String(metadata={"description": "The quoted name, lower-case ASCII (punycode)"})
    available = fields.Boolean()
    price_minor = fields.Integer()
    currency = fields.String()
    connected = fields.String(required=True, allow_none=True,
                              metadata={"description": "The domain connected to the founder's store, or null"})


@bp.get("/api/domains")
@bp.declare(changes_state=False, refuses={200: ["not_available", "not_claimed", "no_query_terms"],
                                          400: ["invalid_domain"]})
@bp.arguments(DomainsQuery, location="query")
@bp.response(200, DomainsAnswer)
def get_domains(query):
    """Suggests domains for a few words (or the claimed product's name), or quotes one domain."""
    session = current_session()
    if "domain" in query:
        return domains.quote(session=session, domain=query["domain"])
    return domains.suggest(session=session, query=query.get("q"), limit=query.get("limit"))


class DomainCheckoutBody(Schema):
    domain = fields.String(required=True, validate=validate.Length(min=1, max=300), metadata={
        "reason": "invalid_domain", "pattern": bounds.DOMAIN,
        "description": "The name to buy; a Unicode name is read too (UTS 46)"})


class DomainCheckoutAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["checkout_started"]})
    domain_order_id = fields.String(required=True)
    domain = fields.String(required=True)
    checkout_url = fields.String(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)


@bp.post("/api/domains/checkout")
@bp.declare(changes_state=True, refuses={200: ["not_available", "not_claimed", "payment_unavailable"],
                                         400: ["invalid_domain"], 409: ["not_started", "claim_required"]})
@bp.arguments(DomainCheckoutBody)
@bp.response(200, DomainCheckoutAnswer)
def domains_checkout(body):
    """Orders a domain for the founder's store and starts its payment; it connects once paid."""
    return domain_orders.start_domain_checkout(session=current_session(), domain=body["domain"])
