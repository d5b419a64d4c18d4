"""Research records: computing a product's offer and analysis (the `research` job), storing
them with the fingerprint of their inputs, and knowing when they must be computed again.

A research row is about a catalog product, not a founder: the same figures hold for
whoever holds the product. The fingerprint covers everything the figures were computed
from (the catalog record, its evidence rows, the offer and gate settings, and the day,
since freshness windows move with it); a read that finds a different fingerprint serves
the stored figures and sends a re-run. One input is left out on purpose: the other
products' readings a metric without a published scale is judged against (`peers`). Putting
them in would make every catalog load re-research every product; they are read again
with each research, and the day in the fingerprint brings one at least daily. The same
holds for the catalog prices a founder's own product is compared with (`similar`).
"""
from __future__ import annotations

import hashlib
from collections import namedtuple
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

import peewee as pw

from config import get_settings
from models.catalog import Evidence, Product
from models.clock import utcnow
from models.db import KeptSQL, param, read_row, transaction
from models.job import Job
from models.research import Research
from services import evidence_gate
from services import evidence_kinds as kinds
from services.catalog import OWN_PRODUCT_PREFIX
from services.jobs import active_job, create_job
from services.research import analysis as analyser
from services.research import similar as similar_products
from services.research.offer import (
    CATALOG_COST,
    OWN_COST,
    CatalogRecord,
    OfferSettings,
    Row,
    compute_offer,
    price_source,
)

RESEARCH = "research"  # the job kind
# What a stored research looks like, in its fingerprint: changing what the research writes
# (its shape or its words) changes this, so every product is researched again at its next
# read instead of serving the words of before until the day changes. 2: a founder's own
# product speaks of their own price and cost and is compared with similar catalog products.
RESEARCH_FORMAT = "2"


def subject(product_id: str) -> str:
    return f"research:{product_id}"


@dataclass(frozen=True)
class Facts:
    """A catalog product as the research reads it."""

    record: CatalogRecord
    rows: list[Row]
    # metric -> the other catalog products' newest fresh readings of it, for the metrics of
    # `rows` that have no published scale (services/evidence_kinds.py judges a reading by them).
    peers: dict[str, list[float]] = field(default_factory=dict)
    # A founder's own product: the prices of similar catalog products (services/research/similar.py).
    similar: dict | None = None


def peer_readings(product_id: str, rows: list[Row], today: date) -> dict[str, list[float]]:
    """For each demand or competition metric of `rows` without a published scale: the newest
    reading of it, dated within the analysis's freshness window, of every other product."""
    values: dict[str, list[float]] = {}
    for r in rows:
        values.setdefault(r.metric, []).append(r.value)
    wanted = sorted(m for m, vs in values.items() if kinds.scale_of(m) is None
                    and kinds.roles_of(m, vs) & {kinds.DEMAND, kinds.COMPETITION})
    if not wanted:
        return {}
    newest: dict[tuple[str, str], float] = {}
    cutoff = today - timedelta(days=analyser.FRESH_DAYS)
    for pid, metric, value in (Evidence.select(Evidence.product, Evidence.metric, Evidence.value)
                               .where(Evidence.metric.in_(wanted), Evidence.date >= cutoff, Evidence.date <= today,
                                      Evidence.product != product_id)
                               .order_by(Evidence.date, Evidence.value).tuples()):
        newest[(pid, metric)] = value  # oldest first, so the newest reading of each product stays
    peers: dict[str, list[float]] = {m: [] for m in wanted}
    for (_pid, metric), value in sorted(newest.items()):
        peers[metric].append(value)
    return peers


