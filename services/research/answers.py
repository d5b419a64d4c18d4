"""What GET /api/offer, /api/analysis, /api/dashboard, /api/launch and POST /api/analyze
answer: the session's product resolved once, its research read (and sent when missing or
stale), and the figures with their sources.

Each returns (answer, jobs): the jobs are sent by the route after the commit.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import peewee as pw

from models.account import Milestone, Referral
from models.clock import iso, utcnow
from models.db import KeptSQL, param
from models.job import Job
from models.research import Research
from models.session import Session
from models.supplier import SupplierConnection
from services import evidence_kinds as kinds
from services import launch_state, milestones, next_step, suppliers, watches
from services.catalog import OWN_PRODUCT_PREFIX
from services.discovery import Resolved, resolve
from services.errors import Refused
from services.money import display_major
from services.ownership import owner_of
from services.reasons import sentence
from services.research import analysis as analyser
from services.research import launch, records, similar, verdict
from services.research.analysis import readings
from services.research.offer import OWN_COST, OWN_PRICE, SUPPLIER_INPUT, SupplierLine, price_source, with_supplier
from services.store import own as own_details

OFFER_READY = "offer_ready"  # why a watch closes when its product's offer becomes real
NOT_YET = ("We are still researching this product's offer and evidence; this answer fills in when the research "
           "job finishes.")


def _state(*, reason: str, explanation: str | None = None, **fields) -> dict:
    """A 200 answer whose status is a state of the product, not a failure (spec 7.1)."""
    return {"status": reason, "reason": reason, "explanation": explanation or sentence(reason), **fields}


def _not_yet(product_id: str, current: records.Current) -> dict:
    job = current.job
    return _state(reason="not_yet_researched", explanation=NOT_YET, product_id=product_id,
                  stage=(job.stage or "queued") if job is not None and job.status in Job.ACTIVE else "queued",
                  job_id=job.id if job is not None else None)


def _jobs(current: records.Current) -> list[Job]:
    return [current.job] if current.created else []


def _researched_product(session: Session) -> tuple[Resolved | None, records.Current | None]:
    resolved = resolve(session)
    if resolved is None:
        return None, None
    return resolved, records.current(resolved.product_id)


def _dated(row: Research, current: records.Current) -> dict:
    return {"researched_at": iso(row.researched_at), "refreshing": current.stale}


# --- Offer -----------------------------------------------------------------------------------

def offer(*, session: Session) -> tuple[dict, list[Job]]:
    """The researched offer of the session's product, or the state saying why there is none."""
    resolved, current = _researched_product(session)
    if resolved is None:
        raise Refused("no_product", "You have no product yet, so there is no offer. Hold or claim one from your feed.")
    jobs = _jobs(current)
    if current.row is None:
        return _not_yet(resolved.product_id, current), jobs
    # The offer is real now: watches on the product close (spec 3), wherever it is held.
    jobs += watches.observe_available([resolved.product_id], because=OFFER_READY, require_free=False)
    priced = suppliers.priced_offer(owner_of(session), resolved.product_id, current.row.offer)
    return {"status": "ok", **priced, "own_product": is_own(resolved.product_id), **_dated(current.row, current)}, jobs


def is_own(product_id: str) -> bool:
    """A founder's own product (services/own_product.py): its price and cost are theirs."""
    return product_id.startswith(OWN_PRODUCT_PREFIX)


def _margin_read_from(offer_: dict, analysis_: dict) -> dict:
    """The analysis with its margin figure read from the offer the founder reads: the
    research judged the margin of the catalog's (or the founder's own) cost, and a connected
    supplier's unit cost changes it."""
    if not (offer_.get("supplier") or {}).get("used_as_cost"):
        return analysis_
    source = [{"type": "offer", "figure": "margin_pct", "inputs": ["price", "cost", "shipping", "fees"]},
              price_source(offer_), next(i["source"] for i in offer_["inputs"] if i["name"] == SUPPLIER_INPUT)]
    margin = analyser.margin(offer_["margin_pct"], source)
    return {**analysis_, "figures": [margin if f["id"] == "margin" else f for f in analysis_["figures"]]}


# --- Analysis --------------------------------------------------------------------------------

def analysis(*, session: Session) -> tuple[dict, list[Job]]:
    """The analysis of the session's product."""
    resolved, current = _researched_product(session)
    if resolved is None:
        raise Refused("no_product", "You have no product yet to analyse. Hold or claim one from your feed, or describe "
                                    "an idea below to analyse it.")
    if current.row is None:
        return _not_yet(resolved.product_id, current), _jobs(current)
    priced = suppliers.priced_offer(owner_of(session), resolved.product_id, current.row.offer)
    figures = _margin_read_from(priced, current.row.analysis)["figures"]
    body = {"status": "ok", "product_id": resolved.product_id, "figures": figures,
            "fresh_days": current.row.analysis["fresh_days"], **_dated(current.row, current)}
    return body, _jobs(current)


