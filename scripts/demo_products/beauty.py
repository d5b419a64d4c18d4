"""The demo catalog\'s Beauty & Personal Care products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, BEA, ETSY, GT, RC, RD, SQ, SV, TT, P

PRODUCTS = [
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

]
