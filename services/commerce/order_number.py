"""An order's number as people read it: the first 8 characters of its id.

The id is 32 hexadecimal characters, which nobody reads aloud or types into a reply. The
Orders screen, the thank-you page and the order mails all show this short number, so a
customer quoting their receipt and a founder reading Orders say the same 8 characters (GET
/api/tracking answers it as `order_number`). Links keep the whole id: the number is for
reading, never for finding an order by itself.
"""
from __future__ import annotations

NUMBER_LENGTH = 8


def order_number(order_id: str) -> str:
    """The order's short number ("3f9a0c1b")."""
    return order_id[:NUMBER_LENGTH]