def load(product_id: str, *, today: date | None = None, with_peers: bool = True) -> Facts | None:
    product = Product.get_or_none(Product.product_id == product_id)
    if product is None:
        return None
    weight = (product.extra or {}).get("weight_grams")
    weight = Decimal(str(weight)) if isinstance(weight, (int, float)) and not isinstance(weight, bool) and weight > 0 \
        else None
    own = product.product_id.startswith(OWN_PRODUCT_PREFIX)
    cost = Decimal(str(product.cost))
    # A cost saved later sets the flag (services/own_product.py); a row whose cost was saved
    # before saves did keeps a false flag, and its cost above 0 was given all the same.
    cost_given = not own or bool((product.extra or {}).get("cost_given")) or cost > 0
    record = CatalogRecord(product.product_id, Decimal(str(product.price)), cost, product.currency, weight,
                           own=own, cost_given=cost_given)
    rows = [Row(e.date, e.source, e.metric, e.value)
            for e in Evidence.select(Evidence.date, Evidence.source, Evidence.metric, Evidence.value)
            .where(Evidence.product == product_id).order_by(Evidence.date, Evidence.id)]
    peers = peer_readings(product_id, rows, today or utcnow().date()) if with_peers else {}
    similar = similar_products.similar_prices(name=product.name, description=product.description,
                                              currency=product.currency) if own else None
    return Facts(record, rows, peers, similar)


def fingerprint(product_id: str, today: date, settings=None) -> str | None:
    """The digest of the inputs a research of the product reads today (one statement);
    None when the product is not in the catalog."""
    found = _current(product_id)
    return None if found is None else _digest(product_id, found, today, settings or get_settings())


def _digest(product_id: str, found, today: date, settings) -> str:
    gate = evidence_gate.current_gate(settings)
    parts = [product_id, str(found.updated_at), str(found.evidence_rows), str(found.evidence_last),
             OfferSettings.from_settings(settings).fingerprint(), f"{gate.min_rows}|{gate.max_age_days}",
             today.isoformat(), RESEARCH_FORMAT]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _current(product_id: str):
    """The inputs of a product's fingerprint (its catalog record's update time, its evidence
    rows' count and newest id) and its research row, if any (the row goes with the product:
    ON DELETE CASCADE), as one row; None when the product is not in the catalog. Every
    dashboard and offer poll reads it: its SQL text is kept (models/db.KeptSQL)."""
    found = _CURRENT.run(product_id=product_id).fetchone()
    return None if found is None else CurrentRow._make([*read_row(_CURRENT_READERS, found), _content_of(found)])


def _content_of(found) -> bytes | None:
    """A digest of the research row as stored (every column's text: the offer and analysis
    as written, the fingerprint, researched_at), None when there is none. Two reads with the
    same digest read the same row content, whoever wrote it and however: a cache keyed by it
    is right without being told of writes (api/research.py keeps dumped verdicts under it)."""
    stored = found[len(_CURRENT_READERS) - len(Research._meta.sorted_fields):]
    if stored[0] is None:  # no research row joined
        return None
    return hashlib.blake2b(repr(stored).encode(), digest_size=16).digest()


def _current_query():
    evidence = (Evidence.select(pw.fn.COUNT(Evidence.id), pw.fn.MAX(Evidence.id))
                .where(Evidence.product == Product.product_id))
    return (Product.select(Product.updated_at.alias("updated_at"),
                           evidence.select(pw.fn.COUNT(Evidence.id)).alias("evidence_rows"),
                           evidence.select(pw.fn.MAX(Evidence.id)).alias("evidence_last"),
                           *[getattr(Research, name).alias(name) for name in Research._meta.sorted_field_names])
            .join(Research, pw.JOIN.LEFT_OUTER, on=(Research.product == Product.product_id))
            .where(Product.product_id == param("product_id")))


CurrentRow = namedtuple("CurrentRow", ["updated_at", "evidence_rows", "evidence_last",
                                       *Research._meta.sorted_field_names, "content"])
_CURRENT_READERS = (Product.updated_at, None, None, *Research._meta.sorted_fields)
_CURRENT = KeptSQL(_current_query)


