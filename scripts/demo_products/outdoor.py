"""The demo catalog\'s Outdoor & Camping products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, ETSY, GT, OUT, RC, RD, SQ, SV, TT, P

PRODUCTS = [
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

]
