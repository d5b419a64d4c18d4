"""Founder image uploads: a `data:` URL in, a clean image out, or a refusal.

An upload is trusted for nothing, and what it may cost is known before any pixel is decoded.
In order:

1. The `data:` URL must be base64 and decode to at most MAX_IMAGE_BYTES (past that:
   `images_too_large`). Its declared type is ignored: the content decides.
2. The first bytes must be those of a PNG, JPEG or WebP file (a GIF, an SVG, HTML or
   anything else: `invalid_images`).
3. The header is read here, from the file's own bytes (PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X),
   before Pillow sees the file: its width and height, whether it may carry transparency, a
   JPEG's components and whether it is progressive. From these alone come the pixels the
   decoder will produce (a JPEG larger than the served size is decoded at 1/2, 1/4 or 1/8
   scale, as Pillow's `draft` does) and an estimate of the memory decoding and scaling it
   holds (`Header.memory`). An image over MAX_PIXELS, or whose estimate is over
   MAX_DECODE_BYTES, is refused (`invalid_images`), and so is a request whose images decode
   more than MAX_REQUEST_PIXELS together (`images_too_large`; `over_request_total`). The
   header comes from the first HEAD_BYTES of the upload (`head_of_data_url`), so a request
   is judged whole before any of its images is decoded in full.
4. The file's own structure is walked: it must end where the image ends (nothing appended:
   a PNG followed by HTML, a JPEG followed by a ZIP), and its metadata (every chunk or
   segment that is not pixel data) may hold no markup, script or ZIP record. Such a file
   is a polyglot, read one way by an image decoder and another way by a browser or an
   unzipper: refused, even though step 5 would leave none of it in what is served.
5. Pillow opens it as that format only, and must see the size the header gave (Pillow's own
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
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

MAX_IMAGES = 8
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # one uploaded file, decoded (decisions.md: at most 5 MiB each)
# The served size: an image is scaled down to fit MAX_SIDE x MAX_SIDE. A store page is at most
# 1,120 CSS pixels wide and a photo takes part of it, so 1600 covers a high-density screen;
# past that, extra pixels only cost the founder's visitors bytes and this service time.
MAX_SIDE = 1600
# One image, by its header: at most 25 megapixels (a 6000 x 4000 photo fits) ...
MAX_PIXELS = 25_000_000
# ... and at most this much memory held to decode and scale it (Header.memory): a PNG or WebP
# is decoded whole, so its cap in pixels is lower (a PNG with transparency: 8.4 megapixels, a
# WebP without: 5.6); a JPEG is decoded at its reduced scale, so a 24-megapixel photo fits.
MAX_DECODE_BYTES = 64 * 1024 * 1024
# One request: the pixels its images decode together (a JPEG at its reduced scale, a
# progressive one in full). Decoding is the part of the cost that grows with an image's
# pixels; re-encoding is bounded by MAX_SIDE. Eight 12-megapixel phone photos decode 24.
MAX_REQUEST_PIXELS = 32_000_000
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

    @property
    def pixels(self) -> int:
        return self.width * self.height

    @property
    def served(self) -> tuple[int, int]:
        """The size it is stored and served at: scaled down to fit MAX_SIDE x MAX_SIDE."""
        return fit(self.width, self.height)

    @property
    def decoded(self) -> tuple[int, int]:
        """The size Pillow decodes it at: a JPEG at the smallest of 1/8, 1/4, 1/2 and 1/1
        scale that still covers the served size (this is Pillow's `draft`), else in full."""
        if self.kind != "JPEG":
            return self.width, self.height
        target = self.served
        scale = min(self.width // target[0], self.height // target[1])
        step = next(s for s in (8, 4, 2, 1) if scale >= s)
        return -(-self.width // step), -(-self.height // step)

    @property
    def decoded_pixels(self) -> int:
        width, height = self.decoded
        return width * height

    @property
    def request_pixels(self) -> int:
        """What it counts against MAX_REQUEST_PIXELS: the pixels decoded, and a progressive
        JPEG in full (all of its coefficients are read and kept, whatever the scale)."""
        return self.pixels if self.progressive else self.decoded_pixels

    @property
    def memory(self) -> int:
        """Bytes held at the peak of decoding and scaling it (bench/images_bench.py checks
        this against the process's peak RSS). Pillow keeps 8-bit pixels in 4 bytes (1 for
        grey). Scaling an image with transparency works on a premultiplied copy, and a
        palette or colour-keyed image is turned into RGBA before it is scaled (the original
        is let go first), so PNG: 8 bytes a pixel with transparency, else 5. libwebp decodes
        into a canvas of its own, hands Pillow a copy, and Pillow copies that into the image:
        WebP 12, 16 with transparency. A JPEG holds its decoded (reduced) pixels, twice for
        CMYK, which is turned into RGB before scaling; a progressive one also keeps every
        DCT coefficient at full size, 2 bytes a sample."""
        if self.kind == "PNG":
            return self.pixels * (8 if self.alpha else 5)
        if self.kind == "WEBP":
            return self.pixels * (16 if self.alpha else 12)
        per_pixel = {1: 2, 3: 5}.get(self.components, 9)
        held = self.decoded_pixels * per_pixel
        if self.progressive:
            held += int(self.pixels * self.samples * 2)
        return held

    def describe(self) -> str:
        name = {"PNG": "PNG", "JPEG": "JPEG", "WEBP": "WebP"}[self.kind]
        if self.kind == "JPEG":
            kind = ("progressive " if self.progressive else "") + ("CMYK " if self.components == 4 else "") + name
        else:
            kind = name + (" with transparency" if self.alpha else "")
        return f"a {self.width} x {self.height} {kind}"


def fit(width: int, height: int) -> tuple[int, int]:
    """(width, height) scaled down, proportions kept, to fit MAX_SIDE x MAX_SIDE."""
    longest = max(width, height)
    if longest <= MAX_SIDE:
        return width, height
    return max(1, round(width * MAX_SIDE / longest)), max(1, round(height * MAX_SIDE / longest))


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


def header_of(raw: bytes) -> Header | None:
    """The header of an upload (or of its first bytes), checked against the caps of one
    image; None when the bytes given end before it."""
    header = _HEADERS[sniff(raw)](raw)
    if header is None:
        return None
    if header.width < 1 or header.height < 1:
        raise _invalid(f"its header declares {header.width} x {header.height} pixels")
    if header.pixels > MAX_PIXELS:
        raise _invalid(f"{header.describe()} is {megapixels(header.pixels)} megapixels; an image may have at most "
                       f"{megapixels(MAX_PIXELS)}")
    if header.memory > MAX_DECODE_BYTES:
        most = header.pixels * MAX_DECODE_BYTES // header.memory
        raise _invalid(f"{header.describe()} takes about {header.memory // 1_000_000} MB to decode and an image may "
                       f"take at most {MAX_DECODE_BYTES // 1_000_000}; such an image may have about "
                       f"{megapixels(most // 100_000 * 100_000)} megapixels: scale it down (or send it as a JPEG)")
    return header


def _payload(url: str) -> str:
    """The base64 of a `data:` URL, refused when it is no such URL or decodes past MAX_IMAGE_BYTES."""
    if len(url) > MAX_DATA_URL_CHARS:
        raise ImageRefused("images_too_large", f"larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MiB")
    match = _DATA_URL.match(url)
    if match is None:
        raise _invalid("not a base64 data: URL")
    payload = url[match.end():]
    size = len(payload) // 4 * 3 - len(payload[-2:]) + len(payload[-2:].rstrip("="))
    if size > MAX_IMAGE_BYTES:
        raise ImageRefused("images_too_large", f"{size:,} bytes, more than {MAX_IMAGE_BYTES:,} "
                                               f"({MAX_IMAGE_BYTES // (1024 * 1024)} MiB)")
    return payload


def _b64decode(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _invalid("its base64 does not decode") from None


def head_of_data_url(url: str) -> Header:
    """The header of a `data:` URL's image, from its first HEAD_BYTES (the whole file only
    when a JPEG's frame header lies further in), checked against the caps of one image."""
    payload = _payload(url)
    head = _b64decode(payload[:HEAD_BYTES // 3 * 4])
    if not head:
        raise _invalid("it is empty")
    header = header_of(head)
    if header is None and len(payload) > HEAD_BYTES // 3 * 4:
        header = header_of(_b64decode(payload))
    if header is None:
        raise _invalid(f"a {sniff(head)} cut short")
    return header


def over_request_total(headers: list[Header]) -> tuple[int, int] | None:
    """(index, total) of the image at which the request's decoded pixels pass
    MAX_REQUEST_PIXELS, with the total of all of them; None when they stay within it."""
    running, passed = 0, None
    for index, header in enumerate(headers):
        running += header.request_pixels
        if passed is None and running > MAX_REQUEST_PIXELS:
            passed = index
    return None if passed is None else (passed, running)


def decode_data_url(url: str) -> bytes:
    """The bytes of a base64 `data:` URL, at most MAX_IMAGE_BYTES of them."""
    raw = _b64decode(_payload(url))
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

def _output_mode(image: Image.Image, kind: str) -> str:
    has_alpha = "A" in image.getbands() or "transparency" in image.info
    if kind == "JPEG":
        return "L" if image.mode in ("1", "L") else "RGB"
    if image.mode in ("1", "L") and not has_alpha:
        return "L"
    return "RGBA" if has_alpha else "RGB"


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
    # Palette, bilevel, 16-bit and colour-keyed images are converted before scaling: Pillow
    # scales a palette image by picking pixels, not averaging them, and averaging would blur
    # a key colour into its neighbours instead of making it transparent.
    if image.mode not in ("L", "RGB", "RGBA") or "transparency" in image.info:
        image = _replace(image, image.convert(mode))
    size = fit(*image.size)
    if size != image.size:
        # reducing_gap: first a cheap box reduction by a whole factor, then Lanczos over the
        # last factor of at most 2 (Pillow's own speed-up; the result looks the same).
        image = _replace(image, image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0))
    ImageOps.exif_transpose(image, in_place=True)
    if image.mode != mode:
        image = _replace(image, image.convert(mode))
    # frombytes: a fresh image with an empty `info`, so no EXIF, ICC profile or text can ride along.
    return _replace(image, Image.frombytes(mode, image.size, image.tobytes()))


def _encode(image: Image.Image, kind: str) -> bytes:
    out = io.BytesIO()
    if kind == "PNG":
        image.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    elif kind == "JPEG":
        image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    else:
        image.save(out, "WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)
    return out.getvalue()


def clean(raw: bytes) -> CleanImage:
    """The upload as a clean image of the same format (see the module docstring), or
    ImageRefused. The caps of one image are checked here again (`header_of`); the request's
    total is the caller's to check first, with `head_of_data_url` and `over_request_total`."""
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
                    opened.draft(None, header.served)
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
