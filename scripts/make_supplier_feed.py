#!/usr/bin/env python3
"""Generate the bundled offline supplier feed: what scripts/discover.py reads by default,
and what GET /api/suppliers answers supplier options from.

Output: ``scripts/data/supplier_feed.jsonl.gz``, one JSON object a line, in two parts:

1. Feed products (3,000 by default): each a line in the catalog format of decisions.md
   (product_id, name, description, category, price, cost, currency, images, rank,
   evidence) plus one supplier's offer of it, fields the catalog keeps as extras
   (supplier, sku, moq, lead_time_days, ships_from, rating). Discovery adds the ones that
   clear the evidence gate to the catalog.
2. Offer lines for every product of the demo catalog (scripts/data/demo_catalog.jsonl,
   made by make_demo_catalog.py): 2 to 5 suppliers' offers of each, one line per offer:
   product_id (the catalog product offered), name (the catalog's), supplier, sku (unique
   in the feed), cost (the unit cost, 70-130 % of the catalog cost), currency (the
   catalog product's), moq, lead_time_days, ships_from (the supplier's country) and
   rating. An offer line has no price: it offers a product listed elsewhere, so discovery
   skips it, while supplier options read it.

Deterministic and standard library only: a fixed seed, evidence dated relative to the
fixed anchor ``ANCHOR`` (never today's date), and a gzip stream with no timestamp or file
name, so re-running it rewrites a byte-identical file.

Like a real feed, it is uneven: most products would clear the evidence gate, but some have
thin or negative margins, some only old evidence, some a single evidence row and some
none at all.

Usage::

    python3 scripts/make_supplier_feed.py [--count 3000] [--out PATH]

Run it again after changing the demo catalog: tests/test_discover.py checks that the
committed feed is byte for byte what this script makes.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import random
import re
from datetime import date, timedelta
from pathlib import Path

from make_demo_catalog import SOURCE_METRIC  # this folder is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "scripts" / "data" / "supplier_feed.jsonl.gz"
DEMO_CATALOG = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
ANCHOR = date(2026, 11, 15)
SEED = 20261115
IMAGE_HOST = "https://images.supplier-feed.example"

# category -> [(noun, what it is, first variant axis, second variant axis, (low, high) retail price)]
CATALOG = {
    "Home & Kitchen": [
        ("Cutting Board", "A reversible board with a juice groove and non-slip feet", ["Bamboo", "Acacia", "Walnut", "Olive Wood"], ["Small", "Large", "3-Piece Set"], (18, 64)),
        ("Knife Block", "A universal slotted block that takes knives of any shape", ["Bamboo", "Matte Black", "Oak", "Slate Grey"], ["6-Slot", "10-Slot"], (24, 59)),
        ("Spice Rack Organizer", "A tiered rack that puts every jar label in view", ["Bamboo", "Steel Wire", "Acrylic", "White Oak"], ["2-Tier", "3-Tier", "Pull-Out"], (16, 45)),
        ("Salad Spinner", "A pump-action spinner that dries greens in seconds", ["Stainless", "BPA-Free", "Collapsible", "Glass-Bowl"], ["4 qt", "6 qt"], (19, 42)),
        ("Pour-Over Coffee Kettle", "A gooseneck kettle for a slow, even pour", ["Stainless", "Matte Black", "Copper-Finish", "Electric"], ["0.8 L", "1.0 L", "1.2 L"], (28, 89)),
        ("French Press", "A double-filter press that keeps grounds out of the cup", ["Borosilicate", "Stainless Double-Wall", "Copper-Finish", "Travel"], ["12 oz", "34 oz", "51 oz"], (19, 59)),
        ("Silicone Baking Mat", "A non-stick mat that replaces parchment for good", ["Pro-Grade", "Macaron", "Perforated", "Fibreglass-Core"], ["Half Sheet", "Quarter Sheet", "2-Pack", "3-Pack"], (12, 32)),
        ("Oil Sprayer Bottle", "A refillable mister for even coats of oil", ["Glass", "Stainless", "Trigger", "Pump"], ["200 ml", "500 ml", "2-Pack"], (11, 26)),
        ("Herb Keeper", "A vented keeper that keeps fresh herbs for weeks", ["Clear", "Sage", "Three-Cell", "Tall"], ["Single", "2-Pack"], (14, 34)),
        ("Pot Lid Organizer", "An adjustable rack that stands lids and pans on edge", ["Expandable", "Steel", "Bamboo", "Wall-Mount"], ["5-Divider", "7-Divider"], (17, 39)),
        ("Dish Drying Rack", "A draining rack with a swivel spout and utensil cup", ["Over-the-Sink", "Roll-Up", "Two-Tier", "Compact"], ["Black", "White", "Stainless"], (19, 69)),
        ("Vacuum Food Sealer", "A countertop sealer that keeps food fresh five times longer", ["Compact", "Handheld", "Pro", "Dry/Moist"], ["Starter Kit", "with 30 Bags"], (34, 119)),
        ("Ice Cube Tray", "A lidded tray for slow-melting cubes", ["Silicone", "Whisky Sphere", "Large Square", "Crushed"], ["2-Pack", "4-Pack"], (9, 24)),
        ("Mandoline Slicer", "An adjustable slicer with a hand guard and five blades", ["Stainless", "Compact", "Julienne", "Safety"], ["Standard", "Pro"], (18, 49)),
        ("Reusable Produce Bags", "Washable mesh bags for groceries and the fridge", ["Organic Cotton", "Mesh", "Drawstring", "Zip"], ["9-Pack", "12-Pack", "15-Pack"], (11, 28)),
        ("Bread Box", "A ventilated box that keeps loaves crusty for days", ["Bamboo", "Enamel", "Matte Black", "Roll-Top"], ["Single", "Double-Layer"], (29, 74)),
        ("Kitchen Scale", "A slim digital scale accurate to one gram", ["Stainless", "Glass", "Rechargeable", "Coffee"], ["5 kg", "10 kg"], (14, 39)),
        ("Under-Sink Organizer", "A two-tier pull-out shelf that fits around pipes", ["Sliding", "Stackable", "Steel", "Expandable"], ["Single", "2-Pack"], (22, 52)),
    ],
    "Pet Supplies": [
        ("Slow Feeder Bowl", "A maze bowl that stretches a meal from one minute to ten", ["Puzzle", "Silicone", "Stainless Insert", "Lick-Mat"], ["Small", "Medium", "Large"], (12, 29)),
        ("Pet Water Fountain", "A filtered fountain that keeps water moving and fresh", ["Ceramic", "Stainless", "Wireless", "Quiet-Pump"], ["2 L", "3 L", "with 4 Filters"], (26, 69)),
        ("Cat Scratching Post", "A sisal post tall enough for a full stretch", ["Sisal", "Cardboard", "Wall-Mount", "Corner"], ["Tall", "Extra Tall", "with Hammock"], (19, 79)),
        ("Dog Harness", "A no-pull harness with front and back clips", ["Reflective", "Padded", "Step-In", "Adventure"], ["XS", "S", "M", "L", "XL"], (18, 44)),
        ("Retractable Leash", "A tangle-free leash with one-button brake", ["5 m", "8 m", "Tape", "LED"], ["Small Dog", "Large Dog"], (15, 39)),
        ("Pet Hair Remover", "A reusable roller that lifts fur off sofas", ["Self-Cleaning", "Rubber", "Lint", "Mini"], ["Single", "2-Pack"], (11, 27)),
        ("Dog Car Seat Cover", "A waterproof cover with side flaps and a mesh window", ["Hammock", "Bench", "Quilted", "Bucket"], ["Standard", "XL"], (29, 69)),
        ("Cat Tunnel", "A crinkle tunnel that folds flat for storage", ["3-Way", "Donut", "Felt", "Long"], ["Grey", "Beige", "Blue"], (14, 36)),
        ("Interactive Cat Toy", "A motion toy that keeps indoor cats busy", ["Feather Wand", "Laser", "Ball Track", "Mouse"], ["Rechargeable", "Battery"], (9, 34)),
        ("Dog Treat Pouch", "A hands-free pouch with a magnetic closure", ["Silicone", "Canvas", "Clip-On", "Training"], ["Black", "Olive", "Orange"], (9, 24)),
        ("Orthopedic Dog Bed", "A memory-foam bed with a washable cover", ["Bolster", "Flat", "Cooling Gel", "Waterproof"], ["Medium", "Large", "XL"], (39, 129)),
        ("Pet Grooming Kit", "Clippers and combs for trims between groomer visits", ["Cordless", "Low-Noise", "Paw Trimmer", "Deshedding"], ["5-Piece", "8-Piece"], (24, 64)),
        ("Litter Mat", "A honeycomb mat that traps litter at the box", ["Double-Layer", "Jumbo", "Urine-Proof", "Foldable"], ["Grey", "Black"], (14, 32)),
        ("Collapsible Travel Bowl", "A silicone bowl that folds flat and clips to a pack", ["Silicone", "Twin", "Cup", "Bottle"], ["Small", "Large", "2-Pack"], (8, 19)),
        ("Bird Feeder", "A squirrel-resistant feeder with a drainage tray", ["Window", "Hanging", "Tube", "Platform"], ["Small", "Large"], (16, 49)),
        ("Aquarium Gravel Cleaner", "A siphon that changes water without lifting the tank", ["Hand-Pump", "Electric", "Long-Tube", "Mini"], ["Standard"], (13, 36)),
    ],
    "Fitness": [
        ("Resistance Bands", "Fabric bands that stay put during squats and bridges", ["Fabric", "Latex Loop", "Tube", "Pull-Up"], ["3-Pack", "5-Pack", "with Door Anchor"], (14, 39)),
        ("Yoga Mat", "A grippy mat with alignment lines", ["Cork", "TPE", "Natural Rubber", "Foldable"], ["4 mm", "6 mm", "8 mm"], (24, 89)),
        ("Foam Roller", "A roller for recovery after runs and lifts", ["High-Density", "Textured", "Vibrating", "Collapsible"], ["30 cm", "45 cm", "90 cm"], (16, 79)),
        ("Jump Rope", "A ball-bearing rope that spins clean at speed", ["Weighted", "Speed", "Cordless", "Beaded"], ["Adjustable", "Pro"], (11, 34)),
        ("Adjustable Kettlebell", "A kettlebell that changes weight with a dial", ["Cast Iron", "Vinyl", "Competition", "Dial"], ["6-18 kg", "8-24 kg"], (69, 189)),
        ("Push-Up Board", "A colour-coded board for targeting chest, back and arms", ["Foldable", "Rotating", "Handles", "Multi-Grip"], ["Standard"], (19, 44)),
        ("Ab Roller", "A wide-wheel roller with a knee pad", ["Dual-Wheel", "Auto-Rebound", "Wide", "Carver"], ["with Knee Pad", "Pro"], (14, 39)),
        ("Gym Bag", "A duffel with a shoe compartment and wet pocket", ["Canvas", "Waterproof", "Backpack", "Weekender"], ["30 L", "40 L", "55 L"], (24, 69)),
        ("Massage Ball Set", "Firm balls for feet, glutes and shoulders", ["Lacrosse", "Spiky", "Peanut", "Vibrating"], ["3-Pack", "5-Pack"], (11, 29)),
        ("Workout Gloves", "Padded gloves with wrist wraps", ["Full-Finger", "Half-Finger", "Ventilated", "Leather"], ["S", "M", "L", "XL"], (12, 32)),
        ("Balance Board", "A wobble board for ankles and core", ["Wooden", "Roller", "Round", "Rocker"], ["Standard", "Pro"], (29, 89)),
        ("Pull-Up Bar", "A doorway bar that fits frames without screws", ["Doorway", "Wall-Mount", "Multi-Grip", "Telescopic"], ["Standard", "Heavy-Duty"], (24, 69)),
        ("Water Bottle with Time Markers", "A bottle marked hour by hour to pace the day", ["Tritan", "Insulated", "Straw-Lid", "Motivational"], ["750 ml", "1 L", "2 L"], (14, 39)),
        ("Grip Strengthener", "An adjustable hand gripper for climbers and lifters", ["Adjustable", "Ring", "Finger", "Forearm"], ["Single", "5-Pack Kit"], (9, 27)),
        ("Sliding Core Discs", "Dual-sided discs for carpet and hardwood", ["Dual-Sided", "Foam", "Glide", "Pro"], ["2-Pack", "4-Pack"], (9, 22)),
    ],
    "Beauty & Personal Care": [
        ("Heatless Curling Set", "A satin rod and scrunchies for overnight curls", ["Satin", "Silk", "Velvet", "Foam"], ["Rod Set", "with Clips"], (12, 34)),
        ("Gua Sha Tool", "A contoured stone for facial massage", ["Rose Quartz", "Jade", "Stainless", "Bian Stone"], ["Single", "with Roller"], (12, 38)),
        ("Makeup Brush Set", "Synthetic brushes for face and eyes", ["Vegan", "Travel", "Kabuki", "Pro"], ["8-Piece", "12-Piece", "16-Piece"], (16, 49)),
        ("Silk Scrunchies", "Hair ties that do not crease or snag", ["Mulberry Silk", "Satin", "Skinny", "Oversized"], ["3-Pack", "6-Pack"], (12, 32)),
        ("Facial Steamer", "A nano-mist steamer for at-home facials", ["Nano-Ionic", "Compact", "Aromatherapy", "Pro"], ["White", "Pink"], (29, 79)),
        ("Scalp Massager", "A soft-bristle brush for shampoo days", ["Silicone", "Electric", "Wide-Tooth", "Travel"], ["Single", "2-Pack"], (8, 29)),
        ("LED Vanity Mirror", "A lit mirror with three colour temperatures", ["Tri-Fold", "Round", "Magnifying", "Rechargeable"], ["Small", "Large"], (24, 79)),
        ("Hair Towel Wrap", "A microfibre wrap that dries hair faster", ["Microfibre", "Bamboo", "Satin-Lined", "Button"], ["2-Pack", "3-Pack"], (12, 29)),
        ("Nail Care Kit", "Clippers, files and pushers in a zip case", ["Stainless", "Glass File", "Manicure", "Pedicure"], ["10-Piece", "16-Piece"], (12, 36)),
        ("Jewelry Organizer", "A travel case with ring rolls and necklace hooks", ["Velvet", "Vegan Leather", "Hanging", "Acrylic"], ["Small", "Large"], (16, 45)),
        ("Refillable Travel Bottles", "Leak-proof bottles that pass airport screening", ["Silicone", "Glass", "Pump", "Squeeze"], ["4-Pack", "8-Pack"], (11, 28)),
        ("Makeup Organizer", "A rotating organiser with adjustable shelves", ["360 Rotating", "Acrylic", "Drawer", "Tiered"], ["Small", "Large"], (19, 49)),
        ("Dermaplaning Razor", "A precision razor for peach fuzz", ["Eyebrow", "Facial", "Electric", "Stainless"], ["6-Pack", "12-Pack"], (8, 24)),
        ("Bath Caddy", "A tray that spans the tub with a book and glass holder", ["Bamboo", "Teak", "Expandable", "Metal"], ["Standard"], (24, 59)),
    ],
    "Outdoor & Camping": [
        ("Camping Hammock", "A ripstop hammock with tree straps", ["Parachute Nylon", "Mosquito-Net", "Ultralight", "Double"], ["Single", "Double"], (24, 69)),
        ("Headlamp", "A rechargeable headlamp with a red night mode", ["USB-C", "Motion-Sensor", "Waterproof", "Ultralight"], ["300 lm", "600 lm", "1000 lm"], (14, 49)),
        ("Dry Bag", "A roll-top bag that keeps gear dry on the water", ["Roll-Top", "Backpack", "Clear Window", "Heavy-Duty"], ["5 L", "10 L", "20 L", "30 L"], (12, 42)),
        ("Camping Lantern", "A collapsible lantern that charges phones", ["Solar", "Collapsible", "Rechargeable", "Inflatable"], ["Single", "2-Pack"], (14, 44)),
        ("Water Filter Straw", "A straw filter for streams and taps", ["Hollow-Fibre", "Carbon", "Bottle", "Squeeze"], ["Single", "2-Pack", "4-Pack"], (14, 39)),
        ("Trekking Poles", "Collapsible poles with cork grips", ["Carbon", "Aluminium", "Folding", "Shock-Absorbing"], ["Pair"], (29, 99)),
        ("Camping Cook Set", "A nesting pot and pan set with a stove bag", ["Titanium", "Aluminium", "Stainless", "Hard-Anodised"], ["1-Person", "2-Person", "4-Person"], (24, 89)),
        ("Microfibre Towel", "A quick-dry towel that packs to the size of a fist", ["Quick-Dry", "Ultralight", "Beach", "Gym"], ["S", "M", "L", "XL"], (12, 34)),
        ("Fire Starter", "A ferro rod that sparks wet or dry", ["Ferro Rod", "Magnesium", "Windproof", "Survival"], ["Single", "2-Pack"], (9, 24)),
        ("Camp Chair", "A packable chair that sets up in a minute", ["Ultralight", "Rocking", "High-Back", "Low"], ["Standard", "Large"], (34, 119)),
        ("Sleeping Pad", "An inflatable pad with a built-in pump", ["Ultralight", "Insulated", "Double", "Self-Inflating"], ["Regular", "Long"], (39, 129)),
        ("Tent Footprint", "A groundsheet that protects the tent floor", ["Ripstop", "Oxford", "Ultralight", "Waterproof"], ["2-Person", "4-Person"], (19, 44)),
        ("Portable Camp Shower", "A solar shower bag with an on/off head", ["Solar", "Pump", "Rechargeable", "Pressure"], ["10 L", "20 L"], (16, 59)),
        ("Bear Bell", "A loud bell with a magnetic silencer", ["Brass", "Magnetic-Silencer", "Clip", "Loud"], ["Single", "2-Pack"], (8, 18)),
        ("Collapsible Water Container", "A water carrier that folds flat when empty", ["Collapsible", "Spigot", "Heavy-Duty", "Foldable"], ["10 L", "20 L"], (14, 34)),
    ],
    "Tech Accessories": [
        ("Phone Stand", "An adjustable stand for desks and nightstands", ["Aluminium", "Magnetic", "Foldable", "Wooden"], ["Single", "2-Pack"], (12, 39)),
        ("USB-C Cable", "A braided cable rated for 100 W charging", ["Braided", "Right-Angle", "Magnetic", "Coiled"], ["1 m", "2 m", "3-Pack"], (9, 29)),
        ("Laptop Stand", "A ventilated stand that lifts the screen to eye level", ["Aluminium", "Foldable", "Adjustable", "Wooden"], ["13-15 in", "15-17 in"], (24, 69)),
        ("Cable Organizer", "Clips and sleeves that tame desk cables", ["Silicone Clip", "Sleeve", "Box", "Magnetic"], ["5-Pack", "10-Pack"], (8, 26)),
        ("Wireless Charging Pad", "A Qi pad with a case-friendly coil", ["15 W", "3-in-1", "Foldable", "Slim"], ["Black", "White"], (16, 59)),
        ("Power Bank", "A slim pack with passthrough charging", ["10000 mAh", "20000 mAh", "Magnetic", "Solar"], ["Black", "Blue"], (19, 69)),
        ("Webcam Cover", "An ultra-thin slide cover for laptops and tablets", ["Ultra-Thin", "Magnetic", "Metal", "Round"], ["3-Pack", "6-Pack"], (6, 14)),
        ("Ring Light", "A clip-on light for video calls", ["Clip-On", "Desk", "Rechargeable", "RGB"], ["8 in", "10 in", "12 in"], (14, 49)),
        ("Keyboard Wrist Rest", "A memory-foam rest for long typing sessions", ["Memory Foam", "Wooden", "Gel", "Leather"], ["Full-Size", "TKL", "Mouse"], (12, 32)),
        ("Earbud Cleaning Kit", "A pen and brush for earbuds and cases", ["Pen", "Putty", "Multi-Tool", "Brush"], ["Single", "2-Pack"], (7, 18)),
        ("Tablet Holder", "A gooseneck arm for beds and kitchens", ["Gooseneck", "Clamp", "Floor", "Headrest"], ["Standard", "Long"], (19, 49)),
        ("Monitor Light Bar", "A glare-free light that sits on the monitor", ["Asymmetric", "USB", "Remote", "Curved"], ["Standard", "Pro"], (29, 79)),
        ("Mechanical Keycap Set", "PBT keycaps in a full layout", ["PBT", "Cherry Profile", "XDA", "Doubleshot"], ["104-Key", "130-Key"], (24, 69)),
        ("Phone Grip", "A collapsible grip and stand", ["MagSafe", "Ring", "Strap", "Pop"], ["Single", "3-Pack"], (8, 24)),
        ("Smart Plug", "A Wi-Fi plug with energy monitoring", ["Mini", "Outdoor", "Energy-Monitoring", "Dual"], ["2-Pack", "4-Pack"], (16, 44)),
    ],
    "Baby & Kids": [
        ("Silicone Bib", "A bib with a deep catcher pocket", ["Silicone", "Roll-Up", "Long-Sleeve", "Waterproof"], ["2-Pack", "4-Pack"], (12, 29)),
        ("Stacking Cups", "Numbered cups that stack, sort and squirt in the bath", ["Silicone", "Rainbow", "Nesting", "Bath"], ["8-Piece", "12-Piece"], (9, 24)),
        ("White Noise Machine", "A sound machine with a night light and timer", ["Portable", "Night-Light", "Smart", "Travel"], ["White", "Grey"], (19, 59)),
        ("Toddler Learning Tower", "A folding step stool with a safety rail", ["Foldable", "Wooden", "Adjustable", "Convertible"], ["Natural", "White"], (79, 189)),
        ("Busy Board", "A wooden activity board with latches and switches", ["Wooden", "Montessori", "Travel", "Felt"], ["Small", "Large"], (24, 69)),
        ("Baby Car Mirror", "A shatterproof mirror for rear-facing seats", ["Shatterproof", "Light-Up", "Wide", "Adjustable"], ["Standard"], (14, 34)),
        ("Art Smock", "A waterproof smock with long sleeves", ["Waterproof", "Long-Sleeve", "Apron", "Cotton"], ["2-4 yrs", "4-6 yrs", "2-Pack"], (12, 26)),
        ("Teething Toy", "A food-grade silicone teether", ["Silicone", "Banana", "Mitten", "Wooden"], ["Single", "3-Pack"], (8, 22)),
        ("Baby Carrier", "An ergonomic carrier with lumbar support", ["Mesh", "Wrap", "Hip-Seat", "Cotton"], ["Black", "Grey", "Navy"], (39, 119)),
        ("Toy Storage Bin", "A soft bin that folds flat when empty", ["Felt", "Cotton Rope", "Canvas", "Mesh"], ["2-Pack", "3-Pack"], (16, 44)),
        ("Kids Water Bottle", "A leak-proof bottle with a soft straw", ["Straw", "Insulated", "Tritan", "Sippy"], ["350 ml", "500 ml"], (12, 29)),
        ("Play Tent", "A pop-up tent for indoor forts", ["Teepee", "Castle", "Pop-Up", "Tunnel"], ["Standard", "Large"], (29, 79)),
        ("Magnetic Tiles", "Building tiles that snap together", ["Clear", "Rainbow", "Glitter", "Pastel"], ["32-Piece", "60-Piece", "100-Piece"], (24, 89)),
        ("Night Light Projector", "A star projector with a sleep timer", ["Star", "Ocean", "Galaxy", "Moon"], ["USB", "Rechargeable"], (19, 49)),
    ],
    "Office & Desk": [
        ("Desk Mat", "A large mat that covers keyboard and mouse", ["Wool Felt", "Vegan Leather", "Cork", "Waterproof"], ["80 x 30 cm", "90 x 40 cm", "100 x 50 cm"], (16, 49)),
        ("Monitor Riser", "A riser with a storage drawer", ["Bamboo", "Steel", "Dual", "Adjustable"], ["Single", "Dual-Monitor"], (24, 69)),
        ("Cable Tray", "An under-desk tray that hides power strips", ["Steel Mesh", "Clamp-On", "Wooden", "Sliding"], ["60 cm", "100 cm"], (19, 49)),
        ("Foot Rest", "An adjustable rest that tilts and rocks", ["Ergonomic", "Memory Foam", "Rocking", "Heated"], ["Standard", "Large"], (24, 69)),
        ("Desk Organizer", "A tidy for pens, notes and phones", ["Acrylic", "Bamboo", "Mesh", "Rotating"], ["Small", "Large"], (14, 39)),
        ("Magnetic Planner", "A dry-erase planner for the fridge or whiteboard", ["Weekly", "Monthly", "Meal", "Chore"], ["A4", "A3"], (12, 32)),
        ("Pomodoro Timer", "A visual timer for focused work blocks", ["Hexagon", "Cube", "Visual", "Silent"], ["White", "Black", "Wood"], (16, 39)),
        ("Document Holder", "An in-line copy holder between keyboard and screen", ["Incline", "Clip", "Tablet", "Bamboo"], ["Standard"], (16, 42)),
        ("Desk Lamp", "A dimmable lamp with a wireless charger base", ["Architect", "LED", "Clamp", "Wireless-Charging"], ["Black", "White", "Silver"], (24, 79)),
        ("Ergonomic Seat Cushion", "A memory-foam cushion that takes pressure off the tailbone", ["Memory Foam", "Gel", "Coccyx", "Wedge"], ["Standard", "Large"], (24, 59)),
        ("Label Maker", "A pocket label printer for files and cables", ["Bluetooth", "Handheld", "Thermal", "Mini"], ["with 3 Tapes", "Starter"], (24, 69)),
        ("Notebook Set", "Dot-grid notebooks with lay-flat binding", ["Dot-Grid", "Lined", "Kraft", "Hardcover"], ["A5 2-Pack", "A5 3-Pack", "B5"], (12, 34)),
        ("Whiteboard Calendar", "A dry-erase calendar for walls and doors", ["Glass", "Acrylic", "Magnetic", "Cork Combo"], ["Medium", "Large"], (24, 79)),
        ("Headphone Stand", "A stand with a cable hook and USB hub", ["Aluminium", "Wooden", "Under-Desk", "RGB"], ["Single", "Dual"], (14, 44)),
    ],
    "Garden & Patio": [
        ("Self-Watering Planter", "A planter with a reservoir and water-level window", ["Ceramic", "Recycled Plastic", "Hanging", "Window Box"], ["Small", "Medium", "Large"], (16, 54)),
        ("Raised Garden Bed", "A galvanised bed that assembles without tools", ["Galvanised", "Cedar", "Fabric", "Modular"], ["4 x 2 ft", "6 x 3 ft", "8 x 4 ft"], (39, 159)),
        ("Solar Path Lights", "Warm-white lights that switch on at dusk", ["Warm-White", "Colour-Changing", "Bollard", "Spike"], ["6-Pack", "10-Pack"], (24, 69)),
        ("Garden Kneeler", "A padded kneeler that flips into a seat", ["Foldable", "Padded", "Tool-Pouch", "Heavy-Duty"], ["Standard"], (29, 69)),
        ("Hose Nozzle", "A metal nozzle with ten spray patterns", ["Metal", "Thumb-Control", "Fireman", "Rain"], ["Standard", "with Quick Connect"], (12, 32)),
        ("Expandable Garden Hose", "A hose that grows to three times its length", ["Expandable", "Flat", "Coiled", "Heavy-Duty"], ["50 ft", "75 ft", "100 ft"], (24, 69)),
        ("Seed Starter Kit", "Trays with domes and a heat mat", ["Humidity-Dome", "Heat-Mat", "Biodegradable", "Grow-Light"], ["72-Cell", "144-Cell"], (19, 59)),
        ("Pruning Shears", "Bypass shears with a sap groove", ["Bypass", "Anvil", "Ratchet", "Titanium"], ["Single", "2-Pack"], (14, 39)),
        ("Bird Bath", "A pedestal bath with a solar fountain", ["Solar-Fountain", "Hanging", "Deck-Mount", "Ceramic"], ["Small", "Large"], (24, 89)),
        ("Compost Bin", "A countertop bin with a charcoal filter", ["Countertop", "Tumbler", "Stainless", "Bamboo"], ["1.3 gal", "2 gal"], (19, 79)),
        ("Plant Support Stakes", "Stakes and rings for tomatoes and peonies", ["Spiral", "Ring", "Bamboo", "Steel"], ["10-Pack", "20-Pack"], (12, 32)),
        ("Patio String Lights", "Shatterproof bulbs on a weatherproof cable", ["Edison", "Globe", "Solar", "Smart"], ["25 ft", "50 ft", "100 ft"], (24, 89)),
    ],
    "Car Accessories": [
        ("Car Phone Mount", "A vent mount that holds phones on rough roads", ["Magnetic", "Vent", "Dashboard", "Wireless-Charging"], ["Standard", "Pro"], (14, 49)),
        ("Trunk Organizer", "A collapsible organiser with cooler compartment", ["Collapsible", "Cooler", "Hanging", "Heavy-Duty"], ["2-Section", "3-Section"], (24, 59)),
        ("Seat Gap Filler", "A filler that stops phones falling beside the seat", ["Leather", "Foam", "Organizer", "Universal"], ["2-Pack"], (12, 29)),
        ("Car Vacuum", "A cordless handheld vacuum with crevice tools", ["Cordless", "Corded", "Wet/Dry", "Mini"], ["Standard", "Pro"], (29, 79)),
        ("Windshield Sun Shade", "A foldable shade that cools the cabin", ["Umbrella", "Foldable", "Reflective", "Magnetic"], ["Standard", "Large"], (14, 39)),
        ("Back Seat Organizer", "A kick mat with tablet holder and pockets", ["Kick-Mat", "Tablet", "Leather", "Cooler"], ["Single", "2-Pack"], (16, 39)),
        ("Tire Inflator", "A portable pump that stops at the set pressure", ["Cordless", "12 V", "Digital", "Dual-Cylinder"], ["Standard"], (34, 99)),
        ("Car Trash Can", "A leak-proof bin with a lid", ["Leak-Proof", "Hanging", "Cup-Holder", "Collapsible"], ["Small", "Large"], (12, 29)),
        ("Steering Wheel Cover", "A breathable cover with a firm grip", ["Leather", "Microfibre", "Heated", "Sport"], ["Standard", "Large"], (14, 36)),
        ("Jump Starter", "A lithium pack that starts engines and charges phones", ["Lithium", "Compact", "Air-Compressor", "Heavy-Duty"], ["1000 A", "2000 A"], (49, 129)),
    ],
    "Travel": [
        ("Packing Cubes", "Compression cubes that organise a suitcase", ["Compression", "Mesh", "Ultralight", "Waterproof"], ["4-Set", "6-Set", "8-Set"], (19, 49)),
        ("Neck Pillow", "A memory-foam pillow that supports the chin", ["Memory Foam", "Inflatable", "Wrap", "Hood"], ["Grey", "Navy", "Black"], (16, 44)),
        ("Toiletry Bag", "A hanging bag with clear pockets", ["Hanging", "Leather", "Clear", "Waterproof"], ["Small", "Large"], (16, 44)),
        ("Luggage Scale", "A digital scale that reads to 50 kg", ["Digital", "Strap", "Hook", "Rechargeable"], ["Single", "2-Pack"], (9, 24)),
        ("Passport Holder", "An RFID-blocking wallet for documents", ["RFID", "Leather", "Family", "Neck"], ["Black", "Brown", "Navy"], (12, 34)),
        ("Universal Travel Adapter", "One adapter for 150 countries with USB-C", ["Universal", "GaN", "Compact", "Dual-USB"], ["Standard", "Pro"], (19, 54)),
        ("Compression Socks", "Graduated socks for long flights", ["Graduated", "Copper", "Merino", "Cotton"], ["S/M", "L/XL"], (12, 32)),
        ("Travel Jewelry Case", "A small zip case for rings and earrings", ["Vegan Leather", "Velvet", "Mini", "Double-Layer"], ["Pink", "Grey", "Green"], (12, 29)),
        ("Luggage Tags", "Sturdy tags with privacy covers", ["Silicone", "Leather", "Aluminium", "Bright"], ["2-Pack", "4-Pack"], (8, 22)),
        ("Foldable Duffel", "A duffel that folds into its own pocket", ["Foldable", "Waterproof", "Weekender", "Carry-On"], ["32 L", "45 L"], (19, 54)),
    ],
}

SOURCES = SOURCE_METRIC  # evidence source -> the metric it reports, as in the demo catalog

SUPPLIERS = ["Ningbo Homeware Co.", "Yiwu Bright Goods", "Shenzhen Gadgetline", "Guangzhou PetCare Ltd.",
             "Xiamen Outdoor Works", "Hangzhou Silk & Co.", "Dongguan Fitline", "Qingdao GreenGrow",
             "Ho Chi Minh Craftworks", "Izmir Textiles", "Porto Cork Supply", "Jaipur Handmade"]
SHIPS_FROM = ["CN", "CN", "CN", "VN", "TR", "PT", "IN", "US"]
AUDIENCES = ["small apartments", "busy parents", "weekend hikers", "first-time buyers", "gift shoppers",
             "remote workers", "students", "renters", "minimalists", "travellers"]
LINES = [("", 1.0), ("Premium ", 1.35), ("Eco ", 1.1), ("Classic ", 0.9), ("Deluxe ", 1.5), ("Essentials ", 0.8)]
TRENDS = ["is climbing steadily", "is stable year round", "peaks ahead of the holidays", "has doubled since spring",
          "is up about 20 % year on year", "shows a late-summer bump"]


def supplier_rating(supplier: str) -> float:
    """The supplier's rating, 3.5 to 5.0 in steps of 0.1, derived from a hash of its name:
    the same supplier always has the same rating, and drawing it takes nothing from the
    random stream (every other field of every line stays as it was before ratings)."""
    digest = hashlib.sha256(supplier.encode("utf-8")).digest()
    return round(3.5 + int.from_bytes(digest[:4], "big") % 16 / 10, 1)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def price_point(rng: random.Random, low: float, high: float) -> float:
    value = rng.uniform(low, high)
    return float(f"{max(int(value), 5)}.99") if value >= 10 else round(value, 2)


def evidence_rows(rng: random.Random, name: str, price: float, cost: float, profile: str) -> list[dict]:
    keyword = name.split(",")[0].lower()
    if profile == "none":
        return []
    if profile == "single":
        offsets = [rng.randint(5, 200)]
    elif profile == "old":
        offsets = sorted(rng.sample(range(560, 1100), rng.randint(2, 5)))
    else:  # "fresh": two to six rows over the last ~ten months
        offsets = sorted(rng.sample(range(3, 320), rng.randint(2, 6)))
    rows = []
    for offset in offsets:
        source = rng.choice(list(SOURCES))
        metric = SOURCES[source]
        if source == "google_trends":
            value, note = rng.randint(18, 96), f"US interest in '{keyword}' {rng.choice(TRENDS)}."
        elif source == "amazon_bestsellers":
            value = rng.randint(150, 9500)
            note = f"Ranked #{value:,} in its Amazon subcategory."
        elif source == "tiktok_views":
            value = rng.randint(40, 4000) * 1000
            note = f"{value:,} weekly views on videos showing a {keyword}."
        elif source == "reddit_mentions":
            value = rng.randint(12, 260)
            note = f"Recommended in {value} threads this month, mostly by {rng.choice(AUDIENCES)}."
        elif source == "supplier_quote":
            value = round(cost * rng.uniform(0.55, 0.85), 2)
            note = f"FOB quote per unit at a {rng.choice([100, 200, 300, 500, 1000])}-piece MOQ."
        elif source == "etsy_listings":
            value = rng.randint(40, 3200)
            note = f"{value:,} Etsy listings; handmade versions sell above ${price:.0f}."
        elif source == "search_volume":
            value = rng.randint(8, 160) * 100
            note = f"US monthly searches for '{keyword}'."
        else:
            value = rng.randint(120, 24000)
            note = f"The leading listing has {value:,} reviews at {rng.choice(['4.3', '4.4', '4.5', '4.6', '4.7'])} stars."
        rows.append({"date": (ANCHOR - timedelta(days=offset)).isoformat(), "source": source, "metric": metric,
                     "value": value, "note": note})
    rows.sort(key=lambda row: row["date"])
    return rows


def products(count: int) -> list[dict]:
    rng = random.Random(SEED)
    combos = []
    for category, bases in CATALOG.items():
        for base in bases:
            noun, what, first, second, prices = base
            for a in first:
                for b in second:
                    combos.append((category, noun, what, a, b, prices))
    # Every combination once, then more pack sizes of the same items as needed, in a fixed order.
    rng.shuffle(combos)
    items, seen_names, round_no = [], set(), 0
    while len(items) < count:
        for category, noun, what, a, b, (low, high) in combos:
            if len(items) >= count:
                break
            # Later rounds are the same items in a supplier's other product lines.
            line, factor = LINES[round_no % len(LINES)]
            name = f"{line}{a} {noun}, {b}"
            if name in seen_names:
                continue
            seen_names.add(name)
            items.append(_product(rng, len(items) + 1, category, noun, what, a, b, low * factor, high * factor, name))
        round_no += 1
    return items


def _product(rng, number, category, noun, what, a, b, low, high, name) -> dict:
    price = price_point(rng, low, high)
    roll = rng.random()
    if roll < 0.08:
        cost = round(price * rng.uniform(0.82, 1.15), 2)  # thin or negative margin
    else:
        cost = round(price * rng.uniform(0.18, 0.62), 2)
    profile_roll = rng.random()
    profile = "fresh" if profile_roll < 0.80 else "old" if profile_roll < 0.88 else "single" if profile_roll < 0.96 else "none"
    currency = "USD" if rng.random() < 0.8 else rng.choice(["EUR", "GBP"])
    product_id = f"sf-{number:05d}-{slug(name.split(',')[0])}"[:120]
    audience = rng.choice(AUDIENCES)
    description = (f"{what}. This {a.lower()} version comes as {b.lower() if not b[0].isdigit() else b}. "
                   f"Popular with {audience}; ships in plain retail packaging.")
    images = [f"{IMAGE_HOST}/{product_id}/{n}.jpg" for n in range(1, rng.randint(2, 4) + 1)]
    line = {
        "product_id": product_id,
        "name": name,
        "description": description,
        "category": category,
        "price": price,
        "cost": cost,
        "currency": currency,
        "images": images,
        "rank": round(rng.uniform(5, 95), 1),
        "evidence": evidence_rows(rng, name, price, cost, profile),
        "supplier": rng.choice(SUPPLIERS),
        "sku": f"SKU-{number:05d}-{rng.randint(100, 999)}",
        "moq": rng.choice([50, 100, 200, 300, 500, 1000]),
        "lead_time_days": rng.randint(7, 45),
        "ships_from": rng.choice(SHIPS_FROM),
    }
    line["rating"] = supplier_rating(line["supplier"])  # after every draw, outside the random stream
    return line


# --- Offers of the demo catalog's products ----------------------------------------------------

# Where each supplier ships from, and what that means for an offer: lead time in days, the
# unit cost as a share of the catalog cost, and the minimum orders it takes. Factories abroad
# are cheaper and slower with larger minimums; a warehouse in the buyer's market is dearer,
# ships in days and sells by the carton.
ORIGINS = {
    "CN": {"days": (12, 35), "cost": (0.70, 1.00), "moq": [100, 200, 300, 500, 1000]},
    "VN": {"days": (18, 40), "cost": (0.72, 1.02), "moq": [100, 200, 300, 500]},
    "IN": {"days": (20, 45), "cost": (0.75, 1.05), "moq": [50, 100, 200, 300]},
    "TR": {"days": (10, 24), "cost": (0.85, 1.10), "moq": [50, 100, 200]},
    "PT": {"days": (7, 18), "cost": (0.90, 1.15), "moq": [50, 100, 150]},
    "US": {"days": (2, 7), "cost": (1.05, 1.30), "moq": [10, 24, 50]},
    "NL": {"days": (2, 6), "cost": (1.05, 1.30), "moq": [10, 24, 50]},
    "GB": {"days": (2, 6), "cost": (1.05, 1.30), "moq": [10, 24, 50]},
}
SUPPLIER_COUNTRY = {
    "Ningbo Homeware Co.": "CN", "Yiwu Bright Goods": "CN", "Shenzhen Gadgetline": "CN",
    "Guangzhou PetCare Ltd.": "CN", "Xiamen Outdoor Works": "CN", "Hangzhou Silk & Co.": "CN",
    "Dongguan Fitline": "CN", "Qingdao GreenGrow": "CN", "Ho Chi Minh Craftworks": "VN",
    "Izmir Textiles": "TR", "Porto Cork Supply": "PT", "Jaipur Handmade": "IN",
    "Columbus Fulfilment Co.": "US", "Rotterdam Stockhouse B.V.": "NL", "Midlands Wholesale Ltd.": "GB",
}
# Suppliers that make goods of a demo category; the warehouse of the product's market joins them.
CATEGORY_SUPPLIERS = {
    "Home & Kitchen": ["Ningbo Homeware Co.", "Yiwu Bright Goods", "Porto Cork Supply", "Jaipur Handmade",
                       "Ho Chi Minh Craftworks"],
    "Pet Supplies": ["Guangzhou PetCare Ltd.", "Yiwu Bright Goods", "Izmir Textiles", "Ningbo Homeware Co.",
                     "Ho Chi Minh Craftworks"],
    "Fitness": ["Dongguan Fitline", "Xiamen Outdoor Works", "Yiwu Bright Goods", "Porto Cork Supply",
                "Izmir Textiles"],
    "Beauty & Personal Care": ["Hangzhou Silk & Co.", "Yiwu Bright Goods", "Jaipur Handmade", "Shenzhen Gadgetline",
                               "Qingdao GreenGrow"],
    "Outdoor & Camping": ["Xiamen Outdoor Works", "Qingdao GreenGrow", "Dongguan Fitline", "Ningbo Homeware Co.",
                          "Ho Chi Minh Craftworks"],
    "Tech Accessories": ["Shenzhen Gadgetline", "Dongguan Fitline", "Yiwu Bright Goods", "Xiamen Outdoor Works",
                         "Ningbo Homeware Co."],
    "Baby & Kids": ["Ningbo Homeware Co.", "Yiwu Bright Goods", "Hangzhou Silk & Co.", "Izmir Textiles",
                    "Ho Chi Minh Craftworks"],
    "Office & Desk": ["Shenzhen Gadgetline", "Ningbo Homeware Co.", "Porto Cork Supply", "Izmir Textiles",
                      "Yiwu Bright Goods"],
}
WAREHOUSE = {"USD": "Columbus Fulfilment Co.", "EUR": "Rotterdam Stockhouse B.V.", "GBP": "Midlands Wholesale Ltd."}
MIN_OFFERS, MAX_OFFERS = 2, 5


def supplier_code(supplier: str) -> str:
    """The first letters of a supplier's words: "Ningbo Homeware Co." -> "NHC"."""
    return "".join(word[0] for word in re.findall(r"[A-Za-z]+", supplier)).upper()[:4]


