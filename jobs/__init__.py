"""Background work: Dramatiq actors and the helper that sends them.

workers.broker is imported first so the broker is set before any actor is declared.
"""
import workers.broker  # noqa: F401  (must come first: sets the broker)
from jobs import (  # noqa: F401  (declares the actors)
    accounts,
    brief,  # noqa: F401  (the nightly research brief)
    desk,  # noqa: F401  (the support desk's inbound mail)
    discovery,  # noqa: F401  (discovery runs and watch notices)
    fix,  # noqa: F401  (Fix: store audits and their follow-up mail)
    growth,  # noqa: F401  (ads: writing and editing them)
    maintenance,
    model3d,  # noqa: F401  (3D previews)
    payments,  # noqa: F401  (payment confirmation and the sandbox provider's notifications)
    research,  # noqa: F401  (offers and analyses)
    store,  # noqa: F401  (storefront builds and publishing)
    surface,  # noqa: F401  (the commerce assistant and generated pages)
)
from jobs.send import SendInsideTransaction, send, start  # noqa: F401
