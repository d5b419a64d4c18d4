"""The 3D preview job: builds the session product's card (services/model3d.py)."""
from jobs.runner import job_actor
from services import model3d


@job_actor(model3d.MODEL3D, retry_delays=(2, 10, 30), time_limit_ms=120_000)
def build_model(ctx):
    """Builds a product's 3D preview card from its photo and stores it (once per photo)."""
    product_id = ctx.payload["product_id"]
    if model3d.is_current(product_id):
        return {"product_id": product_id, "skipped": "already built from the current photo"}
    ctx.stage("rendering")
    asset = model3d.build_asset(product_id)
    if asset is None:
        return {"product_id": product_id, "skipped": "no such product"}
    with ctx.fenced():
        model3d.store_asset(asset)
    return {"product_id": product_id, "texture": asset.texture, "bytes": len(asset.gltf)}
