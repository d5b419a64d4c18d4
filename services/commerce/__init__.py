"""Commerce: payments through the provider seam and everything they pay for.

Importing the package registers every payment purpose (orders, upgrades, samples, domains), so a
confirmation in any process knows what each payment was for.
"""
from services.commerce import payments  # noqa: F401  (first: the others register with it)
from services.commerce import domain_orders, orders, samples, upgrade  # noqa: F401,E402
