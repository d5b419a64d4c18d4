"""The demo catalog's products, written by hand, one module per category, in the order
scripts/make_demo_catalog.py writes them. A product's evidence rows are (when, source, value,
note): `when` is a number of days before make_demo_catalog.ANCHOR, or a date."""
from demo_products import baby_kids, beauty, fitness, home_kitchen, office_desk, outdoor, pet_supplies, tech_accessories

PRODUCTS = [
    *home_kitchen.PRODUCTS,
    *pet_supplies.PRODUCTS,
    *fitness.PRODUCTS,
    *beauty.PRODUCTS,
    *outdoor.PRODUCTS,
    *tech_accessories.PRODUCTS,
    *baby_kids.PRODUCTS,
    *office_desk.PRODUCTS,
]
