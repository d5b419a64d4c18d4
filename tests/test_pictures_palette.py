"""The app's drawing of a store (api/static/app/thumbnail.js) paints it in the storefront's
own colours: its palettes are the stylesheet's (api/static/storefront/store.css), name for
name and colour for colour, and every palette a store document may name has one."""
import re

from services.store.document import PALETTES
from tests.conftest import ROOT

STATIC = ROOT / "api" / "static"


def test_the_thumbnail_paints_each_palette_in_the_storefronts_colours():
    css = (STATIC / "storefront" / "store.css").read_text()
    script = (STATIC / "app" / "thumbnail.js").read_text()
    storefront = {name: (brand, tint) for name, brand, tint in
                  re.findall(r"\.palette-(\w+) \{ --brand: (#[0-9a-f]{6}); --brand-dark: #[0-9a-f]{6}; --tint: (#[0-9a-f]{6}); \}", css)}
    drawn = {name: (brand, tint) for name, brand, tint in
             re.findall(r'^  (\w+): \["(#[0-9a-f]{6})", "(#[0-9a-f]{6})"\],$', script, re.MULTILINE)}
    assert set(storefront) == set(PALETTES)
    assert drawn == storefront
