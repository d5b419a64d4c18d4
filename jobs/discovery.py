"""Discovery jobs: a discovery run for POST /api/discover, and the notice of a watch that
closed. The work lives in services (services/discovery/runs.py, services/watches.py)."""
from config import get_settings
from jobs.runner import job_actor
from services import discovery, watches

_TIMEOUT = get_settings().discover_timeout_seconds


@job_actor(discovery.DISCOVER, time_limit_ms=(_TIMEOUT + 90) * 1000)
def discover(ctx):
    """Runs scripts/discover.py for a discovery run and records what it printed."""
    ctx.stage("running")
    return discovery.run_script(ctx.payload)


@job_actor(watches.WATCH_NOTICE, retry_delays=(5, 30, 120))
def watch_notice(ctx):
    """Mails a watcher that the product they watched is available again (once)."""
    return watches.send_notice(ctx.payload["watch_id"])
