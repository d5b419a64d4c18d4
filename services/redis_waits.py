"""Redis as the edges (the app factory, the error handlers) see it: bound how long a call
waits, and tell an outage from a bug. (integrations/redis_client.py says why.)"""
from integrations.redis_client import UNREACHABLE, bound_redis_waits  # noqa: F401  (the edges use these names)
