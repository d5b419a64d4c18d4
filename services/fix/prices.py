"""The price a page states (read by the product_data check and the JSON-LD Product repair):
Price, and find_price() reading it from the page's product meta tags, its microdata or the
first price written in its visible text, with the currency symbols and codes it knows and
plain_amount() turning "1,299.00" or "12,99" into a plain decimal string."""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from bs4 import BeautifulSoup

from services.fix.page_html import content_of, og_tag, visible_strings, words


@dataclass(frozen=True)
class Price:
    """A price the page states: the amount as a plain decimal string and its currency code when
    the page names one unambiguously (a bare "$" names none: several countries use it)."""

    amount: str
    currency: str | None


SYMBOLS = {"US$": "USD", "CA$": "CAD", "C$": "CAD", "AU$": "AUD", "A$": "AUD", "NZ$": "NZD", "HK$": "HKD",
           "S$": "SGD", "€": "EUR", "£": "GBP", "₹": "INR", "$": None, "¥": None}
CODES = ("USD", "EUR", "GBP", "CAD", "AUD", "NZD", "JPY", "INR", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "MXN",
         "BRL", "SGD", "HKD", "ZAR")
_AMOUNT = r"\d{1,3}(?:[,.\u00a0 ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_SYMBOL = "|".join(re.escape(s) for s in sorted(SYMBOLS, key=len, reverse=True))
_CODE = "|".join(CODES)
PRICE_PATTERNS = (
    re.compile(rf"(?<![\w$])({_SYMBOL})\s?({_AMOUNT})(?![\d])"),
    re.compile(rf"(?<![\w.,])({_AMOUNT})\s?({_SYMBOL}|{_CODE})(?![\w$])"),
    re.compile(rf"\b({_CODE})\s?({_AMOUNT})(?![\d])"),
)


def plain_amount(raw: str) -> str | None:
    """"1,299.00" -> "1299.00", "12,99" -> "12.99", "1.299" -> "1299"; None when it is no amount."""
    text = re.sub(r"[\s\u00a0]", "", str(raw))
    separators = [c for c in text if c in ",."]
    if separators:
        last = max(text.rfind(","), text.rfind("."))
        decimals = text[last + 1:]
        whole = re.sub(r"[,.]", "", text[:last])
        text = f"{whole}.{decimals}" if len(decimals) in (1, 2) else whole + decimals
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return str(value) if value.is_finite() and value > 0 else None


def _currency(text: str) -> str | None:
    text = words(text).upper()
    return text if re.fullmatch(r"[A-Z]{3}", text) else None


def find_price(soup: BeautifulSoup) -> Price | None:
    """The price the page states, from its product meta tags, its microdata, or the first price
    written in its visible text (crossed-out prices skipped); None when it shows none."""
    amount = content_of(og_tag(soup, "product:price:amount") or og_tag(soup, "og:price:amount"))
    if amount and plain_amount(amount):
        currency = content_of(og_tag(soup, "product:price:currency") or og_tag(soup, "og:price:currency"))
        return Price(plain_amount(amount), _currency(currency))
    marked = soup.find(attrs={"itemprop": "price"})
    if marked is not None:
        raw = marked.get("content") or marked.get_text(" ")
        if plain_amount(re.sub(r"[^\d.,]", "", raw) or "x"):
            code = soup.find(attrs={"itemprop": "priceCurrency"})
            currency = _currency((code.get("content") or code.get_text(" ")) if code is not None else "")
            return Price(plain_amount(re.sub(r"[^\d.,]", "", raw)), currency)
    for string in visible_strings(soup, skip_struck=True):
        for pattern in PRICE_PATTERNS:
            match = pattern.search(str(string))
            if not match:
                continue
            first, second = match.groups()
            mark, raw = (first, second) if pattern is not PRICE_PATTERNS[1] else (second, first)
            amount = plain_amount(raw)
            if amount:
                return Price(amount, SYMBOLS.get(mark) if mark in SYMBOLS else mark)
    return None
