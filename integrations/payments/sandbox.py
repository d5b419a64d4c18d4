"""The service's side of the sandbox provider: the seam's calls, answered by the
sandbox bank (sandbox_bank.py) exactly as a remote provider would answer them.

Checkout pages live at {BASE_URL}/pay/sandbox/checkout/<id>. Notifications carry the
`Sandbox-Signature` header; they are checked here with the same key the bank signs with.
"""
from __future__ import annotations

import json
from collections.abc import Mapping

from integrations import signatures
from integrations.payments import (
    PAID,
    Checkout,
    CheckoutRequest,
    CheckoutState,
    Notification,
    NotificationRejected,
    ProviderRefused,
    RefundAnswer,
    ShippingAddress,
)
from integrations.payments import sandbox_bank as bank
from models.clock import clock

WINDOW_SECONDS = 300


class SandboxProvider:
    name = "sandbox"
    signature_header = bank.SIGNATURE_HEADER

    def __init__(self, settings):
        self.base_url = settings.base_url
        # The hosted page is served by this service itself, under BASE_URL.
        self.checkout_origin = settings.origin
        self.key = bank.signing_secret(settings.secret_key)

    def checkout_url(self, checkout_id: str) -> str:
        return f"{self.base_url}/pay/sandbox/checkout/{checkout_id}"

    def create_checkout(self, request: CheckoutRequest) -> Checkout:
        row = bank.create(request)
        return Checkout(provider_ref=row.id, url=self.checkout_url(row.id))

    def checkout_state(self, provider_ref: str) -> CheckoutState:
        row = bank.find(provider_ref)
        if row is None:
            raise ProviderRefused("the sandbox has no checkout with that id")
        return CheckoutState(provider_ref=row.id, state=bank.state_of(row), amount_minor=row.amount_minor,
                             currency=row.currency, payment_ref=row.payment_ref if row.state == PAID else None,
                             reference=row.reference, shipping=ShippingAddress(**row.shipping) if row.shipping else None)

    def close_checkout(self, provider_ref: str) -> CheckoutState:
        if bank.close(provider_ref) is None:
            raise ProviderRefused("the sandbox has no checkout with that id")
        return self.checkout_state(provider_ref)

    def verify_notification(self, *, payload: bytes, headers: Mapping[str, str]) -> Notification:
        header = headers.get(self.signature_header)
        if header is None:
            raise NotificationRejected("unsigned", f"the notification has no {self.signature_header} header")
        timestamp, candidates = signatures.parse_header(header)
        if timestamp is None or not candidates:
            raise NotificationRejected("bad_signature", "the signature header is malformed")
        if abs(clock.time() - timestamp) > WINDOW_SECONDS:
            raise NotificationRejected("bad_signature", "the signature's timestamp is outside the window")
        if not signatures.matches(key=self.key, timestamp=timestamp, payload=payload, candidates=candidates):
            raise NotificationRejected("bad_signature", "no signature matches the body")
        try:
            event = json.loads(payload)
            data = event["data"]
            return Notification(event_id=str(event["id"]), provider_ref=str(data["checkout"]), type=str(event["type"]),
                                reference=data.get("reference"))
        except (ValueError, KeyError, TypeError):
            # Signed by the sandbox but not shaped as its events are: a bug, refused all the same.
            raise NotificationRejected("bad_signature", "the signed body is not a sandbox event") from None

    def refund(self, *, payment_ref: str, key: str, amount_minor: int | None = None) -> RefundAnswer:
        return _refund_answer(bank.refund(payment_ref, amount_minor, key))

    def refund_state(self, refund_ref: str) -> RefundAnswer:
        row = bank.find_refund(refund_ref)
        if row is None:
            raise ProviderRefused("the sandbox has no refund with that id")
        return _refund_answer(row)


def _refund_answer(row) -> RefundAnswer:
    # The sandbox's refund states are the seam's.
    return RefundAnswer(ref=row.id, state=row.state, amount_minor=row.amount_minor,
                        failure_reason=row.failure_reason)
