"""The store document's format, as plain data: its number, the palettes its theme may name
and the topics of the business's stated policy (business.policy).

The document's builder and schema (document.py) and the pure renderer (render.py) both read
these, and each must agree with the other: a document the builder stamps format 1 with a
palette is one the renderer accepts. They live here rather than in document.py because the
renderer imports only plain data (tests/test_store_render.py), and document.py brings the AI
seam's schemas with it.
"""
from __future__ import annotations

FORMAT = 1
PALETTES = ("ocean", "forest", "sunset", "slate", "berry")
# The founder's statements a document may carry, in the order the store shows them
# (services/founder_statements.TOPICS).
POLICY_TOPICS = ("returns", "shipping", "guarantee", "ships_to")
