"""Domain refusals. The api layer turns them into {status, reason, explanation} answers."""


class Refused(Exception):
    """The service says no, for a registered reason.

    `fields` are extra body fields that go with the refusal (for example `verified`).
    The HTTP status is chosen by the route that was called, not here.
    """

    def __init__(self, reason: str, explanation: str | None = None, **fields):
        require_registered(reason)
        super().__init__(reason)
        self.reason = reason
        self.explanation = explanation
        self.fields = fields


def require_registered(reason: str) -> None:
    """Refusing with a code that is not in the registry is a bug; fail loudly where it happens."""
    from services.reasons import REASONS

    if reason not in REASONS:
        raise ValueError(f"reason code {reason!r} is not in the registry (services/reasons.py)")


class TransientError(Exception):
    """Background work that may succeed if tried again later (a mailer or provider hiccup).
    The job runner retries it with a delay; services raise it, so it lives here."""


class JobFailed(Exception):
    """Background work that cannot succeed; `reason` is a registered reason code stored on the job."""

    def __init__(self, reason: str):
        require_registered(reason)
        super().__init__(reason)
        self.reason = reason
