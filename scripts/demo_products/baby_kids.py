"""The demo catalog\'s Baby & Kids products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, BAB, ETSY, GT, RC, RD, SQ, SV, TT, P

PRODUCTS = [
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

]
