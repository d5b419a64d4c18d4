"""Locust users for `make load` (bench/load_run.py): founders going through the whole journey
and shoppers visiting the stores they publish, against the real processes over HTTP.

Founder (its own cookie jar, as a browser): GET /api/feed, claims its own card (POST
/api/pass), opens its offer, builds its store (POST /api/store) and polls GET /api/store
until built, saves its address and opens the mailed sign-in link (editing needs a signed-in
account), edits the store in words once (POST /api/ai/edit), publishes, then a customer
(a second, cookieless client) buys from the store's buy box and pays on the sandbox
provider's hosted page (landing, thank-you page), the founder buys a domain for the store
through the same provider (the support address is `support@` that domain), a customer's
mail lands in the desk's Maildir and the founder answers its ticket (POST /api/helpdesk
reply). Then it loops on reading its dashboard, store, orders, revenue and desk, and now and
then builds its store again (so the workers never only wait for new founders).

StoreVisitor: GETs the published stores' pages (and their static files, revalidated with
If-None-Match once it holds their ETag; a store page that sent an ETag is revalidated the
same way) and posts their funnel events to POST /api/track.

Every request goes through an `Endpoint` (method + the app's URL rule, with a tag for a
step such as "[poll]"), so Locust's per-endpoint table reads by route and
tests/test_locustfile.py can check every rule named here against the app's url_map.
Server-given URLs (the checkout page, the landing) are matched against their rule before use.

State-changing requests carry Origin = the host (the service's cross-site guard). Sign-in
reads the service's outbox folder (LOAD_OUTBOX_DIR) and the desk's mail is delivered into its
Maildir (LOAD_INBOUND_MAILDIR), both set by bench/load_run.py; without them a founder skips
the sign-in and edit, or the domain and desk, steps. `--founders N` (default 10) fixes the
number of Founder users; the other users are StoreVisitors. Each founder claims a product
of its own: the catalog must have more servable products than founders.
"""
from __future__ import annotations

import email
import mailbox
import os
import random
import re
import secrets
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from locust import HttpUser, between, events, task
from locust.clients import HttpSession
from locust.exception import StopUser

POLL_SECONDS = 1.0  # the browser app polls a build every second or so
POLL_LIMIT_SECONDS = 120.0  # a build, publish or mail that takes longer is a failure
WORDS = ("Bright", "Simple", "Handy", "Sturdy", "Tidy", "Calm", "Clever", "Steady", "Neat", "Quiet")
SHIPPING = {"name": "Load Customer", "line1": "1 Test Street", "city": "Dublin", "postal_code": "D01 F5P2",
            "country": "IE"}
LINK = re.compile(r"https?://\S+?token=[A-Za-z0-9_\-]+")


class Endpoint:
    """One route of the app (its method and Werkzeug rule) and the name Locust files it under."""

    registry: list[Endpoint] = []

    def __init__(self, method: str, rule: str, tag: str | None = None):
        self.method, self.rule, self.tag = method, rule, tag
        self.name = f"{rule} [{tag}]" if tag else rule
        self._pattern = re.compile("^" + re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"(?P<\1>[^/?#]+)",
                                                re.escape(rule).replace(r"\<", "<").replace(r"\>", ">")) + "$")
        Endpoint.registry.append(self)

    def path(self, **params) -> str:
        return re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", lambda m: str(params[m.group(1)]), self.rule)

    def match(self, url: str) -> dict | None:
        """The rule's parameters of a server-given URL, or None when the URL is not this route."""
        found = self._pattern.match(urlsplit(url).path)
        return found.groupdict() if found else None

    def send(self, client, at: dict | None = None, **kwargs):
        """The request as a catch_response context (redirects not followed); `at` fills the
        rule's parameters, and `params` (requests') is the query."""
        return client.request(self.method, self.path(**(at or {})), name=self.name, catch_response=True,
                              allow_redirects=False, **kwargs)


