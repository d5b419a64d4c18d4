"""Commerce: payments through the provider seam and everything they pay for.

Importing the package registers every payment purpose (orders, upgrades, samples), so a
confirmation in any process knows what each payment was for.
"""
from services.commerce import payments  # noqa: F401  (first: the others register with it)
from services.commerce import orders, upgrade  # noqa: F401,E402
