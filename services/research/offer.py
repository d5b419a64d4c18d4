"""The offer: what a product should sell for and what each sale leaves (decisions.md,
"GET /api/offer").

Plain arithmetic over plain values, so the hand-checked cases in tests pin it exactly.
Every figure is rounded to cents as soon as it is computed and the next figure is
computed from the rounded one, so a founder can redo the sums on paper. Each input names
its source: a catalog field, a dated evidence row or a documented setting.

A founder's own product (services/own_product.py) has no catalog record of the catalog's: its
price and unit cost are the founder's, so its offer reads them as `your_price` and
`your_cost`, each with the source {type: own, field}, and says so in its formulas.

The research computes one offer per catalog product. A founder who connected a supplier's
offer line reads that offer priced with the line (`with_supplier`): the unit cost they will
pay is the offer's one cost, and every screen that shows a cost or a margin reads it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
HUNDRED = Decimal(100)
GRAMS_PER_KG = Decimal(1000)
# A supplier quote older than this no longer says what a unit costs today.
QUOTE_FRESH_DAYS = 180
QUOTE_METRIC = "unit_price_quote"
# The inputs a price or a unit cost is read from: a catalog product's, or a founder's own.
MARKET_PRICE, CATALOG_COST = "market_price", "catalog_cost"
OWN_PRICE, OWN_COST = "your_price", "your_cost"


@dataclass(frozen=True)
class OfferSettings:
    """The documented settings the offer uses (config.py; README, "Research and verdict")."""

    fee_pct: Decimal  # OFFER_FEE_PCT: the payment provider's percentage of the price
    fee_fixed: Decimal  # OFFER_FEE_FIXED: its fixed part per payment, in the product's currency
    shipping_flat: Decimal  # OFFER_SHIPPING_FLAT: shipping one unit, in the product's currency
    shipping_per_kg: Decimal  # OFFER_SHIPPING_PER_KG: added per kilogram when the weight is known
    target_margin_pct: Decimal  # TARGET_MARGIN_PCT: the margin a product should leave

    @classmethod
    def from_settings(cls, settings) -> OfferSettings:
        return cls(Decimal(str(settings.offer_fee_pct)), Decimal(str(settings.offer_fee_fixed)),
                   Decimal(str(settings.offer_shipping_flat)), Decimal(str(settings.offer_shipping_per_kg)),
                   Decimal(str(settings.target_margin_pct)))

    def fingerprint(self) -> str:
        return "|".join(str(v) for v in (self.fee_pct, self.fee_fixed, self.shipping_flat, self.shipping_per_kg,
                                         self.target_margin_pct))


@dataclass(frozen=True)
class Row:
    """One dated evidence row."""

    date: date
    source: str
    metric: str
    value: float

    def cite(self) -> dict:
        return {"type": "evidence", "date": self.date.isoformat(), "source": self.source, "metric": self.metric}


@dataclass(frozen=True)
class CatalogRecord:
    """The catalog fields the offer and the analysis read."""

    product_id: str
    price: Decimal
    cost: Decimal
    currency: str
    weight_grams: Decimal | None = None
    # A founder's own product: its price and cost are the founder's figures, not the catalog's.
    own: bool = False
    # False when the founder has not said what one unit costs them (their cost is then 0).
    cost_given: bool = True


def money(value) -> Decimal:
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def catalog(field: str) -> dict:
    return {"type": "catalog", "field": field}


def setting(name: str) -> dict:
    return {"type": "setting", "name": name}


def own(field: str) -> dict:
    """A figure the founder gave for their own product (its price or unit cost)."""
    return {"type": "own", "field": field}


def price_source(offer: dict) -> dict:
    """Where an offer's price comes from: the catalog's price, or the founder's own."""
    return next(i["source"] for i in offer["inputs"] if i["name"] in (MARKET_PRICE, OWN_PRICE))


def latest_quote(rows: list[Row], today: date) -> Row | None:
    """The newest supplier quote dated within QUOTE_FRESH_DAYS of today, if any."""
    cutoff = today - timedelta(days=QUOTE_FRESH_DAYS)
    quotes = [r for r in rows if r.metric == QUOTE_METRIC and cutoff <= r.date <= today]
    return max(quotes, key=lambda r: (r.date, r.value), default=None)