FEED = Endpoint("GET", "/api/feed")
CLAIM = Endpoint("POST", "/api/pass", "claim")
OFFER = Endpoint("GET", "/api/offer")
BUILD = Endpoint("POST", "/api/store", "build")
STORE = Endpoint("GET", "/api/store")
STORE_POLL = Endpoint("GET", "/api/store", "poll")
SAVE_ACCOUNT = Endpoint("POST", "/api/account")
SIGN_IN = Endpoint("GET", "/login", "mailed link")
EDIT = Endpoint("POST", "/api/ai/edit")
PUBLISH = Endpoint("POST", "/api/store/publish")
DASHBOARD = Endpoint("GET", "/api/dashboard")
REVENUE = Endpoint("GET", "/api/revenue")
TRACKING = Endpoint("GET", "/api/tracking")
STORE_HOME = Endpoint("GET", "/store/<slug>/")
STORE_HOME_AGAIN = Endpoint("GET", "/store/<slug>/", "If-None-Match")
STORE_PAGE = Endpoint("GET", "/store/<slug>/<name>")
STORE_PAGE_AGAIN = Endpoint("GET", "/store/<slug>/<name>", "If-None-Match")
BUY = Endpoint("POST", "/store/<slug>/checkout")
HOSTED_PAGE = Endpoint("GET", "/pay/sandbox/checkout/<checkout_id>")
HOSTED_PAY = Endpoint("POST", "/pay/sandbox/checkout/<checkout_id>", "pay")
LANDING = Endpoint("GET", "/pay/landing")
THANKS = Endpoint("GET", "/store/<slug>/thanks")
QUOTE = Endpoint("GET", "/api/domains", "quote")
DOMAINS = Endpoint("GET", "/api/domains")
DOMAIN_CHECKOUT = Endpoint("POST", "/api/domains/checkout")
BUSINESS = Endpoint("POST", "/api/settings/business")
DESK = Endpoint("GET", "/api/helpdesk")
DESK_WAIT = Endpoint("GET", "/api/helpdesk", "wait for ticket")
DESK_REPLY = Endpoint("POST", "/api/helpdesk", "reply")
TRACK = Endpoint("POST", "/api/track")
STATIC = Endpoint("GET", "/static/<path:filename>")
STATIC_AGAIN = Endpoint("GET", "/static/<path:filename>", "If-None-Match")

# The stores founders of this Locust process published: (slug, product_id). StoreVisitors
# visit them (one process, gevent: a plain list is safe).
PUBLISHED: list[tuple[str, str]] = []


@events.init_command_line_parser.add_listener
def _options(parser):
    parser.add_argument("--founders", type=int, default=10, help="Founder users (the rest are StoreVisitors)")


@events.init.add_listener
def _fix_founders(environment, **_kwargs):
    options = environment.parsed_options
    if options is not None:
        Founder.fixed_count = max(1, options.founders)  # 0 would mean "by weight"


def query_of(url: str) -> dict:
    return dict(parse_qsl(urlsplit(url).query))


class JourneyFailed(Exception):
    """A step answered what the journey cannot go on from (already filed as a failure)."""


def answer(response, *statuses: int, want: dict | None = None) -> dict | None:
    """The JSON body of a response with one of `statuses` (and the fields `want` names, each
    one of the values given); otherwise the request is filed as a failure and the journey stops."""
    if response.status_code not in statuses:
        response.failure(f"{response.status_code}: {response.text[:200]}")
        raise JourneyFailed(response.request_meta["name"])
    body = None
    if "json" in response.headers.get("Content-Type", ""):
        body = response.json()
        for key, allowed in (want or {}).items():
            if body.get(key) not in allowed:
                response.failure(f"{key}={body.get(key)!r}: {response.text[:200]}")
                raise JourneyFailed(response.request_meta["name"])
    response.success()
    return body


