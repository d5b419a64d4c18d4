#!/usr/bin/env python3
"""Generate the demo product catalog and its placeholder images.

Outputs (paths relative to the repository root):

* ``scripts/data/demo_catalog.jsonl`` - one product per line (72 products,
  8 categories x 9 products).
* ``api/static/demo/<product_id>-<n>.svg`` - one small SVG card per image
  path listed in the catalog.

The script is deterministic and uses only the standard library: all product
data below is hand-written, and evidence dates are either fixed literals or
computed as "N days before" the fixed anchor date ``ANCHOR`` (2026-11-20),
never from today's date. Re-running it rewrites byte-identical files.

The data deliberately contains products that a quality gate should reject:
a handful with thin (< 20 %) or zero/negative gross margins, some whose
evidence is all old (before 2025-06-01), and some with a single evidence row.

Usage::

    python3 scripts/make_demo_catalog.py
"""

from __future__ import annotations

import json
import textwrap
from datetime import date, timedelta
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
CATALOG_PATH = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
IMAGE_DIR = ROOT / "api" / "static" / "demo"
IMAGE_URL_PREFIX = "/static/demo/"

# Fixed anchor: integer evidence offsets mean "this many days before ANCHOR".
ANCHOR = date(2026, 11, 20)
OLD_CUTOFF = date(2025, 6, 1)
RECENT_WINDOW_DAYS = 120

HK = "Home & Kitchen"
PET = "Pet Supplies"
FIT = "Fitness"
BEA = "Beauty & Personal Care"
OUT = "Outdoor & Camping"
TEC = "Tech Accessories"
BAB = "Baby & Kids"
OFF = "Office & Desk"
CATEGORIES = [HK, PET, FIT, BEA, OUT, TEC, BAB, OFF]

# Evidence source -> metric name reported by that source.
SOURCE_METRIC = {
    "google_trends": "interest_index",
    "amazon_bestsellers": "bsr_rank",
    "tiktok_views": "weekly_views",
    "reddit_mentions": "monthly_mentions",
    "supplier_quote": "unit_price_quote",
    "etsy_listings": "listings_count",
    "search_volume": "monthly_searches",
    "review_count": "reviews",
}

GT = "google_trends"
AMZ = "amazon_bestsellers"
TT = "tiktok_views"
RD = "reddit_mentions"
SQ = "supplier_quote"
ETSY = "etsy_listings"
SV = "search_volume"
RC = "review_count"


def P(product_id, category, name, description, price, cost, currency, images,
      rank, evidence, **extra):
    """Bundle one hand-written product record.

    ``evidence`` rows are ``(when, source, value, note)`` where ``when`` is an
    int (days before ANCHOR) or a literal ``"YYYY-MM-DD"`` string.
    ``extra`` keyword fields are appended after the standard keys.
    """
    return {
        "product_id": product_id,
        "category": category,
        "name": name,
        "description": description,
        "price": price,
        "cost": cost,
        "currency": currency,
        "images": images,
        "rank": rank,
        "evidence": evidence,
        "extra": extra,
    }


