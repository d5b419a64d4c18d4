"""The 3D preview of the session's product (GET /api/model): a flat card, textured with
the product photo, as a glTF 2.0 asset. It is a card, not a scan of the product, and
every answer says so.

The `model3d` job builds it (jobs/model3d.py calls `build_asset` and `store_asset`):

- A demo photo (an SVG under api/static/) is rasterised to PNG with resvg (the
  `resvg-py` wheel: Rust, no system library), because glTF core textures are PNG or
  JPEG only. A PNG or JPEG under api/static/ is used as it is.
- A photo the founder uploaded (/media/<id>.<ext>, services/own_product.py) is read from
  the database, where the store serves it from, and fitted to UPLOAD_TEXTURE_SIDE: a PNG
  stays PNG, a JPEG or WebP (no glTF core texture format) becomes JPEG.
- A photo anywhere else (a supplier feed's https address) is never fetched: the service
  is offline by default and fetching would make the build depend on another site. The
  card then shows the product's name instead, and its description says exactly that.

The photo is the one the store shows: the founder's own images where they set them, else
the catalog's (services/store/own.py), so an own product's upload is its card's picture.

The asset is one .gltf JSON document with its buffer and its image embedded as data:
URIs (services/gltf_card.py writes it), stored on the product's row and served at
/api/model/<product_id>.gltf to the session whose product it is (the resolver's visibility rule: a product claimed by one
founder never surfaces on another's session).
"""
from __future__ import annotations

import functools
import io
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote
from xml.sax.saxutils import escape

import resvg_py
from PIL import Image, UnidentifiedImageError

from config import ROOT, get_settings
from models.catalog import Product
from models.clock import utcnow
from models.db import transaction
from models.job import Job
from models.model3d import Model3D
from models.own_product import FounderImage
from models.session import Session
from services.discovery import resolve
from services.errors import Refused
from services.gltf_card import Texture, card_gltf
from services.health import worker_status
from services.jobs import create_job
from services.store import own as own_details

MODEL3D = "model3d"  # the job kind

READY = Model3D.READY
BUILDING = Model3D.BUILDING
NO_WORKER = "no_worker"

PHOTO = "photo"  # the texture is the product photo
NAME_CARD = "name_card"  # the texture shows the product's name (no readable photo)
PLAIN_CARD = "plain_card"  # no readable photo, and no font installed to write the name with

DESCRIPTIONS = {
    PHOTO: "A flat card textured with the product photo, not a scan of the product.",
    NAME_CARD: ("A flat card showing the product's name in plain text, not a scan of the product: its photo is not a "
                "file the service holds (a photo hosted elsewhere is never fetched), or could not be read."),
    PLAIN_CARD: ("A flat plain card, not a scan of the product: its photo is not a file the service holds (a photo "
                 "hosted elsewhere is never fetched), or could not be read, and no font is installed to write its "
                 "name with."),
}
# A product with no photo at all (a founder's own product saved without one): the same cards,
# said truthfully, since there is no photo that could not be read.
NO_PHOTO_DESCRIPTIONS = {
    NAME_CARD: "A flat card showing the product's name in plain text, not a scan of the product: it has no photo yet.",
    PLAIN_CARD: ("A flat plain card, not a scan of the product: it has no photo yet, and no font is installed to "
                 "write its name with."),
}

GLTF_CONTENT_TYPE = "model/gltf+json"
# Where the catalog's local photo paths (/static/...) live: the app's static folder.
STATIC_DIR = ROOT / "api" / "static"
STATIC_PREFIX = "/static/"
MAX_PHOTO_BYTES = 5 * 1024 * 1024  # the founder-product image ceiling (decisions.md) applies to catalog photos too
TEXTURE_PX = 512  # the width a vector photo is rasterised at (a power of two: mipmaps on every viewer)
# An upload is stored at up to 2048 x 2048; the preview is drawn a few hundred pixels wide, and
# the whole texture travels base64 inside the glTF document, so it is fitted to this first.
UPLOAD_TEXTURE_SIDE = 1024
CARD_BACKGROUND = "#FFFFFF"  # what shows through a photo's transparent parts