def claim_own_card(client) -> str:
    """A founder's first three requests: the feed, a claim of the card it holds for them, the
    offer of what they claimed. Answers the claimed product's id."""
    with FEED.send(client) as r:
        cards = answer(r, 200)
        if not isinstance(cards, list) or not cards or not cards[0].get("yours"):
            r.failure(f"no card of one's own: {r.text[:200]}")
            raise JourneyFailed("feed")
    product_id = cards[0]["product_id"]
    with CLAIM.send(client, json={"action": "claim", "product_id": product_id}) as r:
        answer(r, 200, want={"status": ["claimed"]})
    with OFFER.send(client) as r:
        answer(r, 200)
    return product_id


class Outbox:
    """The service's outbox folder (the mailer writes one .eml per message), read as an inbox:
    each file is parsed once, into its recipient and the links it carries."""

    def __init__(self, folder: str):
        self.folder, self.seen = Path(folder), {}

    def links_to(self, address: str) -> list[str]:
        if self.folder.is_dir():
            for entry in os.scandir(self.folder):
                if entry.name.endswith(".eml") and entry.name not in self.seen:
                    message = email.message_from_bytes(Path(entry.path).read_bytes(), policy=policy.default)
                    body = message.get_body(preferencelist=("plain",))
                    self.seen[entry.name] = (str(message["To"]).lower(),
                                             LINK.findall(body.get_content()) if body is not None else [])
        return [link for name in sorted(self.seen) for to, links in [self.seen[name]] if to == address
                for link in links]


OUTBOX = Outbox(os.environ["LOAD_OUTBOX_DIR"]) if os.environ.get("LOAD_OUTBOX_DIR") else None
MAILDIR = os.environ.get("LOAD_INBOUND_MAILDIR")