PRODUCTS = [
    # ------------------------------------------------------------------ Home & Kitchen
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

    # ------------------------------------------------------------------ Pet Supplies
    P("pet-collapsible-silicone-dog-bowl-set", PET,
      "Collapsible Silicone Dog Bowl Set",
      "Two 650 ml collapsible silicone bowls with carabiner clips that fold flat "
      "to 1.5 cm. For hikers and road-trippers travelling with medium-sized "
      "dogs.",
      14.99, 3.90, "USD", 3, 73.5,
      [(108, GT, 44, "Summer peak has passed but baseline is higher than last year."),
       (63, AMZ, 1320, "Top-1,500 in Dog Travel Bowls."),
       (30, RD, 58, "Common pick in r/dogs hiking gear threads."),
       (4, SQ, 1.35, "Quote for two bowls plus two carabiners, poly bag.")]),
    P("pet-suction-lick-mat", PET,
      "Suction-Cup Lick Mat for Dogs and Cats",
      "A 20 cm textured TPR lick mat that sticks to tiles or tubs to keep pets "
      "calm during baths, nail trims and grooming. Dishwasher safe and sold in "
      "three colours.",
      12.99, 3.40, "USD", 2, 80.2,
      [(101, TT, 1800000, "Bath-time hack clips with high share counts."),
       (72, SV, 33100, "US monthly searches for 'lick mat for dogs'."),
       (41, AMZ, 890, "Top-1,000 in Dog Treat Dispensing Toys."),
       (19, RC, 21300, "Category leader review count, rating 4.5."),
       (3, GT, 66, "Interest near its two-year high.")]),
    P("pet-reusable-hair-remover-roller", PET,
      "Reusable Pet Hair Remover Roller",
      "A self-cleaning roller with a ratcheting chamber that lifts dog and cat "
      "hair from sofas and car seats without sticky sheets. Needs no refills "
      "or batteries.",
      24.99, 6.90, "USD", 2, 31.7,
      [("2024-02-08", TT, 3400000, "Peak of the original viral wave."),
       ("2024-06-19", AMZ, 120, "Was top-200 in Lint Rollers at the time."),
       ("2024-12-03", RC, 98000, "Incumbent brand already dominates reviews."),
       ("2025-04-11", GT, 29, "Interest down sharply from the 2024 peak.")]),
    P("pet-orthopedic-dog-bed-xl", PET,
      "Orthopedic Memory Foam Dog Bed, XL",
      "A 112 x 81 cm bed with 10 cm of egg-crate memory foam, a bolstered edge "
      "and a removable, machine-washable microsuede cover. Designed for large "
      "and senior dogs with stiff joints.",
      79.00, 86.40, "USD", 3, 44.0,
      [(93, SV, 49500, "US monthly searches for 'orthopedic dog bed'."),
       (57, SQ, 31.50, "Ex-works price; oversize freight roughly doubles it."),
       (26, AMZ, 2650, "Crowded XL segment, many established brands.")],
      weight_grams=7800),
    P("pet-cordless-cat-window-perch", PET,
      "Cordless Cat Window Perch",
      "A suction-mounted window hammock with a steel-reinforced base that holds "
      "cats up to 18 kg. Installs in seconds without drilling, ideal for indoor "
      "cats in flats.",
      27.50, 9.10, "EUR", 2, 76.4,
      [(113, GT, 49, "Steady interest in DE and FR for 'Katzen Fensterliege'."),
       (79, TT, 620000, "Cat-content accounts posting window-perch reveals."),
       (46, AMZ, 1130, "Rank on Amazon.de in Cat Beds & Perches."),
       (13, SQ, 5.60, "Quote with reinforced suction cups and EU plug-free packaging.")]),
    P("pet-maze-slow-feeder-bowl", PET,
      "Maze Slow Feeder Dog Bowl",
      "A non-slip maze bowl that stretches mealtime five to ten times longer "
      "for dogs that gulp their food. Holds two cups of kibble and is made of "
      "BPA-free polypropylene.",
      13.99, 3.80, "USD", 1, 70.0,
      [(97, SV, 27100, "US monthly searches for 'slow feeder dog bowl'."),
       (55, AMZ, 760, "Top-1,000 in Dog Bowls."),
       (18, RD, 37, "Vets in r/AskVet suggest slow feeders for bloat-prone breeds.")]),
    P("pet-silicone-airtag-collar-holder", PET,
      "Silicone AirTag Holder for Dog Collars, 2-Pack",
      "A tear-resistant silicone sleeve that threads onto collars up to 25 mm "
      "wide and protects an Apple AirTag from chewing. Sold as a two-pack in "
      "black and olive.",
      11.99, 3.20, "USD", 2, 84.1,
      [(103, GT, 71, "Interest keeps climbing as tracker adoption grows."),
       (76, RD, 210, "Lost-dog stories in r/dogs often mention AirTag holders."),
       (48, AMZ, 450, "Top-500 in Dog Collar Accessories."),
       (24, TT, 950000, "Dog-walk vlogs linking the holder."),
       (2, SQ, 0.85, "Quote for silicone sleeve, two per card.")]),
    P("pet-deshedding-grooming-gloves", PET,
      "Deshedding Grooming Gloves, Pair",
      "A pair of five-finger grooming gloves with 255 soft silicone tips that "
      "remove loose undercoat while massaging. Good for nervous cats and "
      "short-haired dogs that hate brushes.",
      15.99, 4.20, "USD", 1, 58.8,
      [(37, AMZ, 1980, "Only one data point so far: top-2,000 in Pet Grooming Gloves.")]),
    P("pet-waterproof-back-seat-hammock", PET,
      "Waterproof Back-Seat Dog Hammock",
      "A quilted 600D oxford hammock with a mesh viewing window, seat-belt slits "
      "and seat anchors. Fits most saloons and SUVs and wipes clean after muddy "
      "walks.",
      39.00, 14.50, "GBP", 3, 72.3,
      [(116, SV, 12100, "UK monthly searches for 'dog car seat cover'."),
       (68, AMZ, 1410, "Rank on Amazon.co.uk in Dog Car Seat Covers."),
       (31, GT, 54, "Autumn lift as muddy-walk season starts."),
       (10, SQ, 9.20, "Quote for 600D fabric with mesh window.")]),

    # ------------------------------------------------------------------ Fitness
    P("fitness-fabric-resistance-bands", FIT,
      "Fabric Resistance Booty Bands, Set of 3",
      "Three non-roll woven bands in light, medium and heavy tension with latex "
      "grip strips inside. Made for glute and hip work at home or in the gym, "
      "with a mesh carry bag.",
      19.99, 5.40, "USD", 2, 77.7,
      [(111, TT, 1500000, "Glute workout creators tagging fabric bands."),
       (73, AMZ, 980, "Top-1,000 in Resistance Bands."),
       (39, SV, 40500, "US monthly searches for 'booty bands'."),
       (7, SQ, 2.60, "Quote for three bands with printed mesh bag.")]),
    P("fitness-adjustable-dumbbell-25lb", FIT,
      "Adjustable Dumbbell, 5-25 lb",
      "A single dial-select dumbbell that changes from 5 to 25 lb in 2.5 lb "
      "steps, replacing nine pairs of weights. For home gyms where floor space "
      "is tight.",
      129.00, 109.70, "USD", 3, 61.4,
      [(119, GT, 57, "Interest stable; New Year spike expected."),
       (82, SQ, 64.00, "Factory price; steel plates make freight expensive."),
       (47, AMZ, 1720, "Competing against two dominant brands."),
       (15, RD, 96, "Durability debates in r/homegym around budget models.")],
      weight_grams=11800),
    P("fitness-cast-iron-kettlebell-16kg", FIT,
      "Cast Iron Kettlebell, 16 kg",
      "A single-cast 16 kg kettlebell with a wide flat base and a powder-coat "
      "finish that holds chalk well. For swings, goblet squats and Turkish "
      "get-ups.",
      59.00, 59.00, "EUR", 1, 38.2,
      [(88, SV, 18100, "Monthly searches for 'Kettlebell 16 kg' in DE."),
       (50, SQ, 22.00, "Ex-works price; 16 kg parcels carry heavy surcharges."),
       (20, AMZ, 3900, "Rank on Amazon.de in Kettlebells.")]),
    P("fitness-posture-corrector-brace", FIT,
      "Adjustable Posture Corrector Brace",
      "A figure-eight back brace with breathable neoprene padding that gently "
      "pulls the shoulders back. Fits chest sizes 71 to 122 cm and can be worn "
      "under a shirt.",
      21.99, 5.90, "USD", 2, 27.9,
      [("2023-11-27", TT, 2100000, "Heavy paid-ad saturation during the 2023 wave."),
       ("2024-04-15", AMZ, 340, "Was top-500 in Back Braces."),
       ("2024-10-09", GT, 33, "Interest roughly halved year on year."),
       ("2025-02-20", RD, 19, "Threads mostly skeptical about results.")]),
    P("fitness-weighted-jump-rope", FIT,
      "Weighted Jump Rope with Ball Bearings",
      "A 3 m PVC-coated steel cable with removable 225 g handle weights and "
      "sealed ball bearings. For boxing-style conditioning and HIIT circuits.",
      24.99, 7.40, "USD", 2, 68.5,
      [(104, GT, 46, "Interest steady with a small autumn rise."),
       (67, TT, 540000, "Jump-rope skill videos gaining traction."),
       (29, AMZ, 2040, "Top-2,500 in Jump Ropes."),
       (11, SQ, 3.90, "Quote including removable weights and drawstring bag.")]),
    P("fitness-cork-yoga-wheel", FIT,
      "Cork Yoga Wheel, 32 cm",
      "A 32 cm wheel with a natural cork shell over an ABS core, rated to "
      "250 kg. Helps yogis open the chest and deepen backbends.",
      39.90, 15.70, "EUR", 2, 57.0,
      [(100, SV, 5400, "Monthly searches for 'Yoga Rad' and 'roue de yoga'."),
       (62, ETSY, 310, "Small Etsy niche for sustainable yoga props."),
       (25, SQ, 9.40, "Quote for natural cork shell, shrink-wrapped.")]),
    P("fitness-mini-percussion-massage-gun", FIT,
      "Mini Percussion Massage Gun",
      "A palm-sized 450 g massage gun with four heads, five speeds and about six "
      "hours of use per USB-C charge. Fits in a gym bag for post-workout "
      "recovery.",
      49.99, 17.90, "USD", 3, 66.8,
      [(114, AMZ, 1090, "Top-1,500 in Electric Massagers."),
       (86, RC, 8700, "Leading mini model review count."),
       (53, TT, 780000, "Recovery-routine clips from gym creators."),
       (28, GT, 60, "Gift-season interest beginning to build."),
       (6, SQ, 11.80, "Quote with carry case and four heads.")]),
    P("fitness-ab-roller-knee-pad", FIT,
      "Ab Roller Wheel with Knee Pad",
      "A dual-wheel ab roller with a steel axle, foam handles and a thick 15 mm "
      "knee mat. Made for core training on hard floors.",
      18.99, 6.10, "USD", 1, 49.6,
      [(42, SV, 22200, "Single snapshot of US monthly searches for 'ab roller'.")]),
    P("fitness-doorway-pull-up-bar", FIT,
      "Doorway Pull-Up Bar, No Screws",
      "A leverage-mounted pull-up bar that fits door frames 61 to 81 cm wide "
      "without screws and supports up to 136 kg. Offers wide, neutral and "
      "narrow grips.",
      29.99, 17.20, "GBP", 2, 64.3,
      [(109, GT, 50, "UK interest steady, New Year spike every January."),
       (71, AMZ, 830, "Rank on Amazon.co.uk in Pull-Up Bars."),
       (34, RD, 74, "Frequent recommendation in r/bodyweightfitness FAQs."),
       (16, SQ, 8.60, "Quote; steel tube weight pushes up shipping costs.")]),

    # ------------------------------------------------------------------ Beauty & Personal Care
    P("beauty-heatless-satin-curling-rod", BEA,
      "Heatless Satin Curling Rod Kit",
      "A 90 cm memory-foam rod wrapped in satin, with two scrunchies and two "
      "claw clips for overnight curls without heat. Works on shoulder-length to "
      "waist-length hair.",
      16.99, 4.60, "USD", 3, 88.3,
      [(120, GT, 62, "Interest rising for 'heatless curls' for two years straight."),
       (98, TT, 4100000, "Overnight-curl tutorials still going viral weekly."),
       (76, RD, 180, "Popular in r/curlyhair and r/HaircareScience."),
       (54, SV, 90500, "US monthly searches for 'heatless curls'."),
       (32, AMZ, 420, "Top-500 in Hair Rollers."),
       (18, ETSY, 2300, "Many handmade satin versions; demand is clear."),
       (1, SQ, 1.70, "Quote for satin rod kit with four accessories.")]),
    P("beauty-rose-quartz-gua-sha-set", BEA,
      "Rose Quartz Gua Sha and Face Roller Set",
      "A hand-polished rose quartz gua sha stone and a dual-ended roller in a "
      "velvet-lined gift box. Popular for facial massage routines and "
      "gifting.",
      21.90, 6.10, "EUR", 2, 62.4,
      [(107, ETSY, 5200, "Crowded Etsy category; gift-box listings do best."),
       (69, GT, 43, "Interest plateaued but steady in FR and DE."),
       (36, TT, 690000, "Skincare creators still posting gua sha routines."),
       (12, SQ, 3.30, "Quote for grade-A rose quartz with velvet box.")]),
    P("beauty-led-teeth-whitening-kit", BEA,
      "LED Teeth Whitening Kit",
      "A 16-bulb blue LED mouthpiece that plugs into a phone or USB port, sold "
      "with three peroxide-free whitening gel pens. For at-home cosmetic "
      "whitening between dental visits.",
      29.99, 8.20, "USD", 2, 24.1,
      [("2023-09-05", TT, 5600000, "Saturated by dropshipping ads in 2023."),
       ("2024-01-30", AMZ, 260, "Was top-300 in Teeth Whitening Products."),
       ("2024-08-12", RD, 14, "Mostly complaints about gel quality."),
       ("2025-03-28", GT, 27, "Interest well below the 2023 peak.")]),
    P("beauty-mulberry-silk-pillowcase", BEA,
      "Mulberry Silk Pillowcase, 22 Momme",
      "A 22-momme grade-6A mulberry silk pillowcase with a hidden zip, sized "
      "51 x 76 cm. Reduces friction for curly hair and sensitive skin.",
      39.00, 18.90, "USD", 2, 71.9,
      [(102, SV, 49500, "US monthly searches for 'silk pillowcase'."),
       (65, AMZ, 1250, "Top-1,500 in Pillowcases."),
       (40, RD, 88, "Praised in r/curlyhair, but 22 momme expected."),
       (9, SQ, 8.90, "Quote for 22 momme 6A silk with gift envelope.")]),
    P("beauty-stainless-facial-ice-roller", BEA,
      "Stainless Steel Facial Ice Roller",
      "A fridge-chilled stainless steel roller head on an ergonomic handle that "
      "stays cold for about 20 minutes without dripping. Used to calm morning "
      "puffiness.",
      14.99, 3.95, "USD", 1, 52.7,
      [(23, TT, 870000, "One week of views for the 'ice roller' hashtag; no other data yet.")]),
    P("beauty-silicone-scalp-massager", BEA,
      "Silicone Scalp Massager Shampoo Brush",
      "A palm-held brush with 120 soft silicone bristles that lifts buildup and "
      "spreads shampoo evenly. Suits all hair types, including braids and "
      "locs.",
      9.99, 2.70, "USD", 1, 75.6,
      [(94, AMZ, 310, "Top-500 in Hair Brushes."),
       (59, RC, 64000, "Leader listing has tens of thousands of reviews."),
       (28, GT, 48, "Interest holding steady."),
       (3, SQ, 0.72, "Quote for a two-tone brush in a blister pack.")]),
    P("beauty-electric-brush-cleaner", BEA,
      "Electric Makeup Brush Cleaner and Dryer",
      "A USB-powered spinner with eight rubber collars that washes and "
      "spin-dries most brush sizes in under a minute. Saves makeup artists and "
      "enthusiasts from washing brushes by hand.",
      24.99, 9.20, "USD", 2, 46.3,
      [(90, TT, 330000, "Satisfying-cleaning clips, modest reach."),
       (49, AMZ, 3600, "Top-4,000 in Makeup Brush Cleaners."),
       (13, RC, 1900, "Reviews flag motor noise on cheaper models.")],
      hs_code="8509.80"),
    P("beauty-cordless-nail-drill-kit", BEA,
      "Cordless Electric Nail Drill Kit",
      "A rechargeable 30,000 rpm e-file with eleven bits and sanding bands for "
      "gel removal, shaping and cuticle work. For at-home manicurists moving "
      "beyond hand files.",
      34.99, 12.90, "GBP", 2, 59.4,
      [(106, SV, 14800, "UK monthly searches for 'nail drill'."),
       (64, TT, 1100000, "At-home gel removal tutorials in the UK."),
       (30, AMZ, 1700, "Rank on Amazon.co.uk in Electric Nail Files."),
       (8, SQ, 7.40, "Quote for cordless unit with eleven bits.")]),
    P("beauty-silicone-travel-bottles", BEA,
      "Leak-Proof Silicone Travel Bottles, 4-Pack",
      "Four 89 ml squeezable silicone bottles with valve caps, labelling rings "
      "and a clear TSA-compliant pouch. Made for carry-on-only travellers.",
      15.99, 4.40, "USD", 2, 67.0,
      [(115, GT, 57, "Travel-season interest higher than last year."),
       (84, RD, 102, "r/onebag users debate which bottles truly don't leak."),
       (43, AMZ, 870, "Top-1,000 in Travel Bottles."),
       (20, SQ, 2.05, "Quote including clear zip pouch.")]),

    # ------------------------------------------------------------------ Outdoor & Camping
    P("outdoor-ultralight-parachute-hammock", OUT,
      "Ultralight Parachute Nylon Hammock",
      "A 210T parachute nylon hammock that packs to the size of a grapefruit, "
      "holds 200 kg and comes with tree straps and aluminium carabiners. For "
      "backpackers and festival campers.",
      32.99, 10.80, "USD", 3, 70.7,
      [(119, GT, 45, "Past the summer peak but above last year's level."),
       (87, RD, 130, "Regular mentions in r/hammockcamping beginner threads."),
       (51, AMZ, 1480, "Top-1,500 in Camping Hammocks."),
       (22, SQ, 6.20, "Quote with straps and two carabiners.")]),
    P("outdoor-collapsible-water-carrier", OUT,
      "Collapsible Water Carrier, 10 L",
      "A BPA-free 10-litre water jug with a spigot that folds flat when empty. "
      "For campsites, van life and emergency kits.",
      17.99, 5.10, "USD", 1, 54.0,
      [(92, SV, 8100, "US monthly searches for 'collapsible water container'."),
       (47, AMZ, 2900, "Top-3,000 in Camping Water Storage.")]),
    P("outdoor-rechargeable-headlamp", OUT,
      "Rechargeable LED Headlamp, 1200 Lumen",
      "A 1200-lumen headlamp with a motion-sensor mode, red night light and "
      "IPX6 weather sealing, charged over USB-C. For trail runners, campers and "
      "DIYers.",
      26.99, 11.90, "USD", 2, 79.3,
      [(110, AMZ, 690, "Top-1,000 in Headlamps."),
       (78, GT, 53, "Interest rises as days get shorter."),
       (45, RC, 12600, "Category leader review count, rating 4.4."),
       (21, TT, 450000, "Night-hike gear videos featuring the sensor mode."),
       (4, SQ, 4.95, "Quote with 18650 cell and USB-C cable.")]),
    P("outdoor-lightweight-backpacking-chair", OUT,
      "Lightweight Backpacking Chair",
      "A 1 kg aluminium-frame chair that packs into a 35 cm stuff sack and "
      "seats up to 120 kg. For hikers and beach-goers who want back support "
      "without the bulk.",
      49.99, 42.10, "USD", 2, 58.0,
      [(104, SV, 33100, "US monthly searches for 'backpacking chair'."),
       (60, SQ, 23.50, "Quote before freight; 7075 aluminium frame."),
       (27, AMZ, 2480, "Competing with heavily discounted brands.")]),
    P("outdoor-inflatable-solar-lantern", OUT,
      "Inflatable Solar Camping Lantern",
      "A collapsible, waterproof solar lantern that inflates to 11 cm and gives "
      "up to 12 hours of light per charge. Packs flat for tents, balconies and "
      "power cuts.",
      19.99, 6.30, "USD", 1, 50.9,
      [(56, SQ, 3.80, "Only evidence is one supplier quote; no demand data yet.")]),
    P("outdoor-ferro-rod-fire-starter", OUT,
      "Ferro Rod Fire Starter with Paracord Lanyard",
      "A 12.7 x 127 mm ferrocerium rod with a wooden handle, multi-tool striker "
      "and seven-strand paracord lanyard. Throws 3,000 °C sparks in wet or "
      "windy conditions.",
      14.99, 4.10, "USD", 2, 60.5,
      [(98, ETSY, 870, "Handmade bushcraft versions sell well on Etsy."),
       (61, RD, 66, "Recommended in r/bushcraft starter kit lists."),
       (24, AMZ, 1650, "Top-2,000 in Camping Fire Starters.")]),
    P("outdoor-roll-top-dry-bag-20l", OUT,
      "Roll-Top Waterproof Dry Bag, 20 L",
      "A 500D PVC tarpaulin dry bag with welded seams, a roll-top closure and "
      "an adjustable shoulder strap. Keeps gear dry for kayaking, "
      "paddleboarding and boat days.",
      21.99, 6.90, "USD", 3, 65.2,
      [("2026-03-02", GT, 71, "Last spring's peak, before paddling season."),
       (89, GT, 39, "Off-season dip, as expected."),
       (52, AMZ, 1190, "Top-1,500 in Dry Bags."),
       (19, SQ, 3.70, "Quote for 20 L with printed logo.")]),
    P("outdoor-nesting-cook-set-for-two", OUT,
      "Nesting Camping Cook Set for Two",
      "A hard-anodised aluminium pot and pan set with two cups, folding sporks "
      "and a mesh bag, all nesting inside a 1.2 L pot. Sized for two-person "
      "trips.",
      34.90, 17.20, "EUR", 2, 56.8,
      [(117, SV, 4400, "Monthly searches for 'Campinggeschirr Set' in DE."),
       (75, AMZ, 2250, "Rank on Amazon.de in Camping Cookware."),
       (33, SQ, 8.30, "Quote with mesh bag, excluding stove.")]),
    P("outdoor-microfibre-camping-towel", OUT,
      "Microfibre Quick-Dry Camping Towel",
      "A suede-finish microfibre towel that absorbs four times its weight and "
      "dries three times faster than cotton, with a hanging loop and mesh "
      "pouch. Sized 150 x 80 cm for campers and swimmers.",
      19.99, 5.20, "USD", 2, 62.9,
      [(106, AMZ, 1370, "Top-1,500 in Camping Towels."),
       (70, GT, 42, "Stable interest, mild summer seasonality."),
       (38, RD, 45, "r/onebag members compare quick-dry towels."),
       (10, SQ, 2.80, "Quote for the 150 x 80 cm size with pouch.")]),

    # ------------------------------------------------------------------ Tech Accessories
    P("tech-magnetic-aluminium-phone-stand", TEC,
      "MagSafe-Compatible Aluminium Phone Stand",
      "An adjustable aluminium stand with a rotating magnetic disc that holds "
      "MagSafe iPhones in portrait or landscape. Folds flat for travel and "
      "desk setups.",
      29.99, 9.40, "USD", 3, 81.0,
      [(118, GT, 58, "Interest up after the latest iPhone launch."),
       (91, TT, 1300000, "Desk-setup tours frequently show magnetic stands."),
       (64, AMZ, 720, "Top-1,000 in Cell Phone Stands."),
       (37, RD, 150, "Frequent in r/desksetup and r/iphone threads."),
       (11, SQ, 5.30, "Quote for CNC aluminium with N52 magnets.")]),
    P("tech-braided-usb-c-cables-3-pack", TEC,
      "Braided USB-C to USB-C Cables, 3-Pack",
      "Three 100 W nylon-braided cables (1 m, 2 m and 3 m) with E-marker chips "
      "for fast-charging laptops, tablets and phones. Rated for 30,000 bends.",
      19.99, 5.30, "USD", 1, 72.4,
      [(99, SV, 60500, "US monthly searches for 'usb c cable'."),
       (57, AMZ, 230, "Top-250 in USB Cables, very competitive."),
       (15, SQ, 2.95, "Quote for three cables with E-marker.")]),
    P("tech-slim-power-bank-20000mah", TEC,
      "Slim 20,000 mAh Power Bank, 22.5 W",
      "A 20,000 mAh power bank with USB-C PD in and out, a USB-A port and an "
      "LED display showing remaining charge. Airline-safe for carry-on and "
      "charges a phone about four times.",
      34.99, 29.60, "USD", 2, 60.2,
      [(112, GT, 64, "Steady interest with a travel-season bump."),
       (69, AMZ, 880, "Dominated by two large brands with aggressive pricing."),
       (35, SQ, 17.80, "Quote; lithium cells need costly DG shipping."),
       (7, RC, 54000, "Top competitor review count.")]),
    P("tech-adhesive-silicone-cable-clips", TEC,
      "Self-Adhesive Silicone Cable Clips, 10-Pack",
      "Ten weighted silicone clips with 3M adhesive backing that hold charging "
      "cables along desk edges and nightstands. Each clip has one to five "
      "slots.",
      9.99, 2.90, "USD", 1, 63.7,
      [(95, AMZ, 1540, "Top-2,000 in Cable Organizers."),
       (54, TT, 380000, "Cable-management before-and-after clips."),
       (14, SQ, 0.96, "Quote for ten mixed-size clips.")]),
    P("tech-foldable-aluminium-laptop-stand", TEC,
      "Foldable Aluminium Laptop Stand",
      "A six-height aluminium riser that lifts 10 to 17 inch laptops to eye "
      "level and folds into a 26 cm pouch. For remote workers and students "
      "with neck strain.",
      32.99, 10.50, "USD", 2, 74.1,
      [(108, SV, 74000, "US monthly searches for 'laptop stand'."),
       (73, AMZ, 510, "Top-500 in Laptop Stands."),
       (41, RD, 95, "Common in r/digitalnomad packing lists."),
       (17, GT, 59, "Back-to-school lift still visible."),
       (2, SQ, 6.40, "Quote with neoprene pouch.")]),
    P("tech-ultra-thin-webcam-covers", TEC,
      "Ultra-Thin Webcam Covers, 6-Pack",
      "Sliding 0.7 mm webcam covers that fit laptops, tablets and phones "
      "without stopping the lid from closing. A cheap add-on for "
      "privacy-conscious buyers.",
      9.99, 2.60, "USD", 1, 40.8,
      [("2025-02-14", GT, 36, "Interest has drifted down since the pandemic years."),
       (100, AMZ, 2760, "Top-3,000 in Laptop Accessories."),
       (48, SQ, 0.40, "Quote for six covers on a card.")]),
    P("tech-clip-on-selfie-ring-light", TEC,
      "Rechargeable Clip-On Selfie Ring Light",
      "A 60-LED clip-on light with three colour temperatures and ten brightness "
      "levels, charged by USB-C. Clamps onto phones and laptops for better "
      "video calls.",
      17.99, 5.60, "USD", 2, 55.9,
      [(102, GT, 40, "Interest modest but steady."),
       (63, AMZ, 2100, "Top-2,500 in Selfie Lights."),
       (26, TT, 290000, "Creator-setup clips mention clip lights for calls.")]),
    P("tech-earbud-cleaning-pen", TEC,
      "Earbud and Charging-Case Cleaning Pen",
      "A 3-in-1 pen with a soft brush, flocking sponge and metal tip for "
      "cleaning AirPods, earbuds and charging cases. Removes wax and lint "
      "without scratching.",
      9.99, 2.80, "USD", 1, 69.1,
      [(93, TT, 2600000, "Gross-out cleaning videos drive strong curiosity."),
       (58, SV, 18100, "US monthly searches for 'airpod cleaner'."),
       (25, AMZ, 640, "Top-1,000 in Headphone Accessories."),
       (6, SQ, 0.55, "Quote for the pen in a blister card.")]),
    P("tech-pbt-keycap-set-cherry-profile", TEC,
      "PBT Keycap Set, 129 Keys, Cherry Profile",
      "A 129-key double-shot PBT keycap set in Cherry profile that fits most "
      "ANSI and ISO mechanical keyboards. Includes a wire keycap puller.",
      39.99, 21.90, "USD", 3, 64.6,
      [(114, RD, 240, "r/MechanicalKeyboards posts show strong hobby demand."),
       (81, ETSY, 1650, "Artisan keycap listings prove willingness to pay."),
       (44, GT, 51, "Interest steady, slow upward trend."),
       (16, SQ, 13.60, "Quote for double-shot PBT, 200-set MOQ.")],
      supplier_moq=200),

    # ------------------------------------------------------------------ Baby & Kids
    P("baby-silicone-bibs-food-catcher", BAB,
      "Silicone Baby Bibs with Food Catcher, 3-Pack",
      "Three soft food-grade silicone bibs with a deep crumb pocket and a "
      "four-position neck snap, for babies from 6 months to 3 years. Rinse "
      "clean or put them in the dishwasher.",
      17.99, 4.70, "USD", 2, 76.0,
      [(109, SV, 27100, "US monthly searches for 'silicone bib'."),
       (75, AMZ, 560, "Top-1,000 in Baby Bibs."),
       (42, ETSY, 1900, "Personalised silicone bibs sell well on Etsy."),
       (12, SQ, 2.10, "Quote for three bibs in muted colours.")]),
    P("baby-galaxy-star-projector", BAB,
      "Galaxy Star Projector Night Light",
      "A rotating nebula-and-star projector with a 60-minute auto-off timer, "
      "eight colour modes and a remote. Marketed for toddler bedtime routines "
      "and teen bedrooms.",
      32.99, 11.40, "USD", 2, 29.3,
      [("2023-12-11", TT, 7800000, "Peak of the 2023 holiday trend."),
       ("2024-05-21", GT, 44, "Interest halved after the holidays."),
       ("2024-11-06", AMZ, 1900, "Dropped out of the top-1,000 in Night Lights."),
       ("2025-05-15", SQ, 6.80, "Last supplier quote on file.")]),
    P("baby-portable-white-noise-machine", BAB,
      "Portable White Noise Machine for Babies",
      "A palm-size sound machine with 20 soothing sounds, a warm night light "
      "and a lanyard for pram or car-seat use. Runs up to 30 hours per "
      "charge.",
      24.99, 10.90, "USD", 2, 73.0,
      [(116, AMZ, 780, "Top-1,000 in Baby Sound Machines."),
       (82, RD, 120, "Recommended in r/beyondthebump for contact naps."),
       (49, GT, 56, "Interest steady year-round."),
       (23, RC, 9800, "Category leader review count."),
       (5, SQ, 4.60, "Quote with a 1,500 mAh battery.")]),
    P("baby-foldable-travel-bassinet", BAB,
      "Foldable Travel Bassinet with Mosquito Net",
      "A fold-out travel bed with a padded mattress, zip-on mosquito net and "
      "carry handles, for babies up to 6 months. Opens in seconds for hotel "
      "stays and visits to grandparents.",
      49.90, 42.00, "EUR", 3, 48.9,
      [(97, SV, 3600, "Monthly searches for 'Reisebett Baby faltbar' in DE."),
       (59, SQ, 21.00, "Quote; bulky carton and EU safety testing add cost."),
       (24, AMZ, 3300, "Rank on Amazon.de in Travel Cots.")]),
    P("baby-montessori-wooden-busy-board", BAB,
      "Montessori Wooden Busy Board",
      "A 30 x 24 cm birch-ply board with latches, a mini light switch, a zip, "
      "a buckle and spinning gears, finished in water-based paint. For "
      "toddlers aged 1 to 4 building fine motor skills.",
      36.99, 17.80, "USD", 3, 70.2,
      [(113, ETSY, 3400, "Etsy shoppers pay a premium for personalised boards."),
       (80, TT, 910000, "Montessori-at-home creators featuring busy boards."),
       (46, GT, 52, "Interest climbing into the gift season."),
       (15, SQ, 7.80, "Quote for birch ply with EN71 test report.")]),
    P("baby-silicone-stacking-cups", BAB,
      "Silicone Stacking Cups, 8-Piece",
      "Eight muted-tone silicone cups with numbers and shapes that stack, nest "
      "and double as bath toys. Free from BPA, PVC and phthalates.",
      16.99, 4.50, "USD", 1, 67.6,
      [(101, AMZ, 940, "Top-1,000 in Stacking Toys."),
       (66, ETSY, 1100, "Neutral-tone sets trend on Etsy."),
       (29, SQ, 2.25, "Quote for eight cups in a mesh bag.")]),
    P("baby-shatterproof-back-seat-mirror", BAB,
      "Shatterproof Back-Seat Baby Mirror",
      "A 30 x 20 cm shatter-resistant acrylic mirror on a 360-degree pivot, held "
      "by two headrest straps, so drivers can see a rear-facing baby. Stays "
      "put on bumpy roads.",
      19.99, 6.20, "USD", 2, 61.1,
      [(105, SV, 14800, "US monthly searches for 'baby car mirror'."),
       (68, AMZ, 1020, "Top-1,500 in Car Seat Mirrors."),
       (32, RC, 31000, "Top competitor review count, rating 4.7."),
       (9, SQ, 3.40, "Quote with two headrest straps.")]),
    P("baby-waterproof-art-smock", BAB,
      "Waterproof Long-Sleeve Art Smock for Kids",
      "A PU-coated polyester smock with elastic cuffs and a wide front pocket "
      "that covers children aged 2 to 6 during painting and messy play. Wipes "
      "clean and machine-washes cold.",
      13.99, 3.80, "USD", 1, 53.4,
      [(94, ETSY, 760, "Personalised smocks are a small Etsy niche."),
       (53, AMZ, 2350, "Top-2,500 in Kids' Art Smocks."),
       (20, GT, 37, "Slight back-to-school lift.")]),
    P("baby-foldable-toddler-tower", BAB,
      "Foldable Toddler Kitchen Helper Tower",
      "A foldable beech-wood learning tower with an adjustable platform and "
      "safety rail, letting children from 18 months to 4 years reach the "
      "counter. Folds to 12 cm deep for storage.",
      99.00, 41.50, "USD", 3, 71.5,
      [(118, SV, 40500, "US monthly searches for 'learning tower'."),
       (86, RD, 160, "Foldable towers are a frequent ask in r/Montessori."),
       (55, AMZ, 1280, "Top-1,500 in Kids' Step Stools."),
       (27, TT, 1400000, "Toddler-helps-cook videos regularly go viral."),
       (3, SQ, 24.00, "Quote for beech wood, flat-packed.")]),

    # ------------------------------------------------------------------ Office & Desk
    P("office-under-desk-cable-tray", OFF,
      "Under-Desk Cable Management Tray",
      "A 60 cm steel mesh tray that screws or clamps under a desk to hide power "
      "strips and cable slack. For standing-desk owners tired of dangling "
      "cords.",
      27.99, 8.90, "USD", 2, 79.8,
      [(117, RD, 190, "A staple recommendation in r/desksetup."),
       (83, GT, 56, "Interest up about 20% year on year."),
       (50, AMZ, 670, "Top-1,000 in Cable Management Trays."),
       (26, TT, 720000, "Desk-makeover videos reveal the tray."),
       (4, SQ, 4.70, "Quote for clamp-on version with screws.")]),
    P("office-wool-felt-desk-mat", OFF,
      "Wool Felt Desk Mat, 90 x 40 cm",
      "A 4 mm merino wool felt desk pad with a non-slip cork underside, large "
      "enough for a keyboard and mouse. Muffles typing noise and protects "
      "wooden desks.",
      34.90, 15.60, "EUR", 2, 65.7,
      [(111, ETSY, 980, "Felt desk mats have a loyal Etsy audience."),
       (72, SV, 8100, "Monthly searches for 'Schreibtischunterlage Filz' in DE."),
       (39, AMZ, 1840, "Rank on Amazon.de in Desk Pads."),
       (13, SQ, 6.90, "Quote for merino felt with cork backing.")]),
    P("office-gas-spring-monitor-arm", OFF,
      "Gas-Spring Single Monitor Arm",
      "A gas-spring arm for 17 to 32 inch monitors up to 9 kg, with VESA 75/100 "
      "mounts, clamp or grommet install and a built-in cable channel. Frees "
      "desk space and adjusts height in one motion.",
      69.99, 57.10, "USD", 3, 57.7,
      [(107, SV, 60500, "US monthly searches for 'monitor arm'."),
       (70, AMZ, 540, "Top-1,000, but price war among three brands."),
       (36, SQ, 31.20, "Quote; heavy steel carton adds freight."),
       (8, RD, 85, "Budget arms in r/desksetup are seen as hit-or-miss.")]),
    P("office-push-pop-fidget-toy", OFF,
      "Push-Pop Fidget Desk Toy, 2-Pack",
      "Two silicone push-bubble boards in pastel colours that give restless "
      "hands something quiet to do during calls. Wipe-clean and "
      "pocket-sized.",
      9.99, 2.60, "USD", 1, 18.6,
      [("2023-06-20", TT, 9100000, "Tail end of the 2021-2023 craze."),
       ("2024-07-08", GT, 18, "Interest down more than 80% from the peak.")]),
    P("office-adjustable-foot-rest", OFF,
      "Adjustable Under-Desk Foot Rest",
      "A memory-foam foot rest with a removable velvet cover and two height "
      "settings, shaped to rock gently and aid circulation. For shorter users "
      "whose feet don't reach the floor.",
      29.99, 10.60, "USD", 2, 62.0,
      [(103, AMZ, 1110, "Top-1,500 in Foot Rests."),
       (65, SV, 22200, "US monthly searches for 'foot rest under desk'."),
       (31, RD, 42, "Ergonomics threads recommend it for short users."),
       (7, SQ, 5.90, "Quote with washable velvet cover.")]),
    P("office-clear-acrylic-desk-organizer", OFF,
      "Clear Acrylic Desk Organizer with Drawers",
      "A three-tier clear acrylic organiser with two pull-out drawers for pens, "
      "sticky notes and chargers. Fits a 25 x 17 cm footprint on crowded "
      "desks.",
      24.99, 8.10, "USD", 1, 51.2,
      [(96, TT, 260000, "Aesthetic desk-restock videos."),
       (60, AMZ, 2600, "Top-3,000 in Desk Organizers."),
       (22, SQ, 4.30, "Quote; acrylic scratches easily in transit.")]),
    P("office-bamboo-monitor-riser-drawer", OFF,
      "Bamboo Monitor Riser with Storage Drawer",
      "A 54 cm bamboo monitor stand with a slim drawer and phone slot that "
      "raises screens 10 cm for better posture. Supports up to 20 kg.",
      36.99, 16.40, "USD", 2, 68.3,
      [(115, GT, 44, "Steady interest, mild January bump."),
       (77, AMZ, 1390, "Top-1,500 in Monitor Stands."),
       (43, ETSY, 540, "Handmade wooden risers sell at higher prices."),
       (10, SQ, 7.10, "Quote for carbonised bamboo with drawer.")]),
    P("office-magnetic-fridge-planner", OFF,
      "Magnetic Dry-Erase Monthly Planner for Fridge",
      "A 43 x 30 cm magnetic monthly planner with eight fine-tip markers and "
      "an eraser. Keeps family schedules and meal plans on the fridge or a "
      "steel cabinet.",
      19.99, 5.40, "USD", 1, 58.4,
      [(100, SV, 12100, "US monthly searches for 'magnetic calendar for fridge'."),
       (62, ETSY, 2700, "Lots of printable competition on Etsy."),
       (28, AMZ, 1760, "Top-2,000 in Dry Erase Calendars."),
       (5, GT, 63, "Interest rising ahead of New Year planning.")]),
    P("office-hexagon-pomodoro-timer", OFF,
      "Hexagon Pomodoro Flip Timer",
      "A hexagonal flip timer preset to 5, 15, 25, 30, 45 and 60 minutes: turn "
      "it onto a side to start the countdown. For focus sessions, study breaks "
      "and standing-desk rotations.",
      21.99, 6.80, "USD", 2, 60.9,
      [(109, RD, 70, "Shared in r/productivity and r/ADHD focus threads."),
       (74, TT, 520000, "Study-with-me creators use flip timers on camera."),
       (40, AMZ, 1950, "Top-2,000 in Kitchen Timers."),
       (12, SQ, 3.60, "Quote with silent mode and AAA battery.")]),
]


