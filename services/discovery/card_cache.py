"""The cards' trends, and the candidates' cards, kept between requests in each web process.

A card's trends are its product's dated evidence drawn as series (services/evidence_kinds.trends):
reading and grouping them was a statement and about a third of a feed's own time, for values
that change only when the catalog is loaded again. The loader rewrites a product's evidence and
then calls services/evidence_gate.refresh, which writes a new `evidence_version` token (uuid4)
into its gate row; find and feed read that token with the card's other fields (they read the
gate row anyway) and keep the trends under (product, token). A reload gives a new token, so
trends read under the old one are never served again, and nothing has to be told to forget:
a token is never reused, whatever order the requests and the reload run in (a request that
read the old token may keep the newer evidence under it, which no one asks for again).

A product without a token (no gate row: a claimed product the gate dropped) is read afresh
each time. Bounded: at most MAX_PRODUCTS products per process, the least recently served
dropped first (a feed serves the best-ranked products, so the working set is small).
The kept lists are shared by the requests that serve them and are never changed in place.

A candidate's card (everything but who it is for: `yours`, `held_until`) is kept too, under
the candidate's row as the driver returned it (cards.candidate_card): every value the card
shows is in that key, with the evidence version, so a product changed in any way is a new
key; a feed builds no card and decodes no row for a product it served before. The answer itself
is written by the app's one JSON writer (api/json_out.py), as every answer is.
"""
from __future__ import annotations

from services.kept import Kept

MAX_PRODUCTS = 4096

TRENDS = Kept(MAX_PRODUCTS)  # (product_id, evidence_version) -> trends (cards.with_trends)
CARDS = Kept(MAX_PRODUCTS)  # a candidate's card columns as read -> its card for nobody in particular (cards.candidate_card)