def compute_offer(record: CatalogRecord, rows: list[Row], settings: OfferSettings, today: date) -> dict:
    """The offer for a catalog record, its evidence rows and the settings, on a day."""
    inputs: list[dict] = []

    def given(name: str, value, source: dict) -> Decimal:
        inputs.append({"name": name, "value": float(value), "source": source})
        return Decimal(str(value))

    if record.own:
        given(OWN_PRICE, money(record.price), own("price"))
        own_cost = given(OWN_COST, money(record.cost), own("cost"))
        quoted = None
    else:
        given(MARKET_PRICE, money(record.price), catalog("price"))
        catalog_cost = given(CATALOG_COST, money(record.cost), catalog("cost"))
        quote = latest_quote(rows, today)
        quoted = given("supplier_quote", money(quote.value), quote.cite()) if quote else None
    if record.weight_grams:
        given("weight_grams", record.weight_grams, catalog("weight_grams"))
    given("payment_fee_pct", settings.fee_pct, setting("OFFER_FEE_PCT"))
    given("payment_fee_fixed", settings.fee_fixed, setting("OFFER_FEE_FIXED"))
    given("shipping_flat", settings.shipping_flat, setting("OFFER_SHIPPING_FLAT"))
    if record.weight_grams:
        given("shipping_per_kg", settings.shipping_per_kg, setting("OFFER_SHIPPING_PER_KG"))
    given("target_margin_pct", settings.target_margin_pct, setting("TARGET_MARGIN_PCT"))

    if record.own:
        # What the founder said one unit costs them; with nothing said it counts as 0, and
        # the formula says so rather than letting the margin look earned.
        cost = Cost(own_cost, "the unit cost you gave" if record.cost_given
                    else "not given yet: counted as 0 until you say what one unit costs you", [OWN_COST])
    # The catalog cost is what one unit costs a founder who starts small; a fresh quote
    # counts only when it is higher (prices went up), so the offer never shows a margin
    # that only a bulk order would earn.
    elif quoted is not None and quoted > catalog_cost:
        cost = Cost(quoted, "the fresh supplier quote, which is above the catalog cost",
                    ["supplier_quote", CATALOG_COST])
    elif quoted is not None:
        cost = Cost(catalog_cost, "the catalog cost (the fresh supplier quote is not above it: a bulk price is not "
                                  "what a first order pays)", [CATALOG_COST, "supplier_quote"])
    else:
        cost = Cost(catalog_cost, f"the catalog cost (no supplier quote in the last {QUOTE_FRESH_DAYS} days)",
                    [CATALOG_COST])
    return {"product_id": record.product_id, "currency": record.currency,
            **_priced(inputs, cost), "inputs": inputs, "cost_given": record.cost_given}


@dataclass(frozen=True)
class Cost:
    """What one unit costs the founder, how that was chosen, and the inputs it read."""

    value: Decimal
    formula: str
    uses: list[str]


def _priced(inputs: list[dict], cost: Cost) -> dict:
    """Every figure after the cost, from the named inputs (the market price or the founder's
    own price, weight, the fee, shipping and target settings) and the unit cost chosen."""
    value = {i["name"]: Decimal(str(i["value"])) for i in inputs}
    own_product = OWN_PRICE in value
    price_input = OWN_PRICE if own_product else MARKET_PRICE
    fee_pct, fee_fixed, target = value["payment_fee_pct"], value["payment_fee_fixed"], value["target_margin_pct"]
    weight = value.get("weight_grams")
    figures: list[dict] = []

    def figure(name: str, amount: Decimal | None, formula: str, uses: list[str]) -> Decimal | None:
        figures.append({"name": name, "value": None if amount is None else float(amount), "formula": formula,
                        "inputs": uses})
        return amount

    price_formula = "your own price" if own_product else "the market price of the catalog record"
    price = figure("price", value[price_input], price_formula, [price_input])
    figure("cost", cost.value, cost.formula, cost.uses)
    if weight is not None:
        shipping = figure("shipping", money(value["shipping_flat"] + value["shipping_per_kg"] * weight / GRAMS_PER_KG),
                          "shipping_flat + shipping_per_kg x weight in kg", ["shipping_flat", "shipping_per_kg",
                                                                            "weight_grams"])
    else:
        weightless = "your product has no weight given" if own_product else "the catalog record has no weight"
        shipping = figure("shipping", money(value["shipping_flat"]), f"shipping_flat ({weightless})", ["shipping_flat"])
    fees = figure("fees", money(price * fee_pct / HUNDRED) + money(fee_fixed),
                  "price x payment_fee_pct / 100 (rounded to cents) + payment_fee_fixed",
                  [price_input, "payment_fee_pct", "payment_fee_fixed"])
    unit_margin = figure("unit_margin", price - cost.value - shipping - fees, "price - cost - shipping - fees",
                         ["price", "cost", "shipping", "fees"])
    margin_pct = figure("margin_pct", money(unit_margin * HUNDRED / price), "unit_margin / price x 100",
                        ["unit_margin", "price"])
    break_even_cpa = figure("break_even_cpa", max(unit_margin, Decimal("0.00")),
                            "unit_margin: the most an acquired customer may cost before a sale loses money "
                            "(0 when a sale already loses money)", ["unit_margin"])
    roas = money(price / unit_margin) if unit_margin > 0 else None
    break_even_roas = figure("break_even_roas", roas, "price / unit_margin: ad revenue per unit of ad spend at "
                             "which a sale breaks even (none when a sale loses money)", ["price", "unit_margin"])
    # The price at which the target margin would be met, with the same cost, shipping and
    # fee rates: price = (cost + shipping + fee_fixed) / (1 - fee_pct/100 - target/100).
    share_left = 1 - fee_pct / HUNDRED - target / HUNDRED
    target_price = money((cost.value + shipping + money(fee_fixed)) / share_left) if share_left > 0 else None
    figure("price_for_target_margin", target_price,
           "(cost + shipping + payment_fee_fixed) / (1 - payment_fee_pct/100 - target_margin_pct/100)",
           ["cost", "shipping", "payment_fee_fixed", "payment_fee_pct", "target_margin_pct"])
    return {
        "price": float(price),
        "cost": float(cost.value),
        "shipping": float(shipping),
        "fees": float(fees),
        "unit_margin": float(unit_margin),
        "margin_pct": float(margin_pct),
        "break_even_cpa": float(break_even_cpa),
        "break_even_roas": None if break_even_roas is None else float(break_even_roas),
        "price_for_target_margin": None if target_price is None else float(target_price),
        "target_margin_pct": float(target),
        "figures": figures,
    }