def read_catalog(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def offers(catalog: list[dict], taken_skus: set[str]) -> list[dict]:
    """2 to 5 suppliers' offer lines for every catalog product, in catalog order.

    Each product draws from a random stream of its own (seeded by SEED and its product
    id), so adding or changing one product of the catalog leaves every other product's
    offers as they were."""
    lines = []
    for product in catalog:
        rng = random.Random(f"{SEED}:{product['product_id']}")
        currency = product["currency"]
        pool = CATEGORY_SUPPLIERS[product["category"]] + [WAREHOUSE[currency]]
        chosen = rng.sample(pool, rng.randint(MIN_OFFERS, MAX_OFFERS))
        for supplier in chosen:
            country = SUPPLIER_COUNTRY[supplier]
            origin = ORIGINS[country]
            sku = f"{supplier_code(supplier)}-{rng.randint(10000, 99999)}"
            while sku in taken_skus:
                sku = f"{supplier_code(supplier)}-{rng.randint(10000, 99999)}"
            taken_skus.add(sku)
            line = {
                "product_id": product["product_id"],
                "name": product["name"],
                "supplier": supplier,
                "sku": sku,
                "cost": max(round(product["cost"] * rng.uniform(*origin["cost"]), 2), 0.01),
                "currency": currency,
                "moq": rng.choice(origin["moq"]),
                "lead_time_days": rng.randint(*origin["days"]),
                "ships_from": country,
            }
            line["rating"] = supplier_rating(supplier)
            lines.append(line)
    return lines


def write(items: list[dict], out: Path) -> int:
    text = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items).encode("utf-8")
    buffer = io.BytesIO()
    # No timestamp and no file name in the header: the same input gives the same bytes.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as stream:
        stream.write(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buffer.getvalue())
    return len(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Generate the bundled supplier feed.")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--catalog", type=Path, default=DEMO_CATALOG,
                        help="the catalog whose products get offer lines (default: the demo catalog)")
    args = parser.parse_args(argv)
    items = products(args.count)
    catalog = read_catalog(args.catalog)
    offered = offers(catalog, {item["sku"] for item in items})
    raw = write(items + offered, args.out)
    print(f"{args.out}: {len(items)} products and {len(offered)} offer lines for the {len(catalog)} products of "
          f"{args.catalog.name}, {raw:,} bytes uncompressed, {args.out.stat().st_size:,} compressed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