def analyze(*, session: Session, name: str | None, description: str | None) -> dict:
    """Analyses any product name or description through the closest catalog products it can
    see; with none, every figure says there is no evidence."""
    from services import search  # the catalog's full-text search (services/search.py)

    name, description = (name or "").strip(), (description or "").strip()
    if not name and not description:
        raise Refused("nothing_to_analyze")
    text = " ".join(part for part in (name, description) if part)
    hits = search.search(text, limit=3, owner=owner_of(session)) if search.query_terms(text) else []
    matches = [{"product_id": h.product_id, "name": h.name, "category": h.category, "score": h.score} for h in hits]
    if not hits:
        return {"status": "ok", "name": name or None, "description": description or None, "matched": None,
                "matches": [], "basis": "No catalog product matches this description, so no figure is estimated.",
                **analyser.no_evidence()}
    best = hits[0]
    facts = records.load(best.product_id)
    _offer, analysed = records.compute(facts, utcnow().date())
    analysed.pop("gate", None)  # the evidence gate belongs to the verdict, not to a description
    return {"status": "ok", "name": name or None, "description": description or None, "matched": matches[0],
            "matches": matches,
            "basis": f"Figures are those of the closest catalog product, {best.name} ({best.product_id}), and its "
                     "dated evidence; they describe that product, not a guess about yours.",
            **analysed}


# --- Dashboard -------------------------------------------------------------------------------

def verdict_inputs(offer_: dict, analysis_: dict) -> verdict.Inputs:
    levels = {f["id"]: f["level"] for f in analysis_["figures"]}
    gate = analysis_["gate"]
    own = None
    if is_own(offer_["product_id"]):
        roas = offer_["break_even_roas"]
        own = verdict.OwnProduct(price=Decimal(str(offer_["price"])), currency=offer_["currency"],
                                 cost_given=offer_.get("cost_given", True),
                                 break_even_roas=None if roas is None else Decimal(str(roas)),
                                 similar=analysis_.get("similar_prices"))
    return verdict.Inputs(unit_margin=Decimal(str(offer_["unit_margin"])), margin_pct=Decimal(str(offer_["margin_pct"])),
                          target_margin_pct=Decimal(str(offer_["target_margin_pct"])), demand=levels["demand"],
                          risk=levels["risk"], gate_rows=gate["rows_in_window"], gate_min_rows=gate["min_rows"],
                          gate_days=gate["days"], own=own)


def _facts(offer_: dict, analysis_: dict) -> list[dict]:
    currency = offer_["currency"]
    figure = {f["name"]: f for f in offer_["figures"]}
    given = {i["name"]: i["source"] for i in offer_["inputs"]}

    def from_offer(name: str, text: str) -> dict:
        uses = figure[name]["inputs"]
        # A figure that is the founder's own figure as they gave it (their price, their cost)
        # cites it as theirs rather than as a figure of the offer.
        source = given[uses[0]] if uses in ([OWN_PRICE], [OWN_COST]) else {
            "type": "offer", "figure": name, "formula": figure[name]["formula"], "inputs": uses}
        return {"id": name, "text": text, "value": offer_[name], "source": source}

    roas = offer_["break_even_roas"]
    own = is_own(offer_["product_id"])
    price = display_major(offer_["price"], currency)
    facts = [
        from_offer("price", f"Your price: {price}." if own else f"Recommended retail price {price}."),
        from_offer("cost", _cost_text(offer_, own=own)),
        from_offer("unit_margin", f"Each sale leaves {display_major(offer_['unit_margin'], currency)} after cost, shipping and "
                                  "fees."),
        from_offer("margin_pct", f"The margin is {offer_['margin_pct']:g}% of the price."),
        from_offer("break_even_roas", f"Ads break even at a ROAS of {roas:g}." if roas is not None
                   else "No ROAS breaks even: each sale loses money."),
    ]
    if own:
        facts.append(_similar_prices_fact(offer_, analysis_.get("similar_prices")))
    for f in analysis_["figures"]:
        facts.append({"id": f["id"], "text": f["because"], "value": f["level"],
                      "source": f["evidence"][0] if f["evidence"] else {"type": "none", "detail": "no evidence"}})
    gate = analysis_["gate"]
    facts.append({"id": "evidence_in_window", "text": _in_window_text(gate, own=own),
                  "value": gate["rows_in_window"], "source": {"type": "setting", "name": "EVIDENCE_MAX_AGE_DAYS"}})
    return facts