def compute(facts: Facts, today: date, settings=None) -> tuple[dict, dict]:
    """(offer, analysis) for a product's facts on a day."""
    settings = settings or get_settings()
    offer = compute_offer(facts.record, facts.rows, OfferSettings.from_settings(settings), today)
    # The margin reads the price and the cost the offer read: the catalog's, or the founder's own.
    cost_source = next(i["source"] for i in offer["inputs"] if i["name"] in (CATALOG_COST, OWN_COST))
    margin_source = [{"type": "offer", "figure": "margin_pct", "inputs": ["price", "cost", "shipping", "fees"]},
                     price_source(offer), cost_source]
    analysis = analyser.analyse(facts.rows, today, margin_pct=offer["margin_pct"], margin_source=margin_source,
                                peers=facts.peers)
    if facts.record.own:
        analysis["similar_prices"] = facts.similar
    gate = evidence_gate.current_gate(settings)
    cutoff = gate.cutoff(today)
    in_window = [r for r in facts.rows if cutoff <= r.date <= today]
    newest = max((r.date for r in facts.rows), default=None)
    analysis["gate"] = {"rows_in_window": len(in_window), "min_rows": gate.min_rows, "days": gate.max_age_days,
                        "newest_evidence": newest.isoformat() if newest else None}
    return offer, analysis


def run(product_id: str, *, stage=lambda name: None, fenced=None) -> dict:
    """The research job's work: computes the product's offer and analysis and stores them
    (through `fenced`, the job's attempt-checked transaction). Running it twice on the same
    inputs stores the same figures."""
    today = utcnow().date()
    stage("reading_evidence")
    digest = fingerprint(product_id, today)
    facts = load(product_id, today=today)
    if facts is None or digest is None:
        return {"product_id": product_id, "researched": False, "why": "not_in_catalog"}
    stage("computing")
    offer, analysis = compute(facts, today)
    stage("writing")
    now = utcnow()
    values = {"product": product_id, "offer": offer, "analysis": analysis, "fingerprint": digest, "researched_at": now}
    with (fenced() if fenced else transaction()):
        (Research.insert(**values)
         .on_conflict(conflict_target=[Research.product],
                      update={Research.offer: offer, Research.analysis: analysis, Research.fingerprint: digest,
                              Research.researched_at: now})
         .execute())
    return {"product_id": product_id, "researched": True, "fingerprint": digest}


@dataclass(frozen=True)
class Current:
    """A product's research as a read finds it: the stored row (None until the first run
    finished), whether it is stale, and the job computing it (None when none runs)."""

    row: Research | None
    stale: bool
    job: Job | None
    created: bool  # the job was created by this read: send it after commit
    content: bytes | None = None  # a digest of the row as stored (_content_of)


def current(product_id: str) -> Current:
    """The product's research, creating its job when there is none or it is stale."""
    found = _current(product_id)
    row = wanted = content = None
    if found is not None:
        content = found.content
        wanted = _digest(product_id, found, utcnow().date(), get_settings())
        if found.product is not None:
            row = Research(**{name: getattr(found, name) for name in Research._meta.sorted_field_names})
    if row is not None and row.fingerprint == wanted:
        return Current(row, False, None, False, content)
    if wanted is None:  # the product left the catalog: nothing to compute
        return Current(row, False, None, False, content)
    job, created = request(product_id)
    return Current(row, row is not None, job, created, content)


def request(product_id: str) -> tuple[Job, bool]:
    """Creates the product's research job, or finds the one queued or running (one per
    product at a time). Returns (job, created)."""
    running = running_job(product_id)
    if running is not None:  # a poll while it runs: read it rather than fail an insert
        return running, False
    with transaction():
        return create_job(kind=RESEARCH, subject=subject(product_id), payload={"product_id": product_id})


def request_if_missing(product_id: str) -> list[Job]:
    """Sends research for a product that has none (a claim): the jobs to send after commit."""
    if Research.select().where(Research.product == product_id).exists():
        return []
    job, created = request(product_id)
    return [job] if created else []


def running_job(product_id: str) -> Job | None:
    return active_job(kind=RESEARCH, subject=subject(product_id))
