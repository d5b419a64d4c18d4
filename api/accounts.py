"""Accounts and sign-in: spec 2.1-2.3, 4.2 and 5."""
from flask import Blueprint

bp = Blueprint("accounts", __name__)

DECISIONS: list[str] = []