class Founder(HttpUser):
    """One founder in one browser: the journey once, then reading and rebuilding."""

    wait_time = between(1, 3)
    fixed_count = 10

    def on_start(self):
        self.client.headers["Origin"] = self.host.rstrip("/")
        self.product_id = self.slug = None
        self.address = f"founder-{secrets.token_hex(6)}@example.com"
        try:
            self.journey()
        except JourneyFailed:
            raise StopUser() from None

    def pause(self):
        time.sleep(random.uniform(0.2, 0.8))  # gevent's sleep once Locust has patched the standard library

    # -- the journey --------------------------------------------------------------------------

    def journey(self):
        self.claim()
        self.pause()
        self.build()
        self.pause()
        if OUTBOX is not None:
            self.sign_in()
            self.pause()
            self.edit()
            self.pause()
        self.publish()
        self.pause()
        self.customer_buys()
        self.pause()
        if MAILDIR is not None:
            self.connect_domain()
            self.pause()
            self.answer_a_customer()

    def claim(self):
        self.product_id = claim_own_card(self.client)

    def build(self):
        with BUILD.send(self.client) as r:
            answer(r, 200, want={"status": ["building", "built"]})
        self.wait_store(("built",))

    def wait_store(self, done: tuple[str, ...]) -> dict:
        deadline = time.monotonic() + POLL_LIMIT_SECONDS
        while True:
            with STORE_POLL.send(self.client) as r:
                state = answer(r, 200, want={"status": ["building", "publishing", *done]})
                if state["status"] in done:
                    return state
                if time.monotonic() > deadline:
                    r.failure(f"still {state['status']} after {POLL_LIMIT_SECONDS:.0f} s")
                    raise JourneyFailed("poll")
            time.sleep(POLL_SECONDS)

    def sign_in(self):
        with SAVE_ACCOUNT.send(self.client, json={"email": self.address}) as r:
            answer(r, 200, want={"status": ["account_saved"]})
        deadline = time.monotonic() + POLL_LIMIT_SECONDS
        while not (links := [link for link in OUTBOX.links_to(self.address) if urlsplit(link).path == "/login"]):
            if time.monotonic() > deadline:
                self.environment.events.request.fire(
                    request_type="MAIL", name="sign-in link", response_time=POLL_LIMIT_SECONDS * 1000, response_length=0,
                    exception=JourneyFailed(f"no sign-in link reached {self.address}"), context={})
                raise JourneyFailed("sign-in link")
            time.sleep(0.5)
        with SIGN_IN.send(self.client, params=query_of(links[-1])) as r:
            answer(r, 303)
            if r.headers.get("Location") != "/?view=home#/app/home":
                r.failure(f"signed in nowhere: {r.headers.get('Location')}")
                raise JourneyFailed("sign-in")

    def edit(self):
        headline = f"{random.choice(WORDS)} and {random.choice(WORDS).lower()}, made for every day"
        with EDIT.send(self.client, json={"message": f"Change the headline to {headline}"}) as r:
            answer(r, 200, want={"status": ["edited", "editing"]})

    def publish(self):
        with PUBLISH.send(self.client) as r:
            state = answer(r, 200, want={"status": ["published", "publishing"]})
        if state["status"] != "published":
            state = self.wait_store(("published",))
        self.slug = STORE_HOME.match(state["public_url"])["slug"]
        PUBLISHED.append((self.slug, self.product_id))

    def pay_on_hosted_page(self, client, checkout_url: str, form: dict) -> str:
        """Opens the sandbox's hosted page and pays; answers the landing URL it sends back to."""
        checkout = HOSTED_PAGE.match(checkout_url)
        if checkout is None:
            raise JourneyFailed(f"not the sandbox's page: {checkout_url}")
        with HOSTED_PAGE.send(client, checkout) as r:
            answer(r, 200)
        with HOSTED_PAY.send(client, checkout, data={"action": "pay", **form}) as r:
            answer(r, 303)
            landing = r.headers.get("Location", "")
            if LANDING.match(landing) is None:
                r.failure(f"paid, then sent to {landing}")
                raise JourneyFailed("pay")
        return landing

    def customer_buys(self):
        """A shopper in a browser of their own: the product page, the buy box, the hosted page, the landing."""
        customer = HttpSession(base_url=self.host, request_event=self.environment.events.request, user=self)
        customer.headers["Origin"] = self.host.rstrip("/")
        store = {"slug": self.slug}
        with STORE_PAGE.send(customer, {**store, "name": "product"}) as r:
            answer(r, 200)
        form = {"product_id": self.product_id, "quantity": random.randint(1, 3),
                "email": f"customer-{secrets.token_hex(4)}@example.com"}
        with BUY.send(customer, store, data=form) as r:
            answer(r, 303)
            checkout_url = r.headers.get("Location", "")
        landing = self.pay_on_hosted_page(customer, checkout_url, SHIPPING)
        with LANDING.send(customer, params=query_of(landing)) as r:
            answer(r, 303)
            thanks = r.headers.get("Location", "")
        if THANKS.match(thanks) is None:
            raise JourneyFailed(f"landed on {thanks}")
        with THANKS.send(customer, store, params=query_of(thanks)) as r:
            answer(r, 200)
            if "paid" not in r.text.lower():
                r.failure("the thank-you page does not say paid")
                raise JourneyFailed("thanks")

    def connect_domain(self):
        """Buys a domain for the store through the sandbox: the support address needs one."""
        self.domain = f"load{secrets.token_hex(5)}.shop"
        with QUOTE.send(self.client, params={"domain": self.domain}) as r:
            answer(r, 200, want={"status": ["ok"]})
        with DOMAIN_CHECKOUT.send(self.client, json={"domain": self.domain}) as r:
            started = answer(r, 200, want={"status": ["checkout_started"]})
        landing = self.pay_on_hosted_page(self.client, started["checkout_url"], {})
        with LANDING.send(self.client, params=query_of(landing)) as r:
            answer(r, 303)
        with DOMAINS.send(self.client) as r:
            answer(r, 200, want={"connected": [self.domain]})
        with BUSINESS.send(self.client, json={"support_email_local": "support"}) as r:
            answer(r, 200)

    def answer_a_customer(self):
        """A customer's mail reaches the desk (delivered into its Maildir, as a mail server does);
        the founder opens the desk until the ticket shows, and replies."""
        mail = EmailMessage(policy=policy.SMTP)
        mail["From"] = f"Customer <customer-{secrets.token_hex(4)}@example.net>"
        mail["To"] = f"support@{self.domain}"
        mail["Subject"] = "Where is my order?"
        mail["Date"] = email.utils.formatdate()
        mail["Message-ID"] = email.utils.make_msgid(domain="example.net")
        mail.set_content("Hello, I ordered last week. When will it ship?")
        mailbox.Maildir(MAILDIR, create=True).add(mail.as_bytes())
        deadline = time.monotonic() + POLL_LIMIT_SECONDS
        while True:
            with DESK_WAIT.send(self.client) as r:
                desk = answer(r, 200, want={"status": ["ok", "no_tickets_yet"]})
                if desk["tickets"]:
                    break
                if time.monotonic() > deadline:
                    r.failure(f"no ticket after {POLL_LIMIT_SECONDS:.0f} s")
                    raise JourneyFailed("desk")
            time.sleep(POLL_SECONDS)
        reply = {"action": "reply", "ticket_id": desk["tickets"][0]["id"], "text": "It ships tomorrow. Thank you!"}
        with DESK_REPLY.send(self.client, json=reply) as r:
            answer(r, 200, want={"status": ["replied"]})

    # -- afterwards: reading, and now and then a new build ----------------------------------------

    def read(self, endpoint: Endpoint):
        try:
            with endpoint.send(self.client) as r:
                answer(r, 200)
        except JourneyFailed:
            pass  # filed as a failure; the founder goes on reading

    @task(4)
    def dashboard(self):
        self.read(DASHBOARD)

    @task(3)
    def store(self):
        self.read(STORE)

    @task(2)
    def revenue(self):
        self.read(REVENUE)

    @task(1)
    def orders(self):
        self.read(TRACKING)

    @task(1)
    def desk(self):
        self.read(DESK)

    @task(1)
    def rebuild(self):
        try:
            self.build()
        except JourneyFailed:
            pass