def _in_window_text(gate: dict, *, own: bool) -> str:
    """How much recent evidence there is, in a founder's words."""
    found = gate["rows_in_window"]
    if own and not found:
        return "No outside readings yet: nothing has measured demand for your own product."
    counted = readings(found) if found else "No dated readings"
    return f"{counted} from the last {gate['days']} days (a verdict needs at least {gate['min_rows']})."


def _similar_prices_fact(offer_: dict, found: dict | None) -> dict:
    """The founder's own price against similar catalog products' (the research read them)."""
    text = verdict.compared_with_similar(Decimal(str(offer_["price"])), found)
    if found is None:
        return {"id": "similar_prices", "text": text, "value": None,
                "source": {"type": "none", "detail": "no similar catalog product"}}
    return {"id": "similar_prices", "text": text, "value": found["median"], "source": similar.cite(found)}


def _cost_text(offer_: dict, *, own: bool) -> str:
    """The unit cost in a sentence: whose price it is (the catalog's, the founder's own, or
    their supplier's) and, with a supplier, what their minimum order costs up front."""
    cost = display_major(offer_["cost"], offer_["currency"])
    line = offer_.get("supplier")
    if own and not offer_.get("cost_given", True):
        whose = f"You have not said what one unit costs you, so every figure counts it as {cost}"
        if line is None:
            return f"{whose}: add it on the Product screen, or connect a supplier to count their price."
    else:
        whose = f"Each unit costs {cost}, " + ("the cost you gave" if own else "the catalog's cost")
        if line is None:
            return f"{whose}: connect a supplier to count their price."
    minimum = (f"their minimum order of {line['minimum_order_quantity']} units costs "
               f"{display_major(line['minimum_order_total'], line['currency'])} up front")
    if not line["used_as_cost"]:
        return f"{whose}. {line['explanation']} At their price, {minimum}."
    return f"Each unit costs {cost} from your supplier {line['supplier']} (SKU {line['sku']}); {minimum}."


def _sources(offer_: dict, analysis_: dict) -> list[dict]:
    """Every source behind the figures, once each (catalog fields, the founder's own figures,
    evidence rows, settings, a supplier, the similar catalog products' prices)."""
    seen, sources = set(), []
    cited = [i["source"] for i in offer_["inputs"]]
    for f in analysis_["figures"]:
        cited += [{k: v for k, v in e.items() if k in ("type", "date", "source", "metric", "field", "name",
                                                       "supplier", "sku", "currency")}
                  for e in f["evidence"]]
    if analysis_.get("similar_prices"):
        cited.append(similar.cite(analysis_["similar_prices"]))
    for source in cited:
        key = tuple(sorted(source.items()))
        if source.get("type") in ("catalog", "own", "evidence", "setting", "supplier", "similar") and key not in seen:
            seen.add(key)
            sources.append(source)
    return sources


@dataclass(frozen=True)
class Verdict:
    """A dashboard answer with a verdict. Its body is made from the research row (and
    whether it is being refreshed) and the offer line the founder connected, so one `key`
    always makes the same body: the key is the row's stored content (records.Current.content),
    not a note of when it last changed, and the line's terms, so a cache under it is right
    whoever rewrote the row (api/research.py keeps dumped bodies)."""

    product_id: str
    current: records.Current
    # The offer line the founder connected for the product (its price is the offer's cost),
    # or None: part of the key, since it changes the body.
    supplier: SupplierLine | None = None

    @property
    def key(self) -> tuple:
        return self.current.content, self.current.stale, self.supplier

    def body(self) -> dict:
        return _verdict_body(self.product_id, self.current.row, self.current, self.supplier)


def dashboard(*, session: Session) -> tuple[dict | Verdict, list[Job]]:
    """The verdict on the session's product with the facts and sources behind it, or the
    state saying why there is none; reaching it records the reached_dashboard milestone and
    qualifies the founder's referral."""
    resolved, current = _researched_product(session)
    if resolved is None:
        return _state(reason="not_claimed"), []
    if current.row is None:
        return _not_yet(resolved.product_id, current), _jobs(current)
    connected = visit_dashboard(session)
    supplier = suppliers.line_from(connected, resolved.product_id)
    return Verdict(resolved.product_id, current, supplier), _jobs(current)


