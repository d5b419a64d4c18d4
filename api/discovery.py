"""Discovery, holds and claims: spec 2.4-2.6 and 4.3."""
from flask import Blueprint

bp = Blueprint("discovery", __name__)

DECISIONS: list[str] = []
