"""Growth jobs: writing a founder's ad and changing it in plain language (services/growth/ads.py), and
organic research (services/growth/organic.py)."""
import logging

import dramatiq

from jobs.runner import job_actor
from services import ai_tasks
from services.growth import ads, delivery, organic

log = logging.getLogger("jobs.growth")


# Both write with the AI: an AI backend that cannot be reached is tried again after the
# same delays as the store's jobs (services/ai_tasks.py). Rendering the images takes about
# a second on a development machine.
@job_actor(ads.AD_BUILD, retry_delays=ai_tasks.RETRY_DELAYS)
def build_ad(ctx):
    """Writes the ad of a founder's product for both platforms, with its images (metered `ad`)."""
    return ads.run(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)


@job_actor(ads.AD_EDIT, retry_delays=ai_tasks.RETRY_DELAYS)
def edit_ad(ctx):
    """Turns a plain-language growth edit into a new version of the ad (or the refusal the founder is told)."""
    return ads.run_edit(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)


@job_actor(organic.KIND, retry_delays=ai_tasks.RETRY_DELAYS)
def research_organic(ctx):
    """Researches unpaid campaigns for a founder's product through the AI seam and keeps them."""
    return organic.run(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def deliver_ads():
    """The clock's hourly pass over the ads (services/growth/delivery.py): launches and pauses
    campaigns as founders set them, records and pays each ended day's delivery once, pauses
    campaigns a balance cannot pay for or that miss their bars. A pass that stops half-way is
    carried on by the next: every step is idempotent."""
    counts = delivery.deliver()
    if any(counts.values()):
        log.info("ads delivered", extra={"fields": counts})
