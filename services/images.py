"""Founder image uploads: a `data:` URL in, a clean image out, or a refusal.

An upload is trusted for nothing. In order:

1. The `data:` URL must be base64 and decode to at most MAX_IMAGE_BYTES (past that:
   `images_too_large`). Its declared type is ignored: the content decides.
2. The first bytes must be those of a PNG, JPEG or WebP file (a GIF, an SVG, HTML or
   anything else: `invalid_images`).
3. The file's own structure is walked: it must end where the image ends (nothing appended:
   a PNG followed by HTML, a JPEG followed by a ZIP), and its metadata (every chunk or
   segment that is not pixel data) may hold no markup, script or ZIP record. Such a file
   is a polyglot, read one way by an image decoder and another way by a browser or an
   unzipper: refused, even though step 5 would leave none of it in what is served.
4. Pillow opens it as that format only. Its pixel count is read from the header before any
   decoding and capped at MAX_PIXELS; Pillow's own decompression-bomb guard
   (MAX_IMAGE_PIXELS, DecompressionBombError) is turned into a refusal as well. Animated
   PNG and WebP are refused (a store photo is one picture).
5. The pixels are decoded, turned upright by their EXIF orientation, copied into a new
   image that carries nothing else (EXIF, GPS, XMP, ICC profile, text chunks and comments
   are all left behind) and encoded again: PNG stays PNG (lossless), JPEG stays JPEG
   (quality 90), WebP stays WebP (quality 90). The encoded bytes are what is stored and
   served.

Nothing here touches the database: services/own_product.py stores what `clean` returns.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

MAX_IMAGES = 8
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # one uploaded file, decoded (decisions.md: at most 5 MiB each)
MAX_PIXELS = 25_000_000  # 25 megapixels: a 6000 x 4000 photo fits; decoding one takes ~100 MB
# The longest data: URL worth decoding: a generous header plus the base64 of MAX_IMAGE_BYTES.
MAX_DATA_URL_CHARS = 200 + 4 * -(-MAX_IMAGE_BYTES // 3)
JPEG_QUALITY = WEBP_QUALITY = 90

# Format -> (content type, file extension) of what is stored and served.
FORMATS = {"PNG": ("image/png", "png"), "JPEG": ("image/jpeg", "jpg"), "WEBP": ("image/webp", "webp")}

_DATA_URL = re.compile(r"data:[\w.+-]*(?:/[\w.+-]+)?(?:;[\w.+-]+=[\w.+\"-]+)*;base64,", re.IGNORECASE)
# What may not appear in an image's metadata: markup a browser would run, a PHP opening tag,
# a javascript: URL, or a ZIP record (a local file header or the end of a central directory).
_FOREIGN = re.compile(rb"<\s*(?:script|html|body|iframe|object|embed|style|svg[\s/>])|<\?php|<!doctype|javascript:"
                      rb"|PK\x03\x04|PK\x05\x06", re.IGNORECASE)


class ImageRefused(Exception):
    """An upload that cannot be used: `reason` is invalid_images or images_too_large, `detail` says why."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class CleanImage:
    data: bytes
    format: str  # PNG, JPEG or WEBP
    width: int
    height: int

    @property
    def content_type(self) -> str:
        return FORMATS[self.format][0]

    @property
    def extension(self) -> str:
        return FORMATS[self.format][1]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def _invalid(detail: str) -> ImageRefused:
    return ImageRefused("invalid_images", detail)


def decode_data_url(url: str) -> bytes:
    """The bytes of a base64 `data:` URL, at most MAX_IMAGE_BYTES of them."""
    if len(url) > MAX_DATA_URL_CHARS:
        raise ImageRefused("images_too_large", f"larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MiB")
    match = _DATA_URL.match(url)
    if match is None:
        raise _invalid("not a base64 data: URL")
    try:
        raw = base64.b64decode(url[match.end():], validate=True)
    except (binascii.Error, ValueError):
        raise _invalid("its base64 does not decode") from None
    if len(raw) > MAX_IMAGE_BYTES:
        raise ImageRefused("images_too_large", f"{len(raw):,} bytes, more than {MAX_IMAGE_BYTES:,} "
                                               f"({MAX_IMAGE_BYTES // (1024 * 1024)} MiB)")
    if not raw:
        raise _invalid("it is empty")
    return raw


def sniff(raw: bytes) -> str:
    """PNG, JPEG or WEBP by the file's first bytes; anything else is refused, naming what it is when known."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if raw.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "WEBP"
    head = raw[:512].lstrip().lower()
    if raw.startswith((b"GIF87a", b"GIF89a")):
        raise _invalid("a GIF: only PNG, JPEG and WebP images are accepted")
    if b"<svg" in head or head.startswith(b"<?xml"):
        raise _invalid("an SVG (which can carry script): only PNG, JPEG and WebP images are accepted")
    raise _invalid("not a PNG, JPEG or WebP image")


# --- The file's structure: where it ends, and what its metadata holds ---------------------------

def _png_metadata(raw: bytes) -> list[bytes]:
    """The payloads of a PNG's chunks other than pixel data; refuses bytes after IEND."""
    at, found = 8, []
    while True:
        if at + 12 > len(raw):
            raise _invalid("a PNG cut short")
        length = int.from_bytes(raw[at:at + 4], "big")
        kind = raw[at + 4:at + 8]
        end = at + 12 + length
        if end > len(raw):
            raise _invalid("a PNG cut short")
        if kind not in (b"IDAT", b"fdAT"):
            found.append(raw[at + 8:at + 8 + length])
        at = end
        if kind == b"IEND":
            break
    if at != len(raw):
        raise _invalid("something else is appended to the PNG")
    return found


