"""Growth jobs: writing a founder's ad and changing it in plain language (services/growth/ads.py), and
organic research (services/growth/organic.py)."""
from jobs.runner import job_actor
from services import ai_tasks
from services.growth import ads, organic


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
