"""What the AI seam is handed of a product: its Facts, with the domain's decisions made.

The seam (integrations/ai/) knows no domain rule, so what the evidence rules decide
(services/evidence_kinds.py) is decided here and the seam is given the results:

- `evidence`: the dated rows without private readings. Money (a unit cost, a supplier
  quote, any price, whatever the catalog calls it) is the founder's business: a hosted
  model is never shown it, and the claim filter, which reads only what it is handed, lets
  no sentence lean on it.
- `statements`: the store owner's statements of their own policy (services/founder_statements.py),
  one sentence each, passed through as given: the founder's to state, never evidence.
- `demand`: what the evidence backs, in a shopper's words (`shopper_lines`): "Shoppers are
  looking for <product>." or "More and more shoppers are looking for <product>.", the line
  the store's public evidence section shows (services/store/proof.py), and nothing when no
  demand series backs it. The evidence is the founder's research: its figures, ranks and
  sources shape the founder's decisions (the offer, the verdict, the founder's own
  screens) and what the copy may claim, never what a shopper is told, so the offline
  writers of public copy (ad copy, generated pages) say only this line of it (issue 47).

Public copy goes further than the claim filter's usual test: the seam's `public_backing`
(integrations/ai/claims.py) is the facts a public sentence may lean on, without the
research, so a figure copied from an evidence row (22,400 searches, a #1,234 rank) is
dropped from a store page, an ad or a generated page whichever backend wrote it.

Every service that hands the seam a product's evidence builds its Facts with `facts_for`;
Facts built anywhere else carry no evidence (tests/test_ai_facts.py holds every caller to it).
Deterministic like the writers it serves: nothing reads the clock, the environment or a
random source.
"""
from __future__ import annotations

from integrations.ai.task import Facts
from services import evidence_kinds as kinds
from services.store.proof import shopper_proof


def facts_for(*, product: dict, evidence: list[dict], offer: dict | None, business: dict | None = None,
              statements: tuple[str, ...] | list[str] = ()) -> Facts:
    """The seam's Facts for a product: its evidence without private readings, what it backs in
    a shopper's words, and the store owner's statements of their policy (StoreFacts.statements)."""
    shown = shareable_evidence(evidence)
    return Facts(product=product, evidence=shown, offer=offer, business={} if business is None else business,
                 demand=shopper_lines(shown, product), statements=tuple(statements))


def shareable_evidence(rows: list[dict]) -> list[dict]:
    """The rows, in order, without those whose metric is private (money: services/evidence_kinds.py)."""
    return [row for row in rows if not kinds.private(str(row.get("metric") or ""))]


def shopper_lines(evidence: list[dict], product: dict) -> tuple[str, ...]:
    """What the evidence tells a shopper: the store's own line (services/store/proof.py), or
    nothing when no demand series backs it or the product has no name to say it of."""
    name = product_name(product)
    proof = shopper_proof(evidence, name) if name else None
    return (proof["text"],) if proof else ()


def product_name(product: dict) -> str:
    """The product's name as a shopper reads it (its whitespace tidied), "" when it has none."""
    return " ".join(str(product.get("name") or "").split())
