"""The demo catalog\'s Office & Desk products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, ETSY, GT, OFF, RD, SQ, SV, TT, P

PRODUCTS = [
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
