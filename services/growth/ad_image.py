"""The ad's image: an SVG composed here from the store's own product photo and the ad's
headline, rendered to PNG with resvg at each platform's sizes (services/growth/ad_limits.py).

The photo is the product's first image as the store shows it: a demo photo under
api/static/ (SVG, PNG or JPEG) or the founder's own upload (PNG, JPEG or WebP, already
checked and re-encoded when it was uploaded). It is embedded in the SVG as a data: URI and
only the markup is given to resvg, so nothing else can be pulled in and nothing is fetched.
A photo hosted elsewhere is never fetched: the image then shows the product's name on a
colour panel instead. The headline is escaped text, wrapped to the space it has.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from xml.sax.saxutils import escape

import resvg_py

from models.own_product import FounderImage
from services.model3d import MAX_PHOTO_BYTES, STATIC_DIR, STATIC_PREFIX, sans_serif_font, wrap
from services.store import own as own_details

BACKGROUND = "#F7F4EE"
BAND = "#1F2A30"
INK = "#FFFFFF"
ACCENT = "#E9C46A"
INK_RGB, BAND_RGB, ACCENT_RGB = ((255, 255, 255), (31, 42, 48), (233, 196, 106))
_TYPES = {".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


@dataclass(frozen=True)
class Photo:
    content_type: str
    data: bytes


def photo_of(product: dict) -> Photo | None:
    """The product's first image as the store shows it, when it is a file the service holds."""
    images = product.get("images") or []
    source = images[0] if images and isinstance(images[0], str) else ""
    if source.startswith(STATIC_PREFIX) and "?" not in source and "#" not in source:
        path = (STATIC_DIR / source[len(STATIC_PREFIX):]).resolve()
        # A catalog line is operator input: an address that climbs out of the folder is not a photo.
        if not path.is_relative_to(STATIC_DIR.resolve()) or path.suffix.lower() not in _TYPES:
            return None
        try:
            if not path.is_file() or path.stat().st_size > MAX_PHOTO_BYTES:
                return None
            return Photo(_TYPES[path.suffix.lower()], path.read_bytes())
        except OSError:
            return None
    # The founder's own upload: only one of this product's (image_of checks whose it is).
    upload = own_details.image_of(source, str(product.get("product_id") or ""))
    row = FounderImage.get_or_none(FounderImage.id == upload.id) if upload is not None else None
    return Photo(row.content_type, bytes(row.data)) if row is not None else None


def compose(*, width: int, height: int, headline: str, name: str, photo: Photo | None) -> str:
    """The ad's SVG at width x height: the photo, and the headline on a band beside or below it."""
    landscape = width > height
    if landscape:
        photo_box = (0, 0, height, height)
        text_box = (height, 0, width - height, height)
    else:
        band = round(height * (0.3 if height == width else 0.29))
        photo_box = (0, 0, width, height - band)
        text_box = (0, height - band, width, band)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">', f'<rect width="{width}" height="{height}" fill="{BACKGROUND}"/>']
    x, y, w, h = photo_box
    if photo is not None:
        uri = f"data:{photo.content_type};base64,{base64.b64encode(photo.data).decode('ascii')}"
        pad = round(min(w, h) * 0.06)
        parts.append(f'<image x="{x + pad}" y="{y + pad}" width="{w - 2 * pad}" height="{h - 2 * pad}" '
                     f'preserveAspectRatio="xMidYMid meet" href="{escape(uri)}"/>')
    else:
        parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{ACCENT}"/>')
        parts.append(_text_block(name, (x, y, w, h), size=round(min(w, h) / 9), fill=BAND, most=4))
    tx, ty, tw, th = text_box
    parts.append(f'<rect x="{tx}" y="{ty}" width="{tw}" height="{th}" fill="{BAND}"/>')
    parts.append(f'<rect x="{tx}" y="{ty}" width="{tw if not landscape else 12}" height="{12 if not landscape else th}" '
                 f'fill="{ACCENT}"/>')
    size = round(min(tw, th * 1.6) / 12) if not landscape else round(tw / 11)
    parts.append(_text_block(headline, text_box, size=size, fill=INK, most=3 if not landscape else 5))
    parts.append("</svg>")
    return "".join(parts)


def _text_block(text: str, box: tuple[int, int, int, int], *, size: int, fill: str, most: int) -> str:
    """Escaped text, wrapped to the box's width and centred in it."""
    x, y, w, h = box
    per_line = max(6, int(w * 0.86 / (size * 0.56)))
    lines = wrap(text, width=per_line, most=most)
    step = round(size * 1.2)
    top = y + (h - step * len(lines)) / 2 + size * 0.9
    spans = "".join(f'<tspan x="{x + w / 2:.0f}" y="{top + step * i:.0f}">{escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    return (f'<text font-family="sans-serif" font-size="{size}" font-weight="700" fill="{fill}" '
            f'text-anchor="middle">{spans}</text>')


def render(svg: str, *, width: int, height: int) -> bytes:
    """The SVG as a PNG of exactly width x height. Only the markup is given to resvg (no file
    path, no resources folder); the text is drawn with the first installed sans-serif font."""
    family, files = sans_serif_font()
    options = {"skip_system_fonts": True, "font_files": files, "background": BACKGROUND}
    if family:
        options["sans_serif_family"] = family
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, height=height, **options))


def images_for(*, sizes, headline: str, product: dict) -> list[tuple[int, int, bytes]]:
    """(width, height, PNG) of the ad's image at each size."""
    photo = photo_of(product)
    name = " ".join(str(product.get("name") or "").split())
    return [(width, height, render(compose(width=width, height=height, headline=headline, name=name, photo=photo),
                                   width=width, height=height)) for width, height in sizes]

