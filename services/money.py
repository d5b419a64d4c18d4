"""Amounts shown to people: every price, total and receipt line the server writes goes
through here, formatted by Babel from the same currency data the amounts are charged by
(integrations/payments: `minor_digits`), so a yen or peso price is shown, as it is charged,
without decimals, and a dinar price with three."""
from __future__ import annotations

from functools import lru_cache

from babel.numbers import format_currency

from integrations.payments import major_units, minor_units

# The storefront, the hosted page and the mails are written in English (page.html: lang="en").
LOCALE = "en_US"


@lru_cache(maxsize=4096)  # a pure function of its two values; Babel takes 0.1-0.2 ms a call
def display(minor: int, currency: str) -> str:
    """An amount in minor units as people read it: 12345 USD is "$123.45", 1200 JPY "¥1,200"."""
    code = (currency or "").upper()
    return format_currency(major_units(minor, code), code, locale=LOCALE)


def display_major(amount, currency: str) -> str:
    """An amount in major units (a store's price) as people read it, rounded as it is charged."""
    return display(minor_units(amount, currency), currency)


def major_text(amount, currency: str) -> str:
    """An amount in major units as a plain number at the currency's precision ("12.00",
    "1200"): for machine-read places such as a Product's JSON-LD offer."""
    return str(major_units(minor_units(amount, currency), currency))
