"""The sandbox registrar: deterministic and offline (REGISTRAR=sandbox, the default).

Rules, so that tests and demos can count on them:

- A name containing `taken` anywhere (taken.com, mistaken.shop) is never available.
- Only names of exactly two labels (name.tld) are sold, under the top-level domains of
  `BASE_PRICES`; any other top-level domain is unpriceable, so not available.
- A year costs the top-level domain's base price, times a premium for short names (the
  registrable label's length: 1-3 characters x8, 4 x4, 5 x2, 6 or more x1). US dollars.

Suggestions are made from the query's words only (no network, no randomness): the words
joined, the first two, the last two, and the last two with a prefix or suffix, under
each top-level domain in the order of `BASE_PRICES`.
"""
from __future__ import annotations

import re
import unicodedata

from integrations.registrar import NOT_REGISTRABLE, TAKEN, UNSUPPORTED_TLD, InvalidDomain, Quote, normalize

CURRENCY = "USD"
# A year's registration by top-level domain, in cents; also the suggestions' order of TLDs.
BASE_PRICES = {"com": 1299, "shop": 2999, "store": 3999, "co": 2599, "net": 1499, "io": 3999, "org": 1399}
# The registrable label's length -> the premium it costs (the last entry covers longer names).
SHORT_NAME_PREMIUM = ((3, 8), (4, 4), (5, 2))
# Words that make poor names.
STOPWORDS = frozenset({"a", "an", "and", "the", "for", "of", "with", "to", "in", "on", "by", "at", "or", "your",
                       "my", "our", "from", "set", "pack", "new"})
MAX_WORDS = 4
PREFIXES = ("get", "the")
SUFFIXES = ("shop", "hq")


def price_minor(label: str, tld: str) -> int | None:
    """A year of `label.tld` in cents; None when the top-level domain is not sold here."""
    base = BASE_PRICES.get(tld)
    if base is None:
        return None
    premium = next((factor for longest, factor in SHORT_NAME_PREMIUM if len(label) <= longest), 1)
    return base * premium


class SandboxRegistrar:
    name = "sandbox"

    def quote(self, domain: str) -> Quote:
        """The quote for one normalized name."""
        labels = domain.split(".")
        if len(labels) != 2:
            price = None
            why = NOT_REGISTRABLE if labels[-1] in BASE_PRICES else UNSUPPORTED_TLD
        else:
            price = price_minor(labels[0], labels[1])
            why = None if price is not None else UNSUPPORTED_TLD
        if why is None and "taken" in domain:
            why = TAKEN
        if why is not None:
            return Quote(domain=domain, available=False, price_minor=None, currency=None, unavailable=why)
        return Quote(domain=domain, available=True, price_minor=price, currency=CURRENCY)

    def suggest(self, query: str, limit: int) -> list[Quote]:
        """At most `limit` quotes for names made from the query's words, available ones first."""
        names = []
        for domain in candidates(query):
            if domain not in names:
                names.append(domain)
        quotes = [self.quote(domain) for domain in names]
        quotes.sort(key=lambda quote: not quote.available)  # stable: the candidates' order within each group
        return quotes[:max(limit, 0)]


def words(query: str) -> list[str]:
    """The query's words as ASCII letters and digits (accents dropped), stopwords left out,
    at most MAX_WORDS of them."""
    folded = unicodedata.normalize("NFKD", query or "").encode("ascii", "ignore").decode("ascii").lower()
    found = [word for word in re.findall(r"[a-z0-9]+", folded) if word not in STOPWORDS]
    return found[:MAX_WORDS]


def stems(query: str) -> list[str]:
    """The labels a query's words make, best first."""
    found = words(query)
    if not found:
        return []
    tail = found[-2:]
    made = ["".join(found), "".join(found[:2]), "".join(tail)]
    made += [prefix + "".join(tail) for prefix in PREFIXES] + ["".join(tail) + suffix for suffix in SUFFIXES]
    if len(tail) == 2:
        made.append("-".join(tail))
    unique = []
    for stem in made:
        if stem not in unique and 1 <= len(stem) <= 63:
            unique.append(stem)
    return unique


def candidates(query: str) -> list[str]:
    """Every name suggested for a query, in order, each a valid name."""
    names = []
    for tld in BASE_PRICES:
        for stem in stems(query):
            try:
                names.append(normalize(f"{stem}.{tld}"))
            except InvalidDomain:
                continue
    return names