# ---------------------------------------------------------------- catalog build

def _evidence_date(when) -> date:
    if isinstance(when, int):
        return ANCHOR - timedelta(days=when)
    return date.fromisoformat(when)


def build_records() -> list[dict]:
    records = []
    for p in PRODUCTS:
        evidence = []
        for when, source, value, note in p["evidence"]:
            evidence.append({
                "date": _evidence_date(when).isoformat(),
                "source": source,
                "metric": SOURCE_METRIC[source],
                "value": value,
                "note": note,
            })
        evidence.sort(key=lambda e: e["date"])  # stable: ties keep literal order
        pid = p["product_id"]
        record = {
            "product_id": pid,
            "name": p["name"],
            "description": p["description"],
            "category": p["category"],
            "price": round(p["price"], 2),
            "cost": round(p["cost"], 2),
            "currency": p["currency"],
            "images": [f"{IMAGE_URL_PREFIX}{pid}-{n}.svg" for n in range(1, p["images"] + 1)],
            "rank": round(p["rank"], 1),
            "evidence": evidence,
        }
        record.update(p["extra"])
        records.append(record)
    return records


def validate(records: list[dict]) -> None:
    """Fail loudly if the hand-written data drifts from the catalog contract."""
    import re

    slug = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
    assert len(records) == 72, len(records)
    ids = [r["product_id"] for r in records]
    assert len(set(ids)) == len(ids), "duplicate product_id"
    names = [r["name"] for r in records]
    assert len(set(names)) == len(names), "duplicate name"
    descs = [r["description"] for r in records]
    assert len(set(descs)) == len(descs), "duplicate description"
    for cat in CATEGORIES:
        n = sum(r["category"] == cat for r in records)
        assert n == 9, (cat, n)
    for r in records:
        pid = r["product_id"]
        assert slug.match(pid), pid
        assert 3 <= len(r["name"]) <= 80, pid
        assert r["currency"] in ("USD", "EUR", "GBP"), pid
        assert 9.99 <= r["price"] <= 149.00, pid
        assert r["cost"] > 0, pid
        assert 0.0 <= r["rank"] <= 100.0, pid
        assert 1 <= len(r["images"]) <= 3, pid
        ev = r["evidence"]
        assert 1 <= len(ev) <= 7, pid
        assert [e["date"] for e in ev] == sorted(e["date"] for e in ev), pid
        for e in ev:
            d = date.fromisoformat(e["date"])
            assert d <= ANCHOR, (pid, e)
            assert isinstance(e["value"], (int, float)) and e["value"] > 0, (pid, e)


