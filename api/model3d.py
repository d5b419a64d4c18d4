"""The 3D preview of the session's product (decisions.md "Research and verdict"): a flat card
textured with the product photo, as glTF 2.0 (services/model3d.py, built by the model3d job)."""
from flask import Response
from marshmallow import Schema, fields

from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services import gltf_card, model3d

bp = Blueprint("model3d", __name__, description="The 3D preview of the session's product.")

DECISIONS: list[str] = [
    f"GET /api/model (session): 200 {{status: {model3d.READY} | {model3d.BUILDING} | {model3d.NO_WORKER}, product_id, "
    f"url (when ready), description, texture: {model3d.PHOTO} | {model3d.NAME_CARD} | {model3d.PLAIN_CARD}, image (the "
    "photo's address)}; status no_worker also "
    "carries reason `no_worker` and an explanation (spec 7.2: no worker heard from within WORKER_STALE_SECONDS and "
    "no model ready). Without a resolved product: 200 `no_product`. The first call (and the first after the product's "
    f"photo changed) sends the `{model3d.MODEL3D}` job; the model is kept, one per product, until the photo changes.",
    "The model is a card, not a scan: a box "
    f"{gltf_card.CARD_WIDTH:g} m wide (the height follows the photo's aspect ratio) and {gltf_card.CARD_DEPTH:g} m deep "
    "whose front face is textured with the product photo; description says so in words: \""
    + model3d.DESCRIPTIONS[model3d.PHOTO] + "\" A demo photo (SVG under /static/) is rasterised to a "
    f"{model3d.TEXTURE_PX}-pixel-wide PNG with resvg (its text in the first of "
    + ", ".join(family for family, _files in model3d.FONT_FAMILIES) + " installed, else without its text); a PNG or "
    "JPEG under /static/ is used as it is. The photo is the one the product's store shows first: the founder's own "
    "images where they set them (POST /api/product), else the catalog's. A photo the founder uploaded (its /media/ "
    "address) is read from the service's own store of uploads, never fetched, and only when it is that product's: "
    f"fitted to {model3d.UPLOAD_TEXTURE_SIDE} x {model3d.UPLOAD_TEXTURE_SIDE} on white, a PNG kept PNG, a JPEG or WebP "
    "(no glTF core texture format) made JPEG; `image` is its /media/ address. A product with no photo at all gets "
    "the name card, and description says it has no photo yet instead of that it could not be read. A photo hosted "
    "elsewhere is never fetched (the service is offline by "
    f"default): the card then shows the product's name (texture {model3d.NAME_CARD}) and description says \""
    + model3d.DESCRIPTIONS[model3d.NAME_CARD] + f"\" (texture {model3d.PLAIN_CARD}, when no such font is installed: \""
    + model3d.DESCRIPTIONS[model3d.PLAIN_CARD] + "\").",
    f"GET /api/model/<product_id>.gltf serves the asset (Content-Type {model3d.GLTF_CONTENT_TYPE}; one "
    "self-contained glTF 2.0 JSON document, its buffer and PNG or JPEG image embedded as data: URIs) only to a session whose resolved "
    "product it is, like every founder-scoped read: a product claimed by one founder never surfaces on another's "
    "session. Anyone else, and a model not ready yet, gets 404 `not_found`.",
]


class ModelAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [model3d.READY, model3d.BUILDING, model3d.NO_WORKER]})
    product_id = fields.String(required=True)
    url = fields.String(metadata={"description": "Where the glTF asset is served (when ready)"})
    description = fields.String(required=True, metadata={"description": "What the asset honestly is"})
    texture = fields.String(required=True, metadata={"enum": [model3d.PHOTO, model3d.NAME_CARD,
                                                                              model3d.PLAIN_CARD]})
    image = fields.String(required=True, allow_none=True, metadata={"description": "The product photo's address"})
    reason = fields.String(metadata={"enum": ["no_worker"]})
    explanation = fields.String()


@bp.get("/api/model")
# It may create the model row and send its job: state-changing, so other sites cannot trigger it.
@bp.declare(changes_state=True, refuses={200: ["no_product"]})
@bp.response(200, ModelAnswer)
def model():
    """Answers the 3D preview of the session's product (a card textured with its photo), building it when needed."""
    answer, jobs = model3d.model_for(session=current_session())
    send_all(jobs)
    return answer


@bp.get("/api/model/<product_id>.gltf")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.response(200, {"type": "object", "description": "A glTF 2.0 document"}, content_type=model3d.GLTF_CONTENT_TYPE)
def model_asset(product_id):
    """Serves the glTF 2.0 asset of the session's product preview (only to the session whose product it is)."""
    document = model3d.asset_for(session=current_session(), product_id=product_id)
    return Response(document, content_type=model3d.GLTF_CONTENT_TYPE)
