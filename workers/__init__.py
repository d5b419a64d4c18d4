"""How worker processes are built: the broker, middleware, the clock and the in-process worker.

Nothing here imports `jobs`; the worker command names both (`dramatiq workers.broker jobs`).
"""
