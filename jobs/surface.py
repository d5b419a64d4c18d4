"""The product surface's AI jobs: the commerce assistant's reading of a founder's sentence
(services/assistant.py) and a generated page (services/pages.py). The routes wait on both."""
from jobs.runner import job_actor
from services import ai_tasks, assistant, pages


# Both ask the AI: an AI backend that cannot be reached is tried again after the same
# delays as the store's jobs (services/ai_tasks.py).
@job_actor(assistant.KIND, retry_delays=ai_tasks.RETRY_DELAYS)
def route_sentence(ctx):
    """Reads what a founder's sentence asks for: a screen, an answer from their data, or a page."""
    return assistant.run(ctx.payload, stage=ctx.stage)


@job_actor(pages.KIND, retry_delays=ai_tasks.RETRY_DELAYS)
def write_page(ctx):
    """Writes a page for the founder's store through the AI seam and keeps it."""
    return pages.run(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)
