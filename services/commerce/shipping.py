"""Shipping addresses: what a checkout page accepts as one, and how one reads to people.

A customer order's checkout collects an address (the sandbox provider's hosted page with
`address_from_form`; Stripe's own page otherwise), the provider answers it with the
payment's state, and the order keeps it (services/commerce/orders.py). The same address is
written out in the receipt, the founder's notice and on the founder's Orders screen.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from integrations.payments import ShippingAddress
from services.errors import Refused

# (field, label, longest, required): the order's columns are as long as these.
FIELDS = (
    ("name", "Full name", 200, True),
    ("line1", "Address", 200, True),
    ("line2", "Apartment, suite, floor (optional)", 200, False),
    ("city", "City", 100, True),
    ("region", "State, province or region (optional)", 100, False),
    ("postal_code", "Postal code", 20, True),
)

# Names of the countries most deployments ship to; any other code reads as itself.
COUNTRY_NAMES = {
    "AE": "United Arab Emirates", "AR": "Argentina", "AT": "Austria", "AU": "Australia", "BE": "Belgium",
    "BG": "Bulgaria", "BR": "Brazil", "CA": "Canada", "CH": "Switzerland", "CL": "Chile", "CN": "China",
    "CO": "Colombia", "CY": "Cyprus", "CZ": "Czechia", "DE": "Germany", "DK": "Denmark", "EE": "Estonia",
    "ES": "Spain", "FI": "Finland", "FR": "France", "GB": "United Kingdom", "GR": "Greece", "HK": "Hong Kong",
    "HR": "Croatia", "HU": "Hungary", "ID": "Indonesia", "IE": "Ireland", "IL": "Israel", "IN": "India",
    "IS": "Iceland", "IT": "Italy", "JP": "Japan", "KR": "South Korea", "LT": "Lithuania", "LU": "Luxembourg",
    "LV": "Latvia", "MT": "Malta", "MX": "Mexico", "MY": "Malaysia", "NL": "Netherlands", "NO": "Norway",
    "NZ": "New Zealand", "PH": "Philippines", "PL": "Poland", "PT": "Portugal", "RO": "Romania", "SA": "Saudi Arabia",
    "SE": "Sweden", "SG": "Singapore", "SI": "Slovenia", "SK": "Slovakia", "TH": "Thailand", "TR": "Türkiye",
    "TW": "Taiwan", "US": "United States", "VN": "Vietnam", "ZA": "South Africa",
}

# Characters an address line never needs and a person reading it must not be fooled by:
# control characters, and the marks that reorder text (a name that shows reversed).
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def country_name(code: str | None) -> str:
    return COUNTRY_NAMES.get((code or "").upper(), (code or "").upper())


def countries(codes) -> list[dict]:
    """The countries a page offers, each as {code, name}, in the order configured."""
    return [{"code": code, "name": country_name(code)} for code in codes]


def address_from_form(form: Mapping, allowed: tuple[str, ...]) -> ShippingAddress:
    """The address a checkout page's form gave, checked: the required fields present, none
    too long or holding control characters, the country one of `allowed`. Raises
    Refused(`invalid_shipping_address`) naming every field at fault."""
    values, faults = {}, []
    for name, label, longest, required in FIELDS:
        raw = form.get(name)
        text = " ".join(raw.split()) if isinstance(raw, str) else ""
        label = label.removesuffix(" (optional)")
        if not text:
            if required:
                faults.append((name, f"{label} is missing"))
            values[name] = None
        elif len(text) > longest:
            faults.append((name, f"{label} is longer than {longest} characters"))
        elif any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text) or _BIDI_CONTROLS.search(text):
            faults.append((name, f"{label} holds characters an address cannot"))
        else:
            values[name] = text
    country = form.get("country")
    country = country.strip().upper() if isinstance(country, str) else ""
    if country not in allowed:
        faults.append(("country", "Country is missing" if not country else
                       "This shop does not ship to that country"))
    if faults:
        raise Refused("invalid_shipping_address",
                      "; ".join(why for _field, why in faults) + ". Nothing was charged: correct the address "
                      "and pay again.", fields=[field for field, _why in faults])
    return ShippingAddress(name=values["name"], line1=values["line1"], line2=values["line2"], city=values["city"],
                           region=values["region"], postal_code=values["postal_code"], country=country)


def address_lines(address: Mapping | None) -> list[str]:
    """An address as the lines of a label: name, street lines, town, country."""
    if not address or not address.get("line1"):
        return []
    town = ", ".join(part for part in (address.get("city"), address.get("region"), address.get("postal_code")) if part)
    lines = [address.get("name"), address.get("line1"), address.get("line2"), town, country_name(address.get("country"))]
    return [line for line in lines if line]


def order_address(order) -> dict | None:
    """The address a customer order ships to, or None when its checkout collected none."""
    if not order.ship_line1:
        return None
    return {"name": order.ship_name, "line1": order.ship_line1, "line2": order.ship_line2, "city": order.ship_city,
            "region": order.ship_region, "postal_code": order.ship_postal_code, "country": order.ship_country}
