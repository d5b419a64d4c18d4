"""What no screen shows a founder (tests/browser/test_founder_words.py walks every screen
with it; journeys that add screens check theirs with it too): each kind of machine text,
named, with the pattern that finds it."""
from __future__ import annotations

import re

FORBIDDEN = {
    "an API route": re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE) /|/api/"),
    "a setting's name": re.compile(r"\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b"),
    "a JSON path": re.compile(r"\$\.[\w\[]"),
    "an internal key": re.compile(r"\b(?:window\.start|window\.end|gate\.on|copy\.[a-z_]+)\b"),
    "a time as a machine writes it": re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}"),
    "an id of 32 characters": re.compile(r"\b[0-9a-fA-F]{32}\b"),
    "a code of the service's": re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"),
    # How the service runs its jobs is not the founder's business: what is happening is (a
    # queued build is "In the queue, starting in a moment"; the 3D preview that cannot be built
    # now says so). No screen, lesson or store page speaks of workers.
    "the service's machinery": re.compile(r"\bworkers?\b", re.I),
    # The engine's word for a suggested change (POST /api/intent): founders read "change" or "suggestion".
    "the engine's word for a change": re.compile(r"\bintents?\b", re.I),
}
