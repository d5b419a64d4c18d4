"""A page's title within what a search result shows (services/page_titles.py), the one rule the
store's renderer writes its pages by and Fix's repairs suggest titles by: kept as written when it
fits, shortened at a separator, a phrase's end or a whole word, the business's name kept where
it fits, never a word or a number cut from what it says."""
from __future__ import annotations

import pytest

from services.page_titles import TITLE_MOST, cut_title, fitted_title

LONG = "Blue Ceramic Mug with a Hand-Painted Glaze, 350 ml, Dishwasher Safe"


@pytest.mark.parametrize(("text", "brand", "with_brand", "expected"), [
    ("Knife strip", "Acme", False, "Knife strip"),  # fits: as written
    ("Knife strip", "Acme", True, "Knife strip · Acme"),
    (LONG + " – Acme Goods", "Acme Goods", False, "Blue Ceramic Mug with a Hand-Painted Glaze – Acme Goods"),
    ("Frequently asked questions", "A Business Name Long Enough To Crowd The Title Out", True,
     "Frequently asked questions"),  # the page's own name is never cut to make room
    ("Acme", "Acme", True, "Acme"),  # the business's name is not said twice
])
def test_a_title_fits_and_keeps_the_business_name_where_it_fits(text, brand, with_brand, expected):
    assert fitted_title(text, brand, with_brand=with_brand) == expected
    assert len(expected) <= TITLE_MOST


def test_a_cut_never_leaves_a_number_without_what_it_counts_nor_a_dangling_word():
    assert cut_title("Magnetic knife strip for the kitchen wall that holds 12 knives", 53) == \
        "Magnetic knife strip for the kitchen wall that holds"
    assert cut_title("A strong magnetic knife strip made of acacia wood for", 52) == \
        "A strong magnetic knife strip made of acacia wood"
    assert cut_title(LONG, 50) == "Blue Ceramic Mug with a Hand-Painted Glaze, 350 ml"  # whole phrases
    assert cut_title(LONG, 49) == "Blue Ceramic Mug with a Hand-Painted Glaze"
