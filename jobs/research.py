"""Research jobs: a product's offer and analysis (services/research/records.py)."""
from jobs.runner import job_actor
from services.research import records


@job_actor(records.RESEARCH, retry_delays=(2, 15, 60))
def research(ctx):
    """Computes and stores a product's offer and analysis."""
    return records.run(ctx.payload["product_id"], stage=ctx.stage, fenced=ctx.fenced)
