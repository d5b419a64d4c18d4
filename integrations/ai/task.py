"""What crosses the AI seam: a Task and its Facts going in, an Answer coming out, the
Backend that writes it and the Kind of writing it is."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Facts:
    """Everything copy may say; anything else may not be claimed. The services build them
    (services/ai_facts.py) and make the domain's decisions there: the seam reads `evidence`
    and `demand` as given, and decides nothing about what a reading may tell."""

    product: dict  # the catalog record: product_id, name, description, category, price, cost, currency, images, ...
    # Dated rows {date, source, metric, value, note} that may be shown to a model and back a
    # sentence: the founder's private readings (costs, supplier quotes) are already left out.
    evidence: list[dict]
    offer: dict | None  # the researched offer figures (price, unit_margin, margin_pct, ..., currency), or None
    business: dict = field(default_factory=dict)  # optional: business_name, support_email
    # What the evidence backs, in a shopper's words, without a figure or a source (at most
    # one line, none when nothing backs it): all the offline writers of public copy say of
    # the evidence. Never sent to a model.
    demand: tuple[str, ...] = ()
    # The founder's own statements of their business's policy, one sentence each ("Free
    # returns within 30 days of delivery."): theirs to state, so copy that says the same
    # policy is backed by them (integrations/ai/claims.py), while they back no claim about
    # the product itself (its sales, its origin, a certification).
    statements: tuple[str, ...] = ()


@dataclass(frozen=True)
class Task:
    """One piece of writing to do."""

    kind: str  # a registered Kind's name: "store_copy", "store_edit", ...
    facts: Facts
    instructions: str = ""  # the founder's own words (a plain-language edit), may be ""
    current: dict | None = None  # the copy being edited, if any
    # Set by the seam when it asks a second time: what was wrong with the first answer.
    previous_error: str | None = None


@dataclass(frozen=True)
class Answer:
    """The copy to use, what was removed from it, and which backend wrote it."""

    copy: dict  # valid against the kind's schema, unbacked sentences removed
    dropped: list[dict]  # [{field, sentence, why}], why: number | certification | origin
    backend: str  # offline | openai | command


class Backend(Protocol):
    """Who writes: the offline writers, an OpenAI-compatible server or a program. The seam
    checks what write() answers against the kind's schema; a backend only raises AIError
    (it could not answer) or InvalidOutput (what it got back is not one JSON object)."""

    name: str

    def write(self, task: Task) -> dict: ...


@dataclass(frozen=True)
class Kind:
    """A kind of writing, registered by the feature that asks for it (integrations/ai/kinds.py)."""

    name: str
    schema: dict  # the JSON Schema of an answer (integrations/ai/schemas.py), shown to the model too
    asks: str  # the prompt's one-line task for a model
    offline: Callable[[Task], dict]  # the offline backend's writer for this kind
    # What the seam does with a valid answer before handing it back: (copy, dropped). None:
    # every sentence the facts cannot back is dropped (claims.py), the offline writer's words
    # standing in where a field would no longer validate.
    finish: Callable[[dict, Task], tuple[dict, list[dict]]] | None = None
    # What is wrong with a valid answer that a second ask may mend ([] when nothing): the
    # editors' answers must read whole (no name cut mid-name, no "…"), as the offline editor's do.
    check: Callable[[dict, Task], list[str]] | None = None
