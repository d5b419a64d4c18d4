"""The demo catalog\'s Pet Supplies products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, GT, PET, RC, RD, SQ, SV, TT, P

PRODUCTS = [
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

]
