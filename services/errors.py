"""Domain refusals. The api layer turns them into {status, reason, explanation} answers."""


class Refused(Exception):
    """The service says no, for a registered reason.

    `fields` are extra body fields that go with the refusal (for example `verified`).
    The HTTP status is chosen by the route that was called, not here.
    """

    def __init__(self, reason: str, explanation: str | None = None, **fields):
        super().__init__(reason)
        self.reason = reason
        self.explanation = explanation
        self.fields = fields
