"""What can go wrong when asking an AI backend, as every caller sees it.

AIError.reason is one of the constants below; callers compare with them, never with
string literals. TRANSIENT names the kinds worth trying again later: the job that asked
retries them under the one policy described in integrations/ai/__init__.py.
"""
from __future__ import annotations

# The first two are the spec's editor reasons (7.2); the third is the seam's own (the job
# that catches it decides what the founder is told).
UNAVAILABLE = "cli_unavailable"  # the backend cannot be reached or started: it may be back shortly
FAILED = "cli_failed"  # it answered with an error or took too long
INVALID_OUTPUT = "invalid_ai_output"  # twice an answer that is not one JSON object of the kind's schema

TRANSIENT = frozenset({UNAVAILABLE})


class AIError(Exception):
    """The AI backend could not give a usable answer; .reason says how, .detail says it safely."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        # Short and safe to show an operator: never the prompt, the answer or a key.
        self.detail = detail[:300]

    @property
    def transient(self) -> bool:
        """Whether asking again later may succeed (the job retries it)."""
        return self.reason in TRANSIENT


class InvalidOutput(Exception):
    """An answer that is not one JSON object of the task's schema (worth one more try)."""
