"""The demo catalog\'s Fitness products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, ETSY, FIT, GT, RC, RD, SQ, SV, TT, P

PRODUCTS = [
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

]