# --- The founder's connected supplier --------------------------------------------------------

SUPPLIER_INPUT = "supplier_unit_cost"
# The inputs a connected supplier's unit cost stands in for: the offer shows one unit cost.
COST_INPUTS = (CATALOG_COST, "supplier_quote", OWN_COST)


@dataclass(frozen=True)
class SupplierLine:
    """The offer line a founder connected (services/suppliers.py), as the offer reads it."""

    supplier: str
    sku: str
    name: str
    unit_cost: Decimal
    currency: str
    moq: int | None

    def cite(self) -> dict:
        return {"type": "supplier", "supplier": self.supplier, "sku": self.sku, "currency": self.currency}

    def terms(self) -> dict:
        """The line's unit cost and what its minimum order costs up front (a line with no
        minimum sells one unit)."""
        quantity = self.moq if self.moq and self.moq > 0 else 1
        return {"supplier": self.supplier, "sku": self.sku, "name": self.name, "unit_cost": float(self.unit_cost),
                "currency": self.currency, "moq": self.moq, "minimum_order_quantity": quantity,
                "minimum_order_total": float(money(self.unit_cost * quantity))}


def with_supplier(offer: dict, line: SupplierLine | None) -> dict:
    """The offer priced with the founder's connected supplier (`supplier` null with none):
    its unit cost is the offer's
    cost, in place of the catalog cost and any quote (or the founder's own cost), and every figure after the cost is
    computed again from the offer's own inputs. `supplier` carries the line's terms. A line
    priced in another currency than the offer's is not its cost (no exchange rate is
    assumed): the offer stays as it was and `supplier` says why."""
    if line is None:
        return {**offer, "supplier": None}
    terms = line.terms()
    if line.currency != offer["currency"]:
        return {**offer, "supplier": {**terms, "used_as_cost": False, "explanation": (
            f"{line.supplier} prices this offer in {line.currency} and your offer is in {offer['currency']}, so its "
            "unit cost is not counted: connect an offer priced in your product's currency.")}}
    supplier_input = {"name": SUPPLIER_INPUT, "value": float(line.unit_cost), "source": line.cite()}
    # The first cost input's place takes the supplier's unit cost; the others are dropped.
    inputs = []
    for i in offer["inputs"]:
        if i["name"] not in COST_INPUTS:
            inputs.append(i)
        elif supplier_input not in inputs:
            inputs.append(supplier_input)
    cost = Cost(line.unit_cost, f"the unit cost of your connected supplier's offer ({line.supplier}, SKU {line.sku})",
                [SUPPLIER_INPUT])
    return {**offer, **_priced(inputs, cost), "inputs": inputs,
            "supplier": {**terms, "used_as_cost": True, "explanation": None}}


def order_profit(offer: dict, *, quantity: int, amount: Decimal) -> Decimal:
    """What a paid order of `quantity` units for `amount` (major units, the offer's currency)
    leaves: the amount less the offer's cost and shipping for each unit and the payment fees
    on the amount at the offer's rates, each rounded to cents as the offer rounds them."""
    rate = {i["name"]: Decimal(str(i["value"])) for i in offer["inputs"]}
    fees = money(amount * rate["payment_fee_pct"] / HUNDRED) + money(rate["payment_fee_fixed"])
    per_unit = Decimal(str(offer["cost"])) + Decimal(str(offer["shipping"]))
    return money(amount) - quantity * per_unit - fees
