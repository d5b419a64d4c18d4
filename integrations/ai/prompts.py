"""What the model backends (openai, command) are asked (the rules, the kind's task, the
facts and the schema) and how their answers are read (one JSON object).

The openai backend sends `system` and `user` as chat messages; the command backend gets
`request` as one JSON object on stdin ({kind, rules, instructions, facts, current, schema},
plus previous_error on the retry), so a program can hand the rules to whatever model it
runs. The facts are the shareable ones (claims.shareable): a model never sees the
seller's cost, margins or supplier quotes (those evidence readings never reach the seam:
services/ai_facts.py), which could not back a sentence anyway.
Neither prompt is ever logged.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from integrations.ai.claims import shareable
from integrations.ai.errors import InvalidOutput
from integrations.ai.kinds import kind_of
from integrations.ai.task import Task

RULES = """You write the copy of a small online store. Write only from the facts you are given: the product record, its dated evidence rows, the offer's price and the business details.
Answer with exactly one JSON object that follows the JSON schema you are given: no text, no Markdown around it.
- State no number that is not in the facts: no invented prices, sizes, quantities, durations, percentages, ratings or counts.
- Name no certification, quality mark or tested-safe claim (certified, FDA, CE, ISO, organic, BPA-free, hypoallergenic, vegan, cruelty-free, patented, award-winning, clinically proven and the like) unless the facts name it.
- Claim nothing about where the product is made, designed or sourced, or that it is handmade, unless the facts say so.
- Evidence rows describe demand for this kind of product in the market; do not present them as this store's own sales, ratings or reviews.
- Describe shipping, returns and the guarantee plainly; promise no delivery time, return period or refund amount the facts do not give. The checkout asks for the delivery address and shows one total (the price times the quantity): promise no delivery options or shipping charges.
Any sentence that breaks these rules is removed before the copy is used."""

# A model may wrap its JSON in one Markdown fence despite being told not to; that much is forgiven.
FENCED = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str
    request: dict


def build(task: Task) -> Prompt:
    """The prompt for a task; on the retry it says what was wrong with the first answer."""
    kind = kind_of(task.kind)
    facts = _plain(shareable(task.facts))
    parts = [
        kind.asks,
        "Facts (JSON):\n" + _json(facts),
        "JSON schema of your answer:\n" + _json(kind.schema),
    ]
    if task.instructions:
        parts.append("The founder's instructions (follow them within the rules):\n" + task.instructions)
    if task.current is not None:
        parts.append("The current copy, to be edited (JSON):\n" + _json(_plain(task.current)))
    request = {"kind": task.kind, "rules": RULES, "instructions": task.instructions, "facts": facts,
               "current": _plain(task.current), "schema": kind.schema}
    if task.previous_error:
        parts.append(f"Your previous answer was refused: {task.previous_error}. "
                     "Answer again with one JSON object that follows the schema.")
        request["previous_error"] = task.previous_error
    return Prompt(system=RULES, user="\n\n".join(parts), request=request)


def answer_object(text: str) -> dict:
    """The one JSON object a model answered (a single Markdown fence around it forgiven), or
    InvalidOutput saying why there is none; the seam then checks it against the schema."""
    text = text.strip()
    fenced = FENCED.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        raise InvalidOutput("the answer is not JSON") from None
    if not isinstance(value, dict):
        raise InvalidOutput("the answer is not one JSON object")
    return value


def _plain(value):
    """The value as plain JSON types (a Decimal or a date from the database becomes text)."""
    return json.loads(json.dumps(value, default=str))


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)