# ---------------------------------------------------------------- SVG cards

CATEGORY_STYLE = {
    # category: (background, accent, text colour)
    HK: ("#F4A261", "#FFFFFF", "#2B2118"),
    PET: ("#6A994E", "#F2E8CF", "#FFFFFF"),
    FIT: ("#D1495B", "#FFD6A5", "#FFFFFF"),
    BEA: ("#E5989B", "#FFF1F2", "#3D1F2B"),
    OUT: ("#2A9D8F", "#E9F5DB", "#FFFFFF"),
    TEC: ("#1D3557", "#A8DADC", "#FFFFFF"),
    BAB: ("#A8DADC", "#FFFFFF", "#1D3557"),
    OFF: ("#6D6875", "#E5E5E5", "#FFFFFF"),
}


def _motif(category: str, accent: str, n: int) -> str:
    """A simple per-category shape group, rotated a little per image index."""
    shapes = {
        HK: '<circle cx="200" cy="120" r="62"/><circle cx="200" cy="120" r="38" fill-opacity="0.6"/>',
        PET: ('<ellipse cx="200" cy="140" rx="40" ry="32"/><circle cx="158" cy="96" r="15"/>'
              '<circle cx="186" cy="80" r="15"/><circle cx="214" cy="80" r="15"/><circle cx="242" cy="96" r="15"/>'),
        FIT: ('<rect x="120" y="110" width="160" height="20" rx="6"/><rect x="104" y="82" width="26" height="76" rx="8"/>'
              '<rect x="270" y="82" width="26" height="76" rx="8"/>'),
        BEA: '<path d="M200 52 C250 100 250 150 200 186 C150 150 150 100 200 52 Z"/>',
        OUT: '<path d="M96 182 L166 76 L214 148 L244 110 L304 182 Z"/><circle cx="284" cy="74" r="16"/>',
        TEC: ('<rect x="146" y="58" width="108" height="130" rx="16"/>'
              '<rect x="160" y="74" width="80" height="92" rx="6" fill-opacity="0.5"/>'),
        BAB: '<path d="M200 56 L218 100 L266 104 L230 134 L242 180 L200 156 L158 180 L170 134 L134 104 L182 100 Z"/>',
        OFF: ('<rect x="120" y="70" width="160" height="26" rx="6"/><rect x="120" y="108" width="160" height="26" rx="6"/>'
              '<rect x="120" y="146" width="160" height="26" rx="6"/>'),
    }[category]
    angle = ((n - 1) * 15) % 360
    transform = f' transform="rotate({angle} 200 120)"' if angle else ""
    return f'<g fill="{accent}" fill-opacity="0.85"{transform}>{shapes}</g>'


