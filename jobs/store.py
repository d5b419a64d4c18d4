"""Store jobs: building a store's new version and publishing it (services/store/)."""
from jobs.runner import job_actor
from services import ai_tasks
from services.growth import ads
from services.store import builds, edits, intents, publish


# The jobs that write with the AI (a build, a publish that may regenerate, an edit) share
# one retry policy: an AI backend that cannot be reached is tried again after the same
# delays (services/ai_tasks.py). A model may take a while to answer: the lease is renewed
# while the job works.
@job_actor(builds.BUILD, retry_delays=ai_tasks.RETRY_DELAYS)
def build_store(ctx):
    """Builds a new version of a product's store through its stages, then starts its ad's job."""
    product_id = ctx.payload["product_id"]
    document, dropped = builds.generate(product_id, stage=ctx.stage)
    # One transaction holds the version, the build's done mark and the ad job's row (its own
    # subject, so it does not wait on this store's lock; it writes the ad from this version):
    # a worker that dies once it committed leaves the build done, never built twice, and
    # the ad job queued, sent by the runner or else by the reaper.
    with ctx.ending() as ending:
        ending.result = builds.save(product_id, document, dropped)
        ending.start(ads.request_after_build(product_id))
    return ending.result


@job_actor(publish.PUBLISH, retry_delays=ai_tasks.RETRY_DELAYS)
def publish_store(ctx):
    """Checks a store's newest version (regenerating it when the check demands) and publishes
    it; the ad is written again when the published headline is no longer the ad's."""
    result = publish.run(ctx.payload["product_id"], stage=ctx.stage, fenced=ctx.fenced)
    with ctx.ending() as ending:
        ending.result = result
        ending.start(ads.request_when_store_copy_changed(ctx.payload["product_id"]))
    return ending.result


@job_actor(intents.CHANGE, retry_delays=(2, 10, 30))
def change_store(ctx):
    """Writes the version an applied intent, a new leading section or a revert asked for."""
    return intents.run(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)


@job_actor(edits.EDIT, retry_delays=ai_tasks.RETRY_DELAYS)
def edit_store(ctx):
    """Turns a plain-language edit into a new version of the store (or the refusal the founder is told)."""
    return edits.run(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)
