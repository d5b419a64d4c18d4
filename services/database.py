"""The database as the edges (the app factory, request teardown, the CLI) see it: open it,
give the connection back, migrate it, and tell an outage from a bug."""
from models.db import (  # noqa: F401  (the edges use these names)
    UNAVAILABLE,
    close_connection,
    init_db,
    waiting_at_most,
    without_statement_timeout,
)
from models.migrate import pending as pending_migrations  # noqa: F401
from models.migrate import upgrade as upgrade_schema  # noqa: F401
