"""Numbered migrations; see models/migrate.py."""