def _verdict_body(product_id: str, row: Research, current: records.Current,
                  supplier: SupplierLine | None) -> dict:
    offer_ = with_supplier(row.offer, supplier)
    analysis_ = _margin_read_from(offer_, row.analysis)
    decided, rule, because = verdict.decide(verdict_inputs(offer_, analysis_))
    return {"status": "ok", "product_id": product_id, "own_product": is_own(product_id), "verdict": decided,
            "rule": rule, "because": because, "facts": _facts(offer_, analysis_), "sources": _sources(offer_, analysis_),
            "offer": {k: offer_[k] for k in ("currency", "price", "cost", "unit_margin", "margin_pct",
                                             "break_even_cpa", "break_even_roas")},
            "trends": _trends(analysis_), **_dated(row, current)}


def _trends(analysis_: dict) -> list[dict]:
    """The fresh evidence rows the research read (the risk figure cites every one) as series."""
    risk = next((f for f in analysis_["figures"] if f["id"] == "risk"), {"evidence": []})
    return kinds.trends(risk["evidence"])


def visit_dashboard(session: Session) -> SupplierConnection | None:
    """A founder's visit to the dashboard, in one read: records the milestone (session and account) and qualifies a pending referral: the
    friend has now used the product, so their referral counts (spec 8.3). Answers the
    founder's supplier connection, which the same read fetches (the verdict is priced with
    its line: services/suppliers.line_from), or None.

    Every dashboard poll comes here, and after the first there is nothing to write. So the
    database is asked first, in one read, what is missing (the session's milestone row, the
    account's, a referral still pending), and only that is written, the same SQL as
    milestones.record_missing and referrals.qualify. Each write stands alone and says so in
    its own WHERE or unique key (an insert that meets its key, an update of a referral not yet
    qualified), so a second writer in between changes nothing, and a write that did not happen
    is made by the next poll. No process remembers the answer: a row erased or restored is seen
    by the next poll."""
    bound = session.account_id is not None
    values = {"session": session.id, "name": milestones.REACHED_DASHBOARD, "owner": owner_of(session).key}
    if bound:
        values["account"] = session.account_id
    (session_missing, account_missing, referral_pending,
     supplier, sku, for_product) = _DASHBOARD_WORK.run(bound, **values).fetchone()
    now = utcnow()
    rows = [{"name": milestones.REACHED_DASHBOARD, "session": session.id, "account": None,
             "created_at": now}] if session_missing else []
    if account_missing:
        rows.append({"name": milestones.REACHED_DASHBOARD, "session": None, "account": session.account_id,
                     "created_at": now})
    if rows:
        Milestone.insert_many(rows).on_conflict_ignore().execute()
    if referral_pending:
        (Referral.update(qualified_at=now)
         .where(Referral.friend == session.account_id, Referral.qualified_at.is_null()).execute())
    if supplier is None:
        return None
    return SupplierConnection(owner=values["owner"], supplier=supplier, sku=sku, product_id=for_product)


def _dashboard_work_query(bound: bool):
    """One row: is the session's dashboard milestone missing, is its account's (false when
    anonymous), is the account's referral still pending (false when anonymous), and the
    founder's supplier connection's supplier, SKU and product (null without one)? One round
    trip for what every poll reads besides the session, its product and its research."""
    def missing(owner):
        return ~pw.fn.EXISTS(Milestone.select(Milestone.id).where(owner == param(owner.name),
                                                                   Milestone.name == param("name")))

    def connected(column):
        return SupplierConnection.select(column).where(SupplierConnection.owner == param("owner"))
    line = [connected(SupplierConnection.supplier), connected(SupplierConnection.sku),
            connected(SupplierConnection.product)]
    if not bound:
        return pw.Select(columns=[missing(Milestone.session), pw.SQL("0"), pw.SQL("0"), *line])
    pending = Referral.select(Referral.id).where(Referral.friend == param("account"), Referral.qualified_at.is_null())
    return pw.Select(columns=[missing(Milestone.session), missing(Milestone.account), pw.fn.EXISTS(pending), *line])


_DASHBOARD_WORK = KeptSQL(_dashboard_work_query)


# --- Launch facts ----------------------------------------------------------------------------

def launch_facts(*, session: Session) -> dict:
    """Every launch fact of the session's product, each with whether it is true today."""
    owner = owner_of(session)
    resolved = resolve(session)
    facts = launch.facts_for(owner, resolved)
    product_id = resolved.product_id if resolved else None
    name = own_details.name_of(product_id)
    state = launch_state.state_of(resolved, launch_state.fact_values(facts))
    return {"status": "ok", "product_id": product_id, "product_name": name, "facts": facts, "launch_state": state,
            "next_step": next_step.next_step(product_id=product_id, product_name=name, facts=facts,
                                             launch_state=state)}
