"""Background work: Dramatiq actors and the helper that sends them.

workers.broker is imported first so the broker is set before any actor is declared.
"""
import workers.broker  # noqa: F401  (must come first: sets the broker)
from jobs import accounts, maintenance  # noqa: F401  (declares the actors)
from jobs import discovery  # noqa: F401  (discovery runs and watch notices)
from jobs import research  # noqa: F401  (offers and analyses)
from jobs import brief  # noqa: F401  (the nightly research brief)
from jobs import model3d  # noqa: F401  (3D previews)
from jobs import store  # noqa: F401  (storefront builds and publishing)
from jobs import payments  # noqa: F401  (payment confirmation and the sandbox provider's notifications)
from jobs.send import SendInsideTransaction, send, start  # noqa: F401
