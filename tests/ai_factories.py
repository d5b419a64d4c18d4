"""Builders for the AI seam's tests: the demo catalog's facts and offers, a store-copy task
and a valid answer plainly not the offline one, and a real chat-completions server on
loopback standing in for a model (the `chat` fixture in tests/conftest.py starts one)."""
from __future__ import annotations

import json
import time
from datetime import date
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from integrations.ai import Facts, Task, offline
from services.ai_facts import facts_for
from services.research.offer import CatalogRecord, OfferSettings, Row, compute_offer
from tests.conftest import ROOT, SETTINGS

CATALOG = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
TODAY = date(2026, 12, 1)
BUSINESS = {"business_name": "Wallside Goods", "support_email": "help@wallside.example"}
API_KEY = "sk-test-Zq8vN3kP0wLr"


def demo_products() -> list[dict]:
    return [json.loads(line) for line in CATALOG.read_text().splitlines() if line.strip()]


def offer_for(product: dict) -> dict:
    rows = [Row(date.fromisoformat(r["date"]), r["source"], r["metric"], r["value"]) for r in product["evidence"]]
    record = CatalogRecord(product["product_id"], Decimal(str(product["price"])), Decimal(str(product["cost"])),
                           product["currency"], product.get("weight_grams"))
    return compute_offer(record, rows, OfferSettings.from_settings(SETTINGS), TODAY)


def facts_of(product: dict, *, offer=True, business=True) -> Facts:
    """The seam's facts for a demo product, built as the services build them (services/ai_facts.py)."""
    record = {k: v for k, v in product.items() if k != "evidence"}
    return facts_for(product=record, evidence=product["evidence"], offer=offer_for(product) if offer else None,
                     business=dict(BUSINESS) if business else {})


def knife_strip() -> dict:
    return demo_products()[0]


def store_task(facts: Facts | None = None, **extra) -> Task:
    return Task(kind="store_copy", facts=facts or facts_of(knife_strip()), **extra)


def own_copy(facts: Facts | None = None) -> dict:
    """A valid answer that is plainly not the offline one: its headline and first benefit differ."""
    copy = offline.write(store_task(facts))
    copy["headline"] = "Knives on the wall, counters clear"
    copy["benefits"][0] = {"title": "Clears the counter", "text": "Your knives hang flat on the wall, within reach."}
    return copy


def completion(content: str) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


class ChatServer(ThreadingHTTPServer):
    """Answers POSTs with the scripted replies in order, and records what it was sent."""

    daemon_threads = True

    def __init__(self):
        self.replies: list[tuple[int, bytes, float, dict]] = []
        self.received: list[dict] = []
        super().__init__(("127.0.0.1", 0), _ChatHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"

    def reply(self, body, status: int = 200, delay: float = 0.0, headers: dict | None = None) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.replies.append((status, raw, delay, headers or {}))

    def handle_error(self, request, client_address):
        pass  # a client that gave up on a slow answer is what the timeout test wants


class _ChatHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        # Header names as HTTP has them, case-insensitive: lowered here, so a check cannot miss one.
        self.server.received.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                     "body": json.loads(body) if body else None})
        status, raw, delay, headers = (self.server.replies.pop(0) if self.server.replies
                                       else (500, b'{"error": "no reply scripted"}', 0.0, {}))
        time.sleep(delay)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST  # where a followed redirect would land

    def log_message(self, *args):
        pass


def openai_settings(server: ChatServer, **changes):
    return SETTINGS.but(**{"ai_backend": "openai", "ai_base_url": server.url, "ai_model": "test-model",
                           "ai_timeout_seconds": 5, **changes})


def unreachable_once(monkeypatch) -> list[str]:
    """Makes the AI backend unreachable for its first call only; answers the kinds it was asked for."""
    from integrations import ai

    real, calls = ai.complete, []

    def answer(task, **kwargs):
        calls.append(task.kind)
        if len(calls) == 1:
            raise ai.AIError(ai.errors.UNAVAILABLE, "down for a moment")
        return real(task, **kwargs)

    monkeypatch.setattr(ai, "complete", answer)
    return calls