def _jpeg_end(raw: bytes, at: int, found: list[bytes]) -> int:
    """Walks one JPEG from its SOI at `at` to its EOI; returns the offset after EOI and
    collects each marker segment's payload (the entropy-coded pixel data is skipped)."""
    n = len(raw)
    if raw[at:at + 2] != b"\xff\xd8":
        raise _invalid("something else is appended to the JPEG")
    at += 2
    while True:
        if at >= n or raw[at] != 0xFF:
            raise _invalid("a JPEG cut short or malformed")
        while at < n and raw[at] == 0xFF:
            at += 1  # fill bytes
        if at >= n:
            raise _invalid("a JPEG cut short")
        marker = raw[at]
        at += 1
        if marker == 0xD9:
            return at
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            continue
        if at + 2 > n:
            raise _invalid("a JPEG cut short")
        length = int.from_bytes(raw[at:at + 2], "big")
        if length < 2 or at + length > n:
            raise _invalid("a JPEG cut short or malformed")
        found.append(raw[at + 2:at + length])
        at += length
        if marker == 0xDA:
            # Entropy-coded data runs to the next marker that is not a stuffed 0x00 or a restart.
            while True:
                ff = raw.find(b"\xff", at)
                if ff < 0 or ff + 1 >= n:
                    raise _invalid("a JPEG cut short")
                following = raw[ff + 1]
                if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
                    at = ff + 1
                    continue
                at = ff
                break


def _jpeg_metadata(raw: bytes) -> list[bytes]:
    """The payloads of a JPEG's marker segments; refuses anything after its end but further
    JPEG images (a multi-picture file, as some cameras write, is a series of JPEGs)."""
    found: list[bytes] = []
    at = _jpeg_end(raw, 0, found)
    while at < len(raw):
        at = _jpeg_end(raw, at, found)
    return found


def _webp_metadata(raw: bytes) -> list[bytes]:
    """The payloads of a WebP's chunks other than pixel data; refuses bytes past the RIFF size."""
    if len(raw) < 12 or int.from_bytes(raw[4:8], "little") + 8 != len(raw):
        raise _invalid("something else is appended to the WebP (or it is cut short)")
    at, found = 12, []
    while at < len(raw):
        if at + 8 > len(raw):
            raise _invalid("a WebP cut short")
        kind, size = raw[at:at + 4], int.from_bytes(raw[at + 4:at + 8], "little")
        end = at + 8 + size + (size & 1)
        if end > len(raw):
            raise _invalid("a WebP cut short")
        if kind not in (b"VP8 ", b"VP8L", b"ALPH", b"ANMF"):
            found.append(raw[at + 8:at + 8 + size])
        at = end
    return found


_METADATA = {"PNG": _png_metadata, "JPEG": _jpeg_metadata, "WEBP": _webp_metadata}


def refuse_polyglot(raw: bytes, kind: str) -> None:
    """Refuses a file that is more than one image: bytes after its end, or markup, script or
    a ZIP record in its metadata."""
    for payload in _METADATA[kind](raw):
        if _FOREIGN.search(payload):
            raise _invalid("its metadata holds markup, script or an archive (a file that is also something else)")


# --- Decoding and encoding again -------------------------------------------------------------------

def _pixels_only(image: Image.Image, kind: str) -> Image.Image:
    """A new image holding the pixels alone, in a mode the output format takes."""
    upright = ImageOps.exif_transpose(image)
    has_alpha = "A" in upright.getbands() or "transparency" in upright.info
    if kind == "JPEG":
        mode = "L" if upright.mode in ("1", "L") else "RGB"
    elif upright.mode in ("1", "L") and not has_alpha:
        mode = "L"
    else:
        mode = "RGBA" if has_alpha else "RGB"
    converted = upright.convert(mode)
    # frombytes: a fresh image with an empty `info`, so no EXIF, ICC profile or text can ride along.
    return Image.frombytes(mode, converted.size, converted.tobytes())


def _encode(image: Image.Image, kind: str) -> bytes:
    out = io.BytesIO()
    if kind == "PNG":
        image.save(out, "PNG")
    elif kind == "JPEG":
        image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    else:
        image.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    return out.getvalue()


def clean(raw: bytes) -> CleanImage:
    """The upload as a clean image of the same format (see the module docstring), or ImageRefused."""
    kind = sniff(raw)
    refuse_polyglot(raw, kind)
    with warnings.catch_warnings():
        # Past MAX_IMAGE_PIXELS Pillow only warns (it raises at twice that): both refuse here.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(raw), formats=[kind]) as image:
                width, height = image.size
                if width < 1 or height < 1 or width * height > MAX_PIXELS:
                    raise _invalid(f"{width} x {height} pixels: at most {MAX_PIXELS // 1_000_000} megapixels")
                if kind != "JPEG" and getattr(image, "n_frames", 1) > 1:
                    raise _invalid("an animation: a store photo is one picture")
                image.load()
                fresh = _pixels_only(image, kind)
        except ImageRefused:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise _invalid(f"it declares more pixels than the {MAX_PIXELS // 1_000_000} megapixels accepted "
                           "(a decompression bomb)") from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError):
            raise _invalid(f"not a readable {kind} image") from None
    return CleanImage(data=_encode(fresh, kind), format=kind, width=fresh.width, height=fresh.height)
