"""The demo catalog\'s Home & Kitchen products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, ETSY, GT, HK, RC, RD, SQ, SV, TT, P

PRODUCTS = [
    P("kitchen-magnetic-knife-strip", HK,
      "Acacia Wood Magnetic Knife Strip, 16 in",
      "A 16-inch solid acacia bar with embedded neodymium magnets that holds up "
      "to eight knives flat against the wall. Screws and wall anchors are "
      "included, so renters can free up counter space in minutes.",
      34.99, 11.20, "USD", 3, 78.4,
      [(96, GT, 41, "US interest in 'magnetic knife holder' is steady, no seasonal dip."),
       (61, AMZ, 1840, "Holding a top-2,000 spot in Kitchen Knife Storage."),
       (33, SV, 22400, "US monthly searches for 'magnetic knife strip'."),
       (12, SQ, 7.85, "FOB quote per unit at a 500-piece MOQ, logo engraving included.")]),
    P("kitchen-collapsible-silicone-colander", HK,
      "Collapsible Over-the-Sink Silicone Colander",
      "A food-grade silicone colander with extendable stainless handles that span "
      "sinks 14 to 19 inches wide and folds down to 2 inches for drawer storage. "
      "Built for small apartment kitchens and RV galleys.",
      24.99, 8.10, "USD", 2, 71.2,
      [(110, RD, 64, "Mentioned repeatedly in r/TinyHouses and r/GoRVing storage threads."),
       (74, AMZ, 3120, "Mid-pack rank in Colanders & Food Strainers."),
       (40, GT, 52, "Interest up about 15% versus the same period last year."),
       (9, RC, 2870, "Top competitor listing review count; rating 4.6.")]),
    P("kitchen-glass-meal-prep-containers", HK,
      "Borosilicate Glass Meal Prep Containers, 10-Pack",
      "Ten oven-safe borosilicate containers (two 840 ml, three 640 ml, five "
      "370 ml) with leak-proof four-clip lids. Aimed at weekly meal preppers "
      "who want to bake, store and reheat in the same dish.",
      42.00, 17.60, "USD", 2, 74.9,
      [(118, SV, 40500, "Monthly searches for 'glass meal prep containers'."),
       (85, GT, 63, "January-style spike repeating in early autumn."),
       (52, AMZ, 940, "Top-1,000 in Food Storage Containers."),
       (27, SQ, 12.40, "Quote for the 10-pack with printed gift box."),
       (6, RC, 15400, "Market leader has over fifteen thousand reviews.")],
      weight_grams=3200),
    P("kitchen-cast-iron-dutch-oven", HK,
      "Enamelled Cast Iron Dutch Oven, 5.5 qt",
      "A 5.5-quart enamelled cast iron pot with a self-basting lid, oven-safe "
      "to 260 °C. For home cooks who braise, slow-cook stews and bake sourdough "
      "loaves.",
      89.00, 74.50, "USD", 3, 63.0,
      [(105, GT, 58, "Seasonal lift heading into the holiday cooking months."),
       (66, AMZ, 2210, "Competes with heavily branded listings in Dutch Ovens."),
       (38, SQ, 41.00, "Factory price before sea freight on a 5.6 kg item."),
       (14, RD, 112, "Frequent budget-alternative threads in r/castiron.")]),
    P("kitchen-avocado-slicer-3in1", HK,
      "3-in-1 Avocado Slicer Tool",
      "One tool that splits, pits and slices avocados, with a BPA-free nylon "
      "body and a stainless steel blade. A low-cost impulse add-on for kitchen "
      "gadget shops.",
      9.99, 2.40, "USD", 1, 22.5,
      [("2024-03-14", TT, 1250000, "Viral recipe clips caused a short spike."),
       ("2024-05-02", GT, 38, "Interest fading after the spring peak."),
       ("2024-09-18", AMZ, 5400, "Slipped out of the top 5,000 in Kitchen Gadgets."),
       ("2025-01-22", SQ, 0.95, "Older quote; supplier has not replied since.")]),
    P("kitchen-under-cabinet-stemware-rack", HK,
      "Under-Cabinet Stemware Rack, Set of 2",
      "Two powder-coated steel rails that slide onto 18 mm cabinet shelves and "
      "hang up to twelve wine glasses without drilling. Suits small kitchens "
      "and home bars.",
      27.90, 9.80, "EUR", 1, 55.3,
      [(99, SV, 6600, "Monthly searches across DE, FR and NL marketplaces."),
       (58, ETSY, 430, "Few handmade listings; mostly wooden versions."),
       (21, AMZ, 4870, "Rank on Amazon.de in Wine Racks.")]),
    P("kitchen-bamboo-drawer-dividers", HK,
      "Expandable Bamboo Drawer Dividers, 4-Pack",
      "Spring-loaded bamboo dividers that extend from 43 to 56 cm and grip with "
      "non-slip foam ends. Work in utensil drawers, dressers and junk drawers "
      "alike.",
      29.99, 10.90, "USD", 2, 69.8,
      [(115, TT, 410000, "Drawer-organisation 'restock' videos keep featuring them."),
       (80, GT, 47, "Stable interest with a small bump in spring cleaning season."),
       (44, AMZ, 1560, "Top-2,000 in Kitchen Drawer Organizers."),
       (17, SQ, 6.70, "Quote for carbonised bamboo, four-pack with kraft sleeve.")]),
    P("kitchen-rechargeable-milk-frother", HK,
      "Rechargeable Handheld Milk Frother",
      "A USB-C rechargeable whisk with three speeds and a 304 stainless "
      "double-coil head that froths dairy or oat milk in about 15 seconds. "
      "Ships with a countertop stand for home latte makers.",
      19.99, 5.70, "USD", 2, 82.6,
      [(117, GT, 55, "Interest rising steadily since the summer."),
       (95, TT, 2300000, "Iced-latte routine videos with the frother in frame."),
       (70, RD, 140, "Recommended often in r/Coffee budget gear threads."),
       (45, AMZ, 610, "Top-1,000 in Milk Frothers."),
       (22, SV, 74000, "US monthly searches for 'milk frother'."),
       (5, SQ, 3.10, "Quote with USB-C upgrade and retail box.")]),
    P("kitchen-sourdough-starter-kit", HK,
      "Sourdough Starter Jar Kit with Band and Thermometer",
      "A 1-litre wide-mouth glass jar with a feeding-line band, stick-on "
      "thermometer, silicone spatula and cloth cover. Made for beginners "
      "keeping their first starter alive.",
      24.00, 8.30, "GBP", 2, 66.1,
      [(112, SV, 9900, "UK monthly searches for 'sourdough starter jar'."),
       (77, ETSY, 1280, "Healthy Etsy demand, mostly for bundled kits."),
       (35, GT, 61, "Autumn baking season lifting UK interest."),
       (8, SQ, 4.90, "Quote for the kit without gift packaging.")]),

]