class StoreVisitor(HttpUser):
    """A shopper browsing published stores: no cookies of the service, funnel events posted as
    the store's own script posts them, static files and pages revalidated once their ETag is known."""

    wait_time = between(1, 4)
    weight = 1

    def on_start(self):
        self.client.headers["Origin"] = self.host.rstrip("/")
        self.visitor = secrets.token_hex(8)
        self.etags: dict[str, str] = {}

    def get(self, endpoint: Endpoint, again: Endpoint, params: dict) -> str:
        """A GET, conditional (filed under `again`) once an ETag of that URL is known."""
        key = endpoint.path(**params)
        if key in self.etags:
            with again.send(self.client, params, headers={"If-None-Match": self.etags[key]}) as r:
                answer(r, 200, 304)
        else:
            with endpoint.send(self.client, params) as r:
                answer(r, 200)
        if r.headers.get("ETag"):
            self.etags[key] = r.headers["ETag"]
        return r.text

    def track(self, product_id: str, event: str):
        with TRACK.send(self.client, json={"product_id": product_id, "event": event, "session_id": self.visitor}) as r:
            answer(r, 200, want={"status": ["recorded"]})

    @task
    def visit(self):
        if not PUBLISHED:
            time.sleep(1)  # nothing published yet: the founders are still on their way
            return
        slug, product_id = random.choice(PUBLISHED)
        try:
            html = self.get(STORE_HOME, STORE_HOME_AGAIN, {"slug": slug})
            for asset in sorted(set(re.findall(r'(?:href|src)="/static/([^"?#]+)"', html))):
                self.get(STATIC, STATIC_AGAIN, {"filename": asset})
            self.track(product_id, "page_view")
            time.sleep(random.uniform(0.5, 2))
            self.get(STORE_PAGE, STORE_PAGE_AGAIN, {"slug": slug, "name": "product"})
            self.track(product_id, "page_view")
            if random.random() < 0.3:
                self.track(product_id, "add_to_cart")
        except JourneyFailed:
            pass
