"""Founder image uploads: a `data:` URL in, a clean image out, or a refusal.

An upload is trusted for nothing, and what it may cost is known before any pixel is decoded.
In order:

1. The `data:` URL must be base64 and decode to at most MAX_IMAGE_BYTES (past that:
   `images_too_large`). Its declared type is ignored: the content decides.
2. The first bytes must be those of a PNG, JPEG or WebP file (a GIF, an SVG, HTML or
   anything else: `invalid_images`).
3. The header is read here, from the file's own bytes (PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X),
   before Pillow sees the file: its width and height, whether it may carry transparency, a
   JPEG's components and whether it is progressive. From these alone come the size it is
   decoded at (a JPEG at 1/2, 1/4 or 1/8 scale when that still fills DECODE_SIDE, as Pillow's
   `draft` does), the size it is served at (fit in MAX_SIDE x MAX_SIDE), the memory decoding
   and scaling it holds (`Header.memory`) and the time preparing it takes (`Header.work_ms`:
   its bytes read, its pixels decoded, scaled and encoded, each at its measured worst cost).
   An image over MAX_PIXELS, or whose memory is over MAX_DECODE_BYTES, is refused
   (`invalid_images`), and so is a request whose new images would take more than
   MAX_REQUEST_MS together (`images_too_large`; `over_request_time`).
   The header comes from the first HEAD_BYTES of each upload (`head_of_data_url`), so a
   request is judged whole before any of its images is decoded in full.
4. The file's own structure is walked: it must end where the image ends (nothing appended:
   a PNG followed by HTML, a JPEG followed by a ZIP), and its metadata (every chunk or
   segment that is not pixel data) may hold no markup, script or ZIP record. Such a file
   is a polyglot, read one way by an image decoder and another way by a browser or an
   unzipper: refused, even though step 5 would leave none of it in what is served.
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

        Decoding and scaling: Pillow keeps 8-bit pixels in 4 bytes (1 for grey). A palette
        or colour-keyed image is turned into RGBA before it is scaled, and scaling an image
        with transparency works on a premultiplied copy, so a PNG holds 4 bytes a pixel, 8
        with transparency. libwebp decodes into a canvas of its own and hands Pillow a copy,
        which Pillow copies into the image, and more: WebP 18, 20 with transparency
        (measured). A JPEG holds its
        decoded (reduced) pixels, twice for CMYK, which is turned into RGB before scaling,
        and a progressive one also keeps every DCT coefficient at full size, 2 bytes a
        sample. Scaling adds the box-reduced image, the filter's horizontal pass (served
        width x decoded height) and the result, and the copy made at the end is served-sized.

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


def _png_header(raw: bytes) -> Header | None:
    if len(raw) < 33:
        return None
    if raw[12:16] != b"IHDR" or int.from_bytes(raw[8:12], "big") != 13:
        raise _invalid("a PNG without its header")
    width, height = int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
    colour = raw[25]
    alpha = colour in (3, 4, 6)  # palette (converted to RGB or RGBA), grey + alpha, RGBA
    if not alpha:
        # A tRNS chunk (one colour made transparent) comes before the first IDAT. If the
        # bytes at hand end first, count the image as transparent: an estimate only errs up.
        at = 33
        while True:
            if at + 8 > len(raw):
                alpha = True
                break
            kind = raw[at + 4:at + 8]
            if kind == b"IDAT":
                break
            if kind == b"tRNS":
                alpha = True
                break
            at += 12 + int.from_bytes(raw[at:at + 4], "big")
    return Header("PNG", width, height, alpha=alpha)


# Frame headers: baseline, extended and progressive, Huffman or arithmetic coded. The others
# (lossless, hierarchical) are exotic, and a decoder cannot read them at a reduced scale.
_SOF = {0xC0, 0xC1, 0xC2, 0xC9, 0xCA}
_OTHER_SOF = {0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF}
_PROGRESSIVE = {0xC2, 0xCA}


def _jpeg_header(raw: bytes) -> Header | None:
    """The first frame header (SOFn) after the metadata segments; None when the bytes at
    hand end before it."""
    at, n = 2, len(raw)
    while True:
        if at + 4 > n:
            return None
        if raw[at] != 0xFF:
            raise _invalid("a JPEG cut short or malformed")
        marker = raw[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            at += 2
            continue
        if marker in (0xD9, 0xDA):
            raise _invalid("a JPEG without a frame header")
        length = int.from_bytes(raw[at + 2:at + 4], "big")
        if length < 2:
            raise _invalid("a JPEG cut short or malformed")
        if marker in _OTHER_SOF:
            raise _invalid("a lossless or hierarchical JPEG: only baseline and progressive JPEGs are accepted")
        if marker in _SOF:
            if at + 2 + length > n:
                return None
            segment = raw[at + 4:at + 2 + length]
            if len(segment) < 6:
                raise _invalid("a JPEG cut short or malformed")
            height, width, count = int.from_bytes(segment[1:3], "big"), int.from_bytes(segment[3:5], "big"), segment[5]
            factors = [(segment[7 + 3 * i] >> 4, segment[7 + 3 * i] & 15) for i in range(count)
                       if 8 + 3 * i <= len(segment)]
            if count not in (1, 3, 4) or len(factors) != count or not all(h and v for h, v in factors):
                raise _invalid("a JPEG with components Pillow does not decode")
            most = max(h for h, _ in factors) * max(v for _, v in factors)
            samples = sum(h * v for h, v in factors) / most
            return Header("JPEG", width, height, components=count, samples=samples,
                          progressive=marker in _PROGRESSIVE)
        at += 2 + length


def _webp_header(raw: bytes) -> Header | None:
    if len(raw) < 30:
        return None
    chunk = raw[12:16]
    if chunk == b"VP8X":
        flags = raw[20]
        if flags & 0x02:
            raise _invalid("an animation: a store photo is one picture")
        return Header("WEBP", 1 + int.from_bytes(raw[24:27], "little"), 1 + int.from_bytes(raw[27:30], "little"),
                      alpha=bool(flags & 0x10))
    if chunk == b"VP8L":
        if raw[20] != 0x2F:
            raise _invalid("a WebP without its header")
        bits = int.from_bytes(raw[21:25], "little")
        return Header("WEBP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, alpha=bool(bits >> 28 & 1))
    if chunk == b"VP8 ":
        if raw[23:26] != b"\x9d\x01\x2a":
            raise _invalid("a WebP without its header")
        return Header("WEBP", int.from_bytes(raw[26:28], "little") & 0x3FFF,
                      int.from_bytes(raw[28:30], "little") & 0x3FFF)
    raise _invalid("a WebP without its header")


_HEADERS = {"PNG": _png_header, "JPEG": _jpeg_header, "WEBP": _webp_header}


def read_header(raw: bytes, size: int | None = None) -> Header | None:
    """The header of an upload (or of its first bytes, `size` being the whole upload's),
    unchecked; None when the bytes given end before it."""
    header = _HEADERS[sniff(raw)](raw)
    return None if header is None else replace(header, size=len(raw) if size is None else size)


def header_of(raw: bytes, size: int | None = None) -> Header | None:
    """The header of an upload (or of its first bytes, `size` being the whole upload's),
    checked against the caps of one image; None when the bytes given end before it."""
    header = read_header(raw, size)
    if header is None:
        return None
    if header.width < 1 or header.height < 1:
        raise _invalid(f"its header declares {header.width} x {header.height} pixels")
    if header.pixels > MAX_PIXELS:
        raise _invalid(f"{header.describe()} is {megapixels(header.pixels)} megapixels; an image may have at most "
                       f"{megapixels(MAX_PIXELS)}")
    if header.memory > MAX_DECODE_BYTES:
        width, height = _largest_within(header)
        raise _invalid(f"{header.describe()} takes about {header.memory // 1_000_000} MB to decode, and an image may "
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
        raise _invalid("not a base64 data: URL")
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
        raise _invalid("its base64 does not decode") from None


def head_of_data_url(url: str) -> Header:
    """The header of a `data:` URL's image, from its first HEAD_BYTES (the whole file only
    when a JPEG's frame header lies further in), checked against the caps of one image."""
    start, size = _payload(url)
    head_chars = HEAD_BYTES // 3 * 4
    head = _b64decode(url[start:start + head_chars])
    if not head:
        raise _invalid("it is empty")
    header = header_of(head, size)
    if header is None and len(url) - start > head_chars:
        header = header_of(_b64decode(url[start:]), size)
    if header is None:
        raise _invalid(f"a {sniff(head)} cut short")
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


# An 0xFF that starts a marker: not followed by a stuffed 0x00, a restart or another 0xFF (fill).
_NEXT_MARKER = re.compile(rb"\xff(?=[^\x00\xd0-\xd7\xff])")


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
            # Entropy-coded data runs to the next marker that is not a stuffed 0x00 or a
            # restart (one search in C: a noisy photo has an 0xFF every few hundred bytes).
            next_marker = _NEXT_MARKER.search(raw, at)
            if next_marker is None:
                raise _invalid("a JPEG cut short")
            at = next_marker.start()


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
        raise _invalid(f"a {kind} cut short")
    refuse_polyglot(raw, kind)
    with warnings.catch_warnings():
        # Past MAX_IMAGE_PIXELS Pillow only warns (it raises at twice that): both refuse here,
        # though MAX_PIXELS keeps every image this far well below Pillow's limit.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            opened = Image.open(io.BytesIO(raw), formats=[kind])
            try:
                if opened.size != (header.width, header.height):
                    raise _invalid("its header and its data disagree about its size")
                if kind != "JPEG" and getattr(opened, "n_frames", 1) > 1:
                    raise _invalid("an animation: a store photo is one picture")
                if kind == "JPEG":
                    opened.draft(None, header.draft_size)
                if opened.size != header.decoded:  # what the memory estimate counted on
                    raise _invalid(f"not a JPEG that can be decoded at {header.decoded[0]} x {header.decoded[1]}")
                opened.load()
                fresh = _served_pixels(opened, kind)
            finally:
                opened.close()
        except ImageRefused:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise _invalid(f"it declares more pixels than the {megapixels(MAX_PIXELS)} megapixels accepted "
                           "(a decompression bomb)") from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError):
            raise _invalid(f"not a readable {kind} image") from None
    return CleanImage(data=_encode(fresh, kind), format=kind, width=fresh.width, height=fresh.height)
