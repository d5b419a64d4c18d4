"""The credit meter: GET /api/usage (spec 8)."""
from flask import Blueprint

bp = Blueprint("usage", __name__)

DECISIONS: list[str] = []