# Sans-serif fonts the photos' text can be drawn with, first found wins: resvg is given
# these files only, so the texture does not depend on which other fonts a host has.
# With none of them installed the photo's shapes and colours still render, its text does not.
FONT_FAMILIES = (
    ("DejaVu Sans", ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")),
    ("Liberation Sans", ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf")),
    ("Noto Sans", ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf")),
    ("FreeSans", ("FreeSans.ttf", "FreeSansBold.ttf")),
)
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")


# --- The answer of GET /api/model -------------------------------------------------------------

def asset_url(product_id: str) -> str:
    return f"/api/model/{quote(product_id, safe='')}.gltf"


def model_for(*, session: Session) -> tuple[dict, list[Job]]:
    """Answers the 3D preview of the session's product: ready (with its URL), building, or
    no_worker; asks for the build when there is no current model. Returns (answer, jobs to send)."""
    resolved = resolve(session)
    if resolved is None:
        raise Refused("no_product", "You have no product yet, so there is nothing to preview in 3D. Find one and "
                                    "hold or claim it first.")
    product = Product.get_or_none(Product.product_id == resolved.product_id)
    if product is None:  # removed from the catalog since it was resolved
        raise Refused("no_product", "Your product is no longer in the catalog, so there is nothing to preview.")
    source = shown_photo(product)
    row = Model3D.get_or_none(Model3D.product == product.product_id)
    if row is not None and row.status == READY and row.source == source:
        return _answer(row.status, product, source, row), []
    now = utcnow()
    with transaction():
        # Marked building in the same transaction as its job. A row that became ready for
        # this very photo meanwhile (its job just finished) is left alone.
        (Model3D.insert(product=product.product_id, status=BUILDING, source=source, created_at=now, updated_at=now)
         .on_conflict(conflict_target=[Model3D.product],
                      update={Model3D.status: BUILDING, Model3D.source: source, Model3D.updated_at: now},
                      where=(Model3D.status != READY) | (Model3D.source != source))
         .execute())
        row = Model3D.get(Model3D.product == product.product_id)
        if row.status == READY and row.source == source:
            return _answer(READY, product, source, row), []
        job, created = create_job(kind=MODEL3D, subject=f"model3d:{product.product_id}",
                                  payload={"product_id": product.product_id}, max_attempts=3)
    # Spec 7.2: with no worker heard from, nothing would build it; the product stays a
    # photograph for now (the job stays queued and runs once a worker is back).
    if not worker_status(stale_seconds=get_settings().worker_stale_seconds)["heard_from"]:
        return _answer(NO_WORKER, product, source, None), [job] if created else []
    return _answer(BUILDING, product, source, None), [job] if created else []


def _answer(status: str, product: Product, source: str, row: Model3D | None) -> dict:
    texture = row.texture if status == READY and row is not None and row.texture else texture_kind(source)
    body = {"status": status, "product_id": product.product_id}
    if status == READY:
        body["url"] = asset_url(product.product_id)
    body["description"] = row.description if status == READY and row.description else describe(texture, source)
    body["texture"] = texture
    body["image"] = source or None
    if status == NO_WORKER:
        # What the founder sees and what happens next, not how the service runs its jobs:
        # the job stays queued and builds the preview once a worker takes it.
        body.update(reason="no_worker", explanation=(
            "The 3D preview cannot be built right now, so your product is shown as its photograph for now; "
            "the preview is built by itself as soon as building starts again, with nothing for you to do."))
    return body


def asset_for(*, session: Session, product_id: str) -> str:
    """The glTF document of the product's preview, for the session whose product it is;
    anyone else learns nothing, not even whether it exists."""
    resolved = resolve(session)
    row = None
    if resolved is not None and resolved.product_id == product_id:
        row = Model3D.get_or_none(Model3D.product == product_id, Model3D.status == READY)
    if row is None or not row.gltf:
        raise Refused("not_found", "There is no 3D preview at this address for your product. GET /api/model builds "
                                   "it and answers its address once it is ready.")
    return row.gltf


# --- Building the asset (the model3d job) ------------------------------------------------------

@dataclass(frozen=True)
class Asset:
    product_id: str
    source: str
    texture: str
    description: str
    gltf: str


def shown_photo(product: Product) -> str:
    """The address of the photo the product's store shows first: the founder's own images
    where they set them (an own product's uploads live only there), else the catalog's; ""
    for none."""
    own = own_details.override_of(product.product_id)
    images = own.images if own is not None and own.images is not None else product.images
    first = (images or [""])[0]
    return first if isinstance(first, str) else ""


def texture_kind(source: str) -> str:
    """What the texture will be for this photo address (a file that then fails to read
    still falls back to the name card)."""
    if _static_path(source) is not None or own_details.parse_media_url(source) is not None:
        return PHOTO
    return NAME_CARD if sans_serif_font()[0] else PLAIN_CARD


def describe(texture: str, source: str) -> str:
    """What the card honestly is, in words: a card without its photo says whether there was one."""
    if texture != PHOTO and not source:
        return NO_PHOTO_DESCRIPTIONS[texture]
    return DESCRIPTIONS[texture]


def build_asset(product_id: str) -> Asset | None:
    """Builds the product's card from its current photo (None when the product is gone)."""
    product = Product.get_or_none(Product.product_id == product_id)
    if product is None:
        return None
    source = shown_photo(product)
    name = own_details.name_of(product_id) or product.name  # the founder's own name where they set one
    texture = photo_texture(source, product_id=product_id) or name_card_texture(product, name=name)
    document = card_gltf(texture, name=name)
    return Asset(product_id=product_id, source=source, texture=texture.kind, description=describe(texture.kind, source),
                 gltf=json.dumps(document, separators=(",", ":")))


def store_asset(asset: Asset) -> None:
    """Stores the built card on the product's row (inside the job's fenced transaction)."""
    now = utcnow()
    values = {Model3D.status: READY, Model3D.source: asset.source, Model3D.texture: asset.texture,
              Model3D.description: asset.description, Model3D.gltf: asset.gltf, Model3D.updated_at: now}
    (Model3D.insert(product=asset.product_id, status=READY, source=asset.source, texture=asset.texture,
                    description=asset.description, gltf=asset.gltf, created_at=now, updated_at=now)
     .on_conflict(conflict_target=[Model3D.product], update=values)
     .execute())


def is_current(product_id: str) -> bool:
    """Whether the product's card is already built from its current photo (a redelivered
    job has nothing to do)."""
    product = Product.get_or_none(Product.product_id == product_id)
    row = Model3D.get_or_none(Model3D.product == product_id)
    return product is not None and row is not None and row.status == READY and row.source == shown_photo(product)


def _static_path(source: str) -> Path | None:
    """The file a /static/... photo address names, if it is one inside the static folder."""
    if not source.startswith(STATIC_PREFIX) or "?" in source or "#" in source:
        return None
    path = (STATIC_DIR / source[len(STATIC_PREFIX):]).resolve()
    # A catalog line is operator input: an address that climbs out of the folder is not a photo.
    if not path.is_relative_to(STATIC_DIR.resolve()) or path.suffix.lower() not in (".svg", ".png", ".jpg", ".jpeg"):
        return None
    return path


def photo_texture(source: str, *, product_id: str | None = None) -> Texture | None:
    """The photo as a PNG or JPEG texture, or None when it is not a local file or an upload
    of this product that reads."""
    if product_id is not None and own_details.parse_media_url(source) is not None:
        return upload_texture(source, product_id)
    path = _static_path(source)
    if path is None:
        return None
    try:
        if not path.is_file() or path.stat().st_size > MAX_PHOTO_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if data.startswith(PNG_SIGNATURE) or data.startswith(JPEG_SIGNATURE):
        size = image_size(data)
        if size is None:
            return None
        return Texture(PHOTO, data, "image/png" if data.startswith(PNG_SIGNATURE) else "image/jpeg", *size)
    if path.suffix.lower() != ".svg":
        return None
    try:
        png = rasterise_svg(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    size = image_size(png)
    return Texture(PHOTO, png, "image/png", *size) if size else None


def upload_texture(source: str, product_id: str) -> Texture | None:
    """A photo the founder uploaded for this product, from the database (the store serves it
    from there): fitted to UPLOAD_TEXTURE_SIDE, flattened on the card's white (the material
    ignores alpha), PNG kept PNG and the rest (JPEG, WebP, which glTF core cannot carry) JPEG.
    Another product's upload is never read, even if its address were named."""
    image_id, extension = own_details.parse_media_url(source)
    image = FounderImage.get_or_none(FounderImage.id == image_id, FounderImage.extension == extension,
                                     FounderImage.product == product_id)
    if image is None:
        return None
    try:
        with Image.open(io.BytesIO(bytes(image.data))) as decoded:
            decoded.thumbnail((UPLOAD_TEXTURE_SIDE, UPLOAD_TEXTURE_SIDE))
            picture = decoded.convert("RGBA")
    except (OSError, UnidentifiedImageError, Image.DecompressionBombError):
        return None
    flat = Image.new("RGB", picture.size, CARD_BACKGROUND)
    flat.paste(picture, mask=picture.getchannel("A"))
    out = io.BytesIO()
    if image.content_type == "image/png":
        flat.save(out, "PNG", compress_level=6)
        mime = "image/png"
    else:
        flat.save(out, "JPEG", quality=90)
        mime = "image/jpeg"
    return Texture(PHOTO, out.getvalue(), mime, *flat.size)


def name_card_texture(product: Product, *, name: str | None = None) -> Texture:
    """A card that shows the product's name (`name`, else the catalog's) and category in plain
    text; a plain card when no font is installed to write it with (its description must not
    promise a name)."""
    kind = NAME_CARD if sans_serif_font()[0] else PLAIN_CARD
    lines = wrap(name or product.name, width=20, most=5, empty="(unnamed)")
    top = 256 - 22 * len(lines)
    text = "".join(f'<tspan x="256" y="{top + 44 * i + 30}">{escape(line)}</tspan>' for i, line in enumerate(lines))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512">'
           '<rect width="512" height="512" fill="#2F3E46"/>'
           '<rect x="16" y="16" width="480" height="480" rx="28" fill="none" stroke="#CAD2C5" stroke-width="4"/>'
           f'<text font-family="sans-serif" font-size="36" font-weight="700" fill="#FFFFFF" '
           f'text-anchor="middle">{text}</text>'
           f'<text x="256" y="460" font-family="sans-serif" font-size="20" fill="#CAD2C5" '
           f'text-anchor="middle">{escape(product.category[:40])}</text></svg>')
    png = rasterise_svg(svg)
    width, height = image_size(png)
    return Texture(kind, png, "image/png", width, height)


def wrap(text: str, *, width: int, most: int, empty: str = "") -> list[str]:
    """The text's words in lines of at most `width` characters, at most `most` lines (the last
    cut with an ellipsis); [empty] for no words. The 3D card and the ad image draw text with it."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = lines[-1][: width - 1].rstrip() + "…"
    return lines or [empty]


def rasterise_svg(svg: str) -> bytes:
    """Renders SVG markup to PNG, TEXTURE_PX wide. Only the markup is given to resvg (no
    file path, no resources folder), so a photo cannot pull in other files; resvg never
    reaches the network."""
    family, files = sans_serif_font()
    # Opaque: the material ignores alpha, so a photo's transparent corners would show as
    # black; on white they match the card's light edges.
    options = {"skip_system_fonts": True, "font_files": files, "background": CARD_BACKGROUND}
    if family:
        options["sans_serif_family"] = family
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=TEXTURE_PX, **options))


@functools.cache
def sans_serif_font() -> tuple[str | None, list[str]]:
    """The first of FONT_FAMILIES installed on this host: (family, its files)."""
    found: dict[str, str] = {}
    wanted = {name for _family, names in FONT_FAMILIES for name in names}
    for folder in FONT_DIRS:
        for directory, _dirs, files in os.walk(folder):
            for name in files:
                if name in wanted and name not in found:
                    found[name] = os.path.join(directory, name)
    for family, names in FONT_FAMILIES:
        if names[0] in found:
            return family, [found[name] for name in names if name in found]
    return None, []


# --- Image sizes ---------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SIGNATURE = b"\xff\xd8\xff"


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG or JPEG, read from its header; None when unreadable."""
    if data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return (width, height) if width and height else None
    if data.startswith(JPEG_SIGNATURE):
        at = 2
        while at + 9 < len(data):
            if data[at] != 0xFF:
                return None
            marker = data[at + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length follows these
                at += 2
                continue
            length = struct.unpack(">H", data[at + 2:at + 4])[0]
            # Start-of-frame markers (C0-CF but C4, C8, CC) carry the size.
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                height, width = struct.unpack(">HH", data[at + 5:at + 9])
                return (width, height) if width and height else None
            at += 2 + length
    return None
