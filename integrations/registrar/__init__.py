"""The domain registrar seam: quote one name, suggest names for a few words.

A registrar answers a `Quote` for a domain name: whether it can be registered and what a
year of it costs (in the currency's minor units). The service never registers anything
from a quote alone; a domain is connected to a store once its payment is confirmed
(services/domains.py).

One registrar sits behind this interface today:

- `sandbox` (default): deterministic and offline (sandbox.py). A name containing `taken`
  is never available; the others are priced from their length and top-level domain, and a
  top-level domain it does not sell is unpriceable (not available).

`normalize(name)` is the registrar-independent spelling check every name passes first
(IDNA 2008 and the LDH rule, lower case, punycode for Unicode labels); it raises
`InvalidDomain` with a sentence saying what is wrong.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

import idna

MAX_NAME = 253  # characters of the whole name in its ASCII form, without the root's dot
MAX_LABEL = 63
# What a name may be given as before it is checked (a long Unicode name shrinks or grows
# when encoded; anything longer than this could never fit, so it is refused unread).
MAX_INPUT = 1000
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_LDH = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")

# Why a quote is not available (Quote.unavailable).
TAKEN = "taken"                  # someone holds it
UNSUPPORTED_TLD = "unsupported"  # the registrar does not sell that top-level domain
NOT_REGISTRABLE = "subdomain"    # a name under a registrable name (shop.brand.com): its owner's to make


@dataclass(frozen=True)
class Quote:
    domain: str                     # the ASCII (punycode) spelling, lower case
    available: bool
    price_minor: int | None         # a year's registration; None when unpriceable
    currency: str | None            # ISO 4217; None when unpriceable
    unavailable: str | None = None  # TAKEN, UNSUPPORTED_TLD or NOT_REGISTRABLE when not available


class InvalidDomain(ValueError):
    """The text is not a domain name anyone could register (the message says why)."""


class Registrar(Protocol):
    name: str

    def quote(self, domain: str) -> Quote:
        """The quote for one normalized name."""

    def suggest(self, query: str, limit: int) -> list[Quote]:
        """At most `limit` quotes for names made from the query's words: deduplicated,
        available ones first, in a stable order."""


def normalize(name: str) -> str:
    """The name in lower-case ASCII (Unicode labels as punycode, no trailing dot), or
    InvalidDomain: IDNA 2008 labels of 1-63 characters of a-z, 0-9 and hyphens, none at a
    label's ends, at least two labels, a top-level domain that is not all digits, and at
    most 253 characters in all."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidDomain("Send a domain name, like yourbrand.com.")
    # The ideographic and full-width full stops separate labels too (UTS 46, as browsers read them).
    text = name.strip().translate(_DOTS)
    if len(text) > MAX_INPUT:
        raise InvalidDomain(f"A domain name has at most {MAX_NAME} characters.")
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1]  # the root's dot ("shop.com.") names the same domain
    if any(ch.isspace() for ch in text) or "/" in text or ":" in text or "@" in text:
        raise InvalidDomain("Send the domain name alone, like yourbrand.com: no spaces, scheme, path, port or "
                            "address.")
    labels = text.split(".")
    if len(labels) < 2:
        raise InvalidDomain("A domain name needs a name and a top-level domain, like yourbrand.com.")
    if any(label == "" for label in labels):
        raise InvalidDomain("A domain name has no empty labels: no leading dot and no two dots in a row.")
    ascii_labels = [_label(label) for label in labels]
    if ascii_labels[-1].isdigit():
        raise InvalidDomain("A top-level domain is never all digits.")
    joined = ".".join(ascii_labels)
    if len(joined) > MAX_NAME:
        raise InvalidDomain(f"A domain name has at most {MAX_NAME} characters (this one has {len(joined)}).")
    return joined


def _label(label: str) -> str:
    """One label in lower-case ASCII, or InvalidDomain."""
    if label.isascii():
        lower = label.lower()
        if len(lower) > MAX_LABEL:
            raise InvalidDomain(f"Each part of a domain name has at most {MAX_LABEL} characters "
                                f"({lower[:20]}... has {len(lower)}).")
        if not _LDH.match(lower):
            raise InvalidDomain(f"{lower!r} is not a valid part of a domain name: use only letters a-z, digits and "
                                "hyphens, with no hyphen at its start or end.")
        if lower[2:4] == "--":
            if not lower.startswith("xn--"):
                raise InvalidDomain(f"{lower!r} has hyphens in its third and fourth characters, which only "
                                    "punycode labels (xn--) may have.")
            try:
                idna.decode(lower)  # a punycode label must decode to a valid IDNA 2008 label
            except (idna.IDNAError, UnicodeError):
                raise InvalidDomain(f"{lower!r} is not valid punycode.") from None
        return lower
    try:
        # UTS 46 mapping first (case, width and compatibility forms), then IDNA 2008.
        encoded = idna.encode(label, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        raise InvalidDomain(f"{label!r} is not a valid internationalized domain label.") from None
    if "." in encoded or not encoded:
        raise InvalidDomain(f"{label!r} is not a valid internationalized domain label.")
    return _label(encoded)


def display(domain: str) -> str:
    """The name as people read it (punycode labels in Unicode)."""
    try:
        return idna.decode(domain)
    except (idna.IDNAError, UnicodeError):
        return domain


def registrar_for(settings) -> Registrar:
    """The configured registrar (REGISTRAR; only `sandbox` today, config.REGISTRARS)."""
    name = settings.registrar
    if name == "sandbox":
        from integrations.registrar.sandbox import SandboxRegistrar

        return SandboxRegistrar()
    raise ValueError(f"unknown registrar {name!r}")
