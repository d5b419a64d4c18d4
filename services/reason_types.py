"""The shape of a registry entry."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Reason:
    status: int  # the usual HTTP status; a route may declare another for the same code
    sentence: str  # the explanation a founder is shown
