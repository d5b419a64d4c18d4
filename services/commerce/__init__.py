"""Commerce: payments through the provider seam and everything they pay for.

Importing the package registers every payment purpose (orders, upgrades, samples, domains, and
the growth area's ad top-ups), so a confirmation in any process knows what each payment was for.
"""
from services.commerce import (  # noqa: F401,E402
    domain_orders,
    orders,
    payments,  # noqa: F401  (first: the others register with it)
    samples,
    upgrade,
)
from services.growth import balance  # noqa: F401,E402  (the `ad_topup` purpose)
