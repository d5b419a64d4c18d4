"""Founder image uploads: a `data:` URL in, a clean image out, or a refusal.

An upload is trusted for nothing, and what it may cost is known before any pixel is decoded.
In order:

1. The `data:` URL must be base64 and decode to at most MAX_IMAGE_BYTES (past that:
   `images_too_large`). Its declared type is ignored: the content decides.
2. The first bytes must be those of a PNG, JPEG or WebP file (a GIF, an SVG, HTML or
   anything else: `invalid_images`).
3. The header is read from the file's own bytes (PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X:
   services/image_files.py), before Pillow sees the file: its width and height, whether it may
   carry transparency, a JPEG's components and whether it is progressive. From these alone come
   the size it is decoded at (a JPEG at 1/2, 1/4 or 1/8 scale when that still fills
   DECODE_SIDE, as Pillow's `draft` does), the size it is served at (fit in MAX_SIDE x
   MAX_SIDE), the memory decoding and scaling it holds (`Header.memory`) and the time preparing
   it takes (`Header.work_ms`: its bytes read, its pixels decoded, scaled and encoded, each at
   its measured worst cost). An image over MAX_PIXELS, or whose memory is over
   MAX_DECODE_BYTES, is refused (`invalid_images`), and so is a request whose new images would
   take more than MAX_REQUEST_MS together (`images_too_large`; `over_request_time`). The header
   comes from the first HEAD_BYTES of each upload (`head_of_data_url`), so a request is judged
   whole before any of its images is decoded in full.
4. The file's own structure is walked (services/image_files.py): nothing may follow the
   image's end, and its metadata may hold no markup, script or ZIP record (a polyglot).
5. Pillow opens it as that format only, and must see the sizes the header gave (Pillow's own
   decompression-bomb guard, MAX_IMAGE_PIXELS and DecompressionBombError, is turned into a
   refusal too, though the caps above are far below it). Animated PNG and WebP are refused
   (a store photo is one picture). The pixels are decoded (a JPEG at its reduced scale),
   scaled to fit MAX_SIDE x MAX_SIDE, turned upright by their EXIF orientation, copied into a
   new image that carries nothing else (EXIF, GPS, XMP, ICC profile, text chunks and
   comments are all left behind) and encoded again: PNG stays PNG (lossless), JPEG stays
   JPEG (quality 90), WebP stays WebP (quality 90). The encoded bytes are what is stored and
   served.

bench/images_bench.py measures what the caps allow: the dearest request they accept, in time
and memory, and checks that `Header.memory` is not below what decoding really holds.

Nothing here touches the database: services/own_product.py stores what `clean` returns.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import warnings
from dataclasses import dataclass, replace

from PIL import Image, ImageOps, UnidentifiedImageError

from services.image_files import FORMATS, HEADER_READERS, ImageRefused, invalid, refuse_polyglot, sniff

MAX_IMAGES = 8
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # one uploaded file, decoded (decisions.md: at most 5 MiB each)
# What is stored and served fits in MAX_SIDE x MAX_SIDE (proportions kept): a store page is at
# most 1,120 CSS pixels wide, so this covers a photo across it on a high-density screen; past
# that, pixels cost the founder's visitors bytes and this service time and memory.
MAX_SIDE = 2048
# A JPEG is decoded at the smallest of 1/8, 1/4, 1/2 and 1/1 scale that still fills
# DECODE_SIDE x DECODE_SIDE (libjpeg scales while decoding, for a fraction of the cost), so it
# is served 1024 to 2048 pixels on its long side: a 4032 x 3024 phone photo is decoded at
# 2016 x 1512 and needs no scaling after; only a JPEG under 2048 is decoded in full.
DECODE_SIDE = 1024
# One image, by its header: at most 25 megapixels (a 6000 x 4000 photo fits) ...
MAX_PIXELS = 25_000_000
# ... and at most this much memory held to clean it (Header.memory). A PNG or WebP is decoded
# whole, so its cap in pixels is lower (an opaque PNG about 6.7 megapixels, an opaque WebP 3, a
# WebP with transparency 1.4: libwebp is hungry); a baseline JPEG is decoded at its reduced
# scale, so any of 25 megapixels fits.
MAX_DECODE_BYTES = 64 * 1024 * 1024
# One request: the time its new images take to prepare together, estimated from their headers
# and sizes (Header.work_ms) in milliseconds of one core of the development machine, where
# bench/images_bench.py measured what each step costs at its worst (noise, which compresses
# least). Eight 12-megapixel phone photos of 4 MB fit (about 740 ms); the rest of the request
# (reading the body, storing the images) and a margin for a busy machine stay within the
# second the route is allowed.
MAX_REQUEST_MS = 800
MS_PER_MB = {"JPEG": 18, "PNG": 6, "WEBP": 6}  # per MB uploaded: base64, the structure walk; a JPEG's entropy decoding
DECODE_MS_PER_MP = {"JPEG": 5, "PNG": 15, "WEBP": 45}  # per megapixel decoded (a JPEG at its reduced scale)
PROGRESSIVE_MS_PER_MP = 30  # per megapixel of a progressive JPEG at full size: every coefficient is read and kept
SCALE_MS_PER_MP = 12  # per megapixel decoded, when it is scaled down ...
SCALE_ALPHA_MS_PER_MP = 20  # ... with transparency (on a premultiplied copy)
# Per megapixel served: encoding, hashing and storing it (noise in PNG is 3-4 bytes a pixel).
ENCODE_MS_PER_MP = {("JPEG", False): 5, ("PNG", False): 120, ("PNG", True): 170, ("WEBP", False): 95,
                    ("WEBP", True): 140}
# Bytes a pixel served holds while it is encoded: the image (4), the encoder's buffers and the
# output growing in memory, twice (noise compresses to 3-4 bytes a pixel in PNG). Measured
# with bench/images_bench.py: libwebp's encoder holds ~9 bytes a pixel of its own, ~30 when it
# also encodes an alpha plane.
ENCODE_BYTES = {("PNG", False): 11, ("PNG", True): 13, ("JPEG", False): 8,
                ("WEBP", False): 16, ("WEBP", True): 46}
CODEC_BYTES = 2 * 1024 * 1024  # the decoders' and encoders' own state, whatever the size
REDUCING_GAP = 2.0  # Pillow's: a box reduction by a whole factor first, then the filter over at most 2x
# The first bytes of an upload read for its header before anything is decoded in full
# (a JPEG whose frame header comes later, behind large metadata, is decoded whole for it).
HEAD_BYTES = 192 * 1024
# The longest data: URL worth decoding: a generous header plus the base64 of MAX_IMAGE_BYTES.
MAX_DATA_URL_CHARS = 200 + 4 * -(-MAX_IMAGE_BYTES // 3)
JPEG_QUALITY = WEBP_QUALITY = 90
PNG_COMPRESS_LEVEL = 1  # zlib's fastest: re-encoding a PNG is mostly filtering and deflating
WEBP_METHOD = 0  # libwebp's fastest effort at the same quality (files ~3 % larger than method 4)

_DATA_URL = re.compile(r"data:[\w.+-]*(?:/[\w.+-]+)?(?:;[\w.+-]+=[\w.+\"-]+)*;base64,", re.IGNORECASE)


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


def megapixels(pixels: float) -> str:
    return f"{pixels / 1_000_000:.1f}".removesuffix(".0")


# --- The header: what an upload will cost, before any pixel is decoded -----------------------------

@dataclass(frozen=True)
class Header:
    """What an upload's header says, read from its first bytes."""

    kind: str  # PNG, JPEG or WEBP
    width: int
    height: int
    alpha: bool = False  # may carry transparency (decoded, then scaled, as RGBA)
    components: int = 3  # JPEG: 1 grey, 3 colour, 4 CMYK
    samples: float = 3.0  # JPEG: coefficient samples per pixel, over all components (4:2:0 colour: 1.5)
    progressive: bool = False  # JPEG: every coefficient is held until the last scan
    size: int = 0  # bytes of the whole upload

    @property
    def pixels(self) -> int:
        return self.width * self.height

    @property
    def decoded(self) -> tuple[int, int]:
        """The size Pillow decodes it at: a JPEG at its reduced scale (Pillow's `draft`
        asked for `draft_size`), anything else in full."""
        if self.kind != "JPEG":
            return self.width, self.height
        target = self.draft_size
        scale = min(self.width // target[0], self.height // target[1])
        step = next(s for s in (8, 4, 2, 1) if scale >= s)
        return -(-self.width // step), -(-self.height // step)

    @property
    def draft_size(self) -> tuple[int, int]:
        return fit(self.width, self.height, DECODE_SIDE)

    @property
    def served(self) -> tuple[int, int]:
        """The size it is stored and served at: what was decoded, scaled down to fit MAX_SIDE."""
        return fit(*self.decoded, MAX_SIDE)

    @property
    def scaled(self) -> bool:
        return self.served != self.decoded

    @property
    def decoded_pixels(self) -> int:
        return self.decoded[0] * self.decoded[1]

    @property
    def served_pixels(self) -> int:
        return self.served[0] * self.served[1]

    @property
    def work_ms(self) -> float:
        """What it counts against MAX_REQUEST_MS: the estimated milliseconds to read, decode,
        scale and encode it, each step at its measured worst cost."""
        ms = self.size / 1e6 * MS_PER_MB[self.kind]
        if self.progressive:
            ms += self.pixels / 1e6 * PROGRESSIVE_MS_PER_MP
        else:
            ms += self.decoded_pixels / 1e6 * DECODE_MS_PER_MP[self.kind]
        if self.scaled:
            ms += self.decoded_pixels / 1e6 * (SCALE_ALPHA_MS_PER_MP if self.alpha else SCALE_MS_PER_MP)
        return ms + self.served_pixels / 1e6 * ENCODE_MS_PER_MP[self.kind, self.alpha]

    @property
    def memory(self) -> int:
        """Bytes held at the peak of cleaning it, the larger of its two phases
        (bench/images_bench.py sets this beside the process's peak RSS growth).

        Decoding and scaling: Pillow keeps 8-bit pixels in 4 bytes (1 for grey). A palette or
        colour-keyed image is turned into RGBA before it is scaled, and scaling an image with
        transparency works on a premultiplied copy, so a PNG holds 4 bytes a pixel, 8 with
        transparency. libwebp decodes into a canvas of its own and hands Pillow a copy, which
        Pillow copies into the image, and more: WebP 18, 20 with transparency (measured). A JPEG
        holds its decoded (reduced) pixels, twice for CMYK, which is turned into RGB before
        scaling, and a progressive one also keeps every DCT coefficient at full size, 2 bytes a
        sample. Scaling adds the box-reduced image, the filter's horizontal pass (served width x
        decoded height) and the result, and the copy made at the end is served-sized.

        Encoding, once the decoded pixels are let go: the served image and the encoder's
        own buffers and output, per served pixel (ENCODE_BYTES; libwebp's alpha encoder is
        the hungry one), plus CODEC_BYTES of the codecs' own state."""
        decoded, (served_w, served_h) = self.decoded_pixels, self.served
        if self.kind == "PNG":
            held = decoded * (8 if self.alpha else 4)
        elif self.kind == "WEBP":
            held = decoded * (20 if self.alpha else 18)
        else:
            held = decoded * {1: 1, 3: 4}.get(self.components, 8)
            if self.progressive:
                held += int(self.pixels * self.samples * 2)
        served = served_w * served_h * 4
        encoding = served_w * served_h * ENCODE_BYTES[self.kind, self.alpha]
        if not self.scaled:
            return CODEC_BYTES + max(held + served, encoding)
        width, height = self.decoded
        fx = int(width / served_w / REDUCING_GAP) or 1
        fy = int(height / served_h / REDUCING_GAP) or 1
        reduced = -(-width // fx) * -(-height // fy) * 4 if fx > 1 or fy > 1 else 0
        return CODEC_BYTES + max(held + reduced + served_w * -(-height // fy) * 4 + served * (2 if self.alpha else 1),
                                 encoding)

    def describe(self) -> str:
        name = {"PNG": "PNG", "JPEG": "JPEG", "WEBP": "WebP"}[self.kind]
        if self.kind == "JPEG":
            kind = ("progressive " if self.progressive else "") + ("CMYK " if self.components == 4 else "") + name
        else:
            kind = name + (" with transparency" if self.alpha else "")
        return f"a {self.width} x {self.height} {kind}"


def fit(width: int, height: int, side: int = MAX_SIDE) -> tuple[int, int]:
    """(width, height) scaled down, proportions kept, to fit side x side."""
    longest = max(width, height)
    if longest <= side:
        return width, height
    return max(1, round(width * side / longest)), max(1, round(height * side / longest))


def read_header(raw: bytes, size: int | None = None) -> Header | None:
    """The header of an upload (or of its first bytes, `size` being the whole upload's),
    unchecked; None when the bytes given end before it."""
    kind = sniff(raw)
    fields = HEADER_READERS[kind](raw)
    return None if fields is None else Header(kind, size=len(raw) if size is None else size, **fields)


def header_of(raw: bytes, size: int | None = None) -> Header | None:
    """The header of an upload (or of its first bytes, `size` being the whole upload's),
    checked against the caps of one image; None when the bytes given end before it."""
    header = read_header(raw, size)
    if header is None:
        return None
    if header.width < 1 or header.height < 1:
        raise invalid(f"its header declares {header.width} x {header.height} pixels")
    if header.pixels > MAX_PIXELS:
        raise invalid(f"{header.describe()} is {megapixels(header.pixels)} megapixels; an image may have at most "
                       f"{megapixels(MAX_PIXELS)}")
    if header.memory > MAX_DECODE_BYTES:
        width, height = _largest_within(header)
        raise invalid(f"{header.describe()} takes about {header.memory // 1_000_000} MB to decode, and an image may "
                       f"take at most {MAX_DECODE_BYTES // 1_000_000}: scale it down to about {width} x {height} "
                       "(or send it as a JPEG)")
    return header


def most_pixels(kind: str, *, alpha: bool = False) -> int:
    """The most pixels a square image of this kind may have within MAX_DECODE_BYTES (for the
    documents; a baseline JPEG is limited by MAX_PIXELS alone)."""
    width, height = _largest_within(Header(kind, 5000, 5000, alpha=alpha))
    return min(width * height, MAX_PIXELS)


def _largest_within(header: Header) -> tuple[int, int]:
    """The largest size of the same proportions and kind whose memory is within MAX_DECODE_BYTES."""
    low, high = 0.0, 1.0
    for _ in range(30):
        middle = (low + high) / 2
        smaller = replace(header, width=max(1, int(header.width * middle)), height=max(1, int(header.height * middle)))
        low, high = (middle, high) if smaller.memory <= MAX_DECODE_BYTES else (low, middle)
    return max(1, int(header.width * low)), max(1, int(header.height * low))


def _payload(url: str) -> tuple[int, int]:
    """Where the base64 of a `data:` URL starts and how many bytes it decodes to; refused
    when it is no such URL or decodes past MAX_IMAGE_BYTES (known from its length alone)."""
    if len(url) > MAX_DATA_URL_CHARS:
        raise ImageRefused("images_too_large", f"larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MiB")
    match = _DATA_URL.match(url)
    if match is None:
        raise invalid("not a base64 data: URL")
    start = match.end()
    size = (len(url) - start) // 4 * 3 - (len(url[-2:]) - len(url[-2:].rstrip("=")) if len(url) - start >= 2 else 0)
    if size > MAX_IMAGE_BYTES:
        raise ImageRefused("images_too_large", f"{size:,} bytes, more than {MAX_IMAGE_BYTES:,} "
                                               f"({MAX_IMAGE_BYTES // (1024 * 1024)} MiB)")
    return start, size


def _b64decode(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise invalid("its base64 does not decode") from None


def head_of_data_url(url: str) -> Header:
    """The header of a `data:` URL's image, from its first HEAD_BYTES (the whole file only
    when a JPEG's frame header lies further in), checked against the caps of one image."""
    start, size = _payload(url)
    head_chars = HEAD_BYTES // 3 * 4
    head = _b64decode(url[start:start + head_chars])
    if not head:
        raise invalid("it is empty")
    header = header_of(head, size)
    if header is None and len(url) - start > head_chars:
        header = header_of(_b64decode(url[start:]), size)
    if header is None:
        raise invalid(f"a {sniff(head)} cut short")
    return header


def over_request_time(headers: list[Header]) -> tuple[int, float] | None:
    """(index, total ms) of the image at which the request's estimated time passes
    MAX_REQUEST_MS, with the estimate for all of them; None when they stay within it."""
    running, passed = 0.0, None
    for index, header in enumerate(headers):
        running += header.work_ms
        if passed is None and running > MAX_REQUEST_MS:
            passed = index
    return None if passed is None else (passed, running)


def decode_data_url(url: str) -> bytes:
    """The bytes of a base64 `data:` URL, at most MAX_IMAGE_BYTES of them."""
    raw = _b64decode(url[_payload(url)[0]:])
    if not raw:
        raise invalid("it is empty")
    return raw


# --- Decoding and encoding again -------------------------------------------------------------------

def _output_mode(image: Image.Image, kind: str) -> str:
    has_alpha = "A" in image.getbands() or "transparency" in image.info
    grey = image.mode in ("1", "L") or image.mode.startswith("I")  # "I;16": a 16-bit grey PNG
    if kind == "JPEG":
        return "L" if grey else "RGB"
    if grey and not has_alpha:
        return "L"
    return "RGBA" if has_alpha else "RGB"


def _to_8_bits(value):
    return value / 257


def _replace(old: Image.Image, new: Image.Image) -> Image.Image:
    """`new`, once `old`'s pixels are let go (so the two are held together only briefly)."""
    if new is not old:
        old.close()
    return new


def _served_pixels(opened: Image.Image, kind: str) -> Image.Image:
    """A new image holding the pixels alone, scaled to the served size and upright, in a
    mode the output format takes. `opened` is closed on the way."""
    mode = _output_mode(opened, kind)
    image = opened
    if image.mode.startswith("I"):
        # 16-bit grey: converting it as it is would clip every value over 255 to white. Its
        # transparent value, if any, is scaled with it (8 bits may merge it with neighbours).
        key, source_mode = image.info.get("transparency"), image.mode
        image = _replace(image, image.point(_to_8_bits))
        if isinstance(key, int):
            image.info["transparency"] = Image.new(source_mode, (1, 1), key).point(_to_8_bits).getpixel((0, 0))
    # Palette, bilevel, 16-bit and colour-keyed images are converted before scaling: Pillow
    # scales a palette image by picking pixels, not averaging them, and averaging would blur
    # a key colour into its neighbours instead of making it transparent.
    if image.mode not in ("L", "RGB", "RGBA") or "transparency" in image.info:
        image = _replace(image, image.convert(mode))
    size = fit(*image.size)
    if size != image.size:
        image = _replace(image, image.resize(size, Image.Resampling.BICUBIC, reducing_gap=REDUCING_GAP))
    ImageOps.exif_transpose(image, in_place=True)
    if image.mode != mode:
        image = _replace(image, image.convert(mode))
    # A copy whose `info` is emptied: no EXIF, ICC profile or text can ride along (in the
    # modes kept here a Pillow image holds nothing else but its pixels).
    fresh = image.copy()
    fresh.info.clear()
    return _replace(image, fresh)


def _encode(image: Image.Image, kind: str) -> bytes:
    out = io.BytesIO()
    if kind == "PNG":
        image.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    elif kind == "JPEG":
        image.save(out, "JPEG", quality=JPEG_QUALITY)
    else:
        image.save(out, "WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)
    return out.getvalue()


def clean(raw: bytes) -> CleanImage:
    """The upload as a clean image of the same format (see the module docstring), or
    ImageRefused. The caps of one image are checked here again (`header_of`); the request's
    time is the caller's to check first, with `head_of_data_url` and `over_request_time`."""
    kind = sniff(raw)
    header = header_of(raw)
    if header is None:
        raise invalid(f"a {kind} cut short")
    refuse_polyglot(raw, kind)
    with warnings.catch_warnings():
        # Past MAX_IMAGE_PIXELS Pillow only warns (it raises at twice that): both refuse here,
        # though MAX_PIXELS keeps every image this far well below Pillow's limit.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            opened = Image.open(io.BytesIO(raw), formats=[kind])
            try:
                if opened.size != (header.width, header.height):
                    raise invalid("its header and its data disagree about its size")
                if kind != "JPEG" and getattr(opened, "n_frames", 1) > 1:
                    raise invalid("an animation: a store photo is one picture")
                if kind == "JPEG":
                    opened.draft(None, header.draft_size)
                if opened.size != header.decoded:  # what the memory estimate counted on
                    raise invalid(f"not a JPEG that can be decoded at {header.decoded[0]} x {header.decoded[1]}")
                opened.load()
                fresh = _served_pixels(opened, kind)
            finally:
                opened.close()
        except ImageRefused:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise invalid(f"it declares more pixels than the {megapixels(MAX_PIXELS)} megapixels accepted "
                           "(a decompression bomb)") from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError):
            raise invalid(f"not a readable {kind} image") from None
    return CleanImage(data=_encode(fresh, kind), format=kind, width=fresh.width, height=fresh.height)
