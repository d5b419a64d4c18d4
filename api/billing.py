"""Billing provider callbacks: POST /api/billing/webhook."""
from flask import Blueprint

bp = Blueprint("billing", __name__)

DECISIONS: list[str] = []
