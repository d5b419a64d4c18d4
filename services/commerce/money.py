"""Amounts in minor units, shown to people."""
from integrations.payments import ZERO_DECIMAL, minor_units  # noqa: F401  (re-exported for the routes)

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$"}


def display(minor: int, currency: str) -> str:
    """12345 USD -> "$123.45"; an unknown currency is written after the number."""
    code = (currency or "").upper()
    major = f"{minor:,}" if code in ZERO_DECIMAL else f"{minor / 100:,.2f}"
    symbol = SYMBOLS.get(code)
    return f"{symbol}{major}" if symbol else f"{major} {code}"
