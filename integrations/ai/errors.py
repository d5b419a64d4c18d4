"""What can go wrong when asking an AI backend, as the callers see it."""
from __future__ import annotations

# AIError.reason is one of these. The first two are the spec's editor reasons (7.2); the
# third is the seam's own (the job that catches it decides what the founder is told).
UNAVAILABLE = "cli_unavailable"
FAILED = "cli_failed"
INVALID_OUTPUT = "invalid_ai_output"
# The offline editor does not understand a request (its detail says what it does understand).
EDITOR_UNAVAILABLE = "editor_unavailable"


class AIError(Exception):
    """The AI backend could not give a usable answer; .reason says how, .detail says it safely."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        # Short and safe to show an operator: never the prompt, the answer or a key.
        self.detail = detail[:300]


class InvalidOutput(Exception):
    """An answer that is not one JSON object of the task's schema (worth one more try)."""
