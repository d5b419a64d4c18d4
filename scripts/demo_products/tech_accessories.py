"""The demo catalog\'s Tech Accessories products, written by hand (see scripts/demo_products/__init__.py)."""
from demo_products.record import AMZ, ETSY, GT, RC, RD, SQ, SV, TEC, TT, P

PRODUCTS = [
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

]
