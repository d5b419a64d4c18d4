"""Stand-ins for the outside world that more than one test module talks to: an aiosmtpd
handler that records what a real SMTP server on loopback received (the `smtp_server` fixture
of tests/conftest.py runs the server), and a Stripe HTTP client that answers with recorded
answers (tests/fixtures/stripe/), never the network."""
from __future__ import annotations

import email.policy
from email.parser import BytesParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import stripe

from integrations.payments.stripe_provider import StripeProvider

# --- Mail: what a real SMTP server received (the `smtp_server` fixture runs it) -------------

def parse(raw: bytes):
    return BytesParser(policy=email.policy.default).parsebytes(raw)


class Recorder:
    """An aiosmtpd handler that records what it receives, or answers with a set reply."""

    def __init__(self, refuse: dict[str, str] | None = None):
        self.refuse = refuse or {}
        self.received = []
        self.noops = 0

    async def handle_NOOP(self, server, session, envelope, arg):
        self.noops += 1
        return "250 OK"

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if "MAIL" in self.refuse:
            return self.refuse["MAIL"]
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if "RCPT" in self.refuse:
            return self.refuse["RCPT"]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if "DATA" in self.refuse:
            return self.refuse["DATA"]
        self.received.append({
            "mail_from": envelope.mail_from,
            "rcpt_tos": list(envelope.rcpt_tos),
            "content": envelope.original_content or envelope.content,
            "tls": server.transport.get_extra_info("ssl_object") is not None,
        })
        return "250 OK"


# --- Stripe: recorded answers (tests/fixtures/stripe/), never the network -------------------

STRIPE_ANSWERS = Path(__file__).resolve().parent / "fixtures" / "stripe"
SECRET_KEY = "sk_test_51QZ3yRAb4CdEfGhIsEcReTkEy3kQ9"
WEBHOOK_SECRET = "whsec_4f9e1c2b7a3d8e6f0a1b2c3d4e5f6a7b"
SESSION_ID = "cs_test_a1Gm9sQbE4rXq2VwL7nTzY0pKc3HdU8jF5oR6iN1yB2eS4tA9wMxZ"
INTENT_ID = "pi_3QZ4aBAb4CdEfGhI0kLmNoPq"


def recorded(name: str) -> str:
    return (STRIPE_ANSWERS / name).read_text()


class RecordedStripe(stripe.HTTPClient):
    """Answers each request with the next recorded answer, after checking it is the request expected."""
    name = "recorded"

    def __init__(self, *answers):
        super().__init__()
        self.answers = list(answers)  # (method, path, fixture name, status)
        self.sent = []

    def request(self, method, url, headers, post_data=None):
        parts = urlsplit(url)
        form = parse_qs(post_data.decode() if isinstance(post_data, bytes) else post_data or "")
        self.sent.append({"method": method, "host": parts.hostname, "path": parts.path, "query": parse_qs(parts.query),
                          "form": {k: v[0] if len(v) == 1 else v for k, v in form.items()}, "headers": dict(headers)})
        assert self.answers, f"unexpected request {method} {parts.path}"
        want_method, want_path, fixture, status = self.answers.pop(0)
        assert (method, parts.path) == (want_method, want_path)
        return recorded(fixture), status, {"request-id": "req_Rec0rdedAnsw3r", "content-type": "application/json"}

    def close(self):
        pass


def provider(http_client, *, secret_key=SECRET_KEY):
    return StripeProvider(secret_key=secret_key, webhook_secret=WEBHOOK_SECRET, timeout_seconds=7,
                          http_client=http_client)