def _wrap_name(name: str) -> tuple[list[str], int]:
    for width, size in ((18, 28), (22, 24), (26, 20)):
        lines = textwrap.wrap(name, width=width)
        if len(lines) <= 3:
            return lines, size
    lines = textwrap.wrap(name, width=26)[:3]
    lines[-1] = lines[-1][:25].rstrip() + "\u2026"
    return lines, 20


def render_svg(record: dict, n: int, total: int) -> str:
    bg, accent, fg = CATEGORY_STYLE[record["category"]]
    lines, size = _wrap_name(record["name"])
    line_h = int(size * 1.25)
    y0 = 268 - (len(lines) - 1) * line_h // 2
    tspans = "".join(
        f'<tspan x="200" y="{y0 + i * line_h}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    label = escape(f"{record['category']} \u00b7 {n}/{total}")
    aria = escape(record["name"], {'"': "&quot;"})
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="0 0 400 400" '
        f'role="img" aria-label="{aria}">'
        f'<rect x="4" y="4" width="392" height="392" rx="36" fill="{bg}"/>'
        f'{_motif(record["category"], accent, n)}'
        f'<text font-family="Helvetica, Arial, sans-serif" font-size="{size}" font-weight="700" '
        f'fill="{fg}" text-anchor="middle">{tspans}</text>'
        f'<text x="200" y="366" font-family="Helvetica, Arial, sans-serif" font-size="15" '
        f'fill="{fg}" fill-opacity="0.8" text-anchor="middle">{label}</text>'
        '</svg>\n'
    )


# ---------------------------------------------------------------- main

def main() -> None:
    records = build_records()
    validate(records)

    CATALOG_PATH.parent.mkdir(parents=True, exist_ok=True)
    with CATALOG_PATH.open("w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")

    IMAGE_DIR.mkdir(parents=True, exist_ok=True)
    n_images = 0
    for r in records:
        total = len(r["images"])
        for n in range(1, total + 1):
            svg = render_svg(r, n, total)
            assert len(svg.encode("utf-8")) < 2048, (r["product_id"], n)
            (IMAGE_DIR / f"{r['product_id']}-{n}.svg").write_text(svg, encoding="utf-8", newline="\n")
            n_images += 1

    print(f"wrote {len(records)} products -> {CATALOG_PATH.relative_to(ROOT)}")
    print(f"wrote {n_images} images -> {IMAGE_DIR.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
