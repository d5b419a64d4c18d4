"""PNG, JPEG and WebP files read from their own bytes, before Pillow sees them (the steps of
services/images.py that need no decoder): which of the three a file is (`sniff`), what its
header declares (`HEADER_READERS`: PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X), and its structure.

The structure is walked whole (`refuse_polyglot`): a file must end where the image ends
(nothing appended: a PNG followed by HTML, a JPEG followed by a ZIP), and its metadata (every
chunk or segment that is not pixel data) may hold no markup, script or ZIP record. Such a
file is a polyglot, read one way by an image decoder and another way by a browser or an
unzipper: refused, even though re-encoding would leave none of it in what is served.
"""
from __future__ import annotations

import re

# Format -> (content type, file extension) of what is stored and served.
FORMATS = {"PNG": ("image/png", "png"), "JPEG": ("image/jpeg", "jpg"), "WEBP": ("image/webp", "webp")}


class ImageRefused(Exception):
    """An upload that cannot be used: `reason` is invalid_images or images_too_large, `detail` says why."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail

def invalid(detail: str) -> ImageRefused:
    return ImageRefused("invalid_images", detail)

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
        raise invalid("a GIF: only PNG, JPEG and WebP images are accepted")
    if b"<svg" in head or head.startswith(b"<?xml"):
        raise invalid("an SVG (which can carry script): only PNG, JPEG and WebP images are accepted")
    raise invalid("not a PNG, JPEG or WebP image")


# --- The header: size, transparency, a JPEG's components --------------------------------------

def _png_header(raw: bytes) -> dict | None:
    if len(raw) < 33:
        return None
    if raw[12:16] != b"IHDR" or int.from_bytes(raw[8:12], "big") != 13:
        raise invalid("a PNG without its header")
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
    return dict(width=width, height=height, alpha=alpha)


# Frame headers: baseline, extended and progressive, Huffman or arithmetic coded. The others
# (lossless, hierarchical) are exotic, and a decoder cannot read them at a reduced scale.
_SOF = {0xC0, 0xC1, 0xC2, 0xC9, 0xCA}
_OTHER_SOF = {0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF}
_PROGRESSIVE = {0xC2, 0xCA}


def _jpeg_header(raw: bytes) -> dict | None:
    """The first frame header (SOFn) after the metadata segments; None when the bytes at
    hand end before it."""
    at, n = 2, len(raw)
    while True:
        if at + 4 > n:
            return None
        if raw[at] != 0xFF:
            raise invalid("a JPEG cut short or malformed")
        marker = raw[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            at += 2
            continue
        if marker in (0xD9, 0xDA):
            raise invalid("a JPEG without a frame header")
        length = int.from_bytes(raw[at + 2:at + 4], "big")
        if length < 2:
            raise invalid("a JPEG cut short or malformed")
        if marker in _OTHER_SOF:
            raise invalid("a lossless or hierarchical JPEG: only baseline and progressive JPEGs are accepted")
        if marker in _SOF:
            if at + 2 + length > n:
                return None
            segment = raw[at + 4:at + 2 + length]
            if len(segment) < 6:
                raise invalid("a JPEG cut short or malformed")
            height, width, count = int.from_bytes(segment[1:3], "big"), int.from_bytes(segment[3:5], "big"), segment[5]
            factors = [(segment[7 + 3 * i] >> 4, segment[7 + 3 * i] & 15) for i in range(count)
                       if 8 + 3 * i <= len(segment)]
            if count not in (1, 3, 4) or len(factors) != count or not all(h and v for h, v in factors):
                raise invalid("a JPEG with components Pillow does not decode")
            most = max(h for h, _ in factors) * max(v for _, v in factors)
            samples = sum(h * v for h, v in factors) / most
            return dict(width=width, height=height, components=count, samples=samples,
                        progressive=marker in _PROGRESSIVE)
        at += 2 + length


def _webp_header(raw: bytes) -> dict | None:
    if len(raw) < 30:
        return None
    chunk = raw[12:16]
    if chunk == b"VP8X":
        flags = raw[20]
        if flags & 0x02:
            raise invalid("an animation: a store photo is one picture")
        return dict(width=1 + int.from_bytes(raw[24:27], "little"), height=1 + int.from_bytes(raw[27:30], "little"),
                    alpha=bool(flags & 0x10))
    if chunk == b"VP8L":
        if raw[20] != 0x2F:
            raise invalid("a WebP without its header")
        bits = int.from_bytes(raw[21:25], "little")
        return dict(width=(bits & 0x3FFF) + 1, height=((bits >> 14) & 0x3FFF) + 1, alpha=bool(bits >> 28 & 1))
    if chunk == b"VP8 ":
        if raw[23:26] != b"\x9d\x01\x2a":
            raise invalid("a WebP without its header")
        return dict(width=int.from_bytes(raw[26:28], "little") & 0x3FFF,
                    height=int.from_bytes(raw[28:30], "little") & 0x3FFF)
    raise invalid("a WebP without its header")


# Format -> its header reader: the fields of an images.Header, or None when the bytes at hand end first.
HEADER_READERS = {"PNG": _png_header, "JPEG": _jpeg_header, "WEBP": _webp_header}


# --- The structure: where the file ends, and what its metadata holds ----------------------------

# What may not appear in an image's metadata: markup a browser would run, a PHP opening tag,
# a javascript: URL, or a ZIP record (a local file header or the end of a central directory).
_FOREIGN = re.compile(rb"<\s*(?:script|html|body|iframe|object|embed|style|svg[\s/>])|<\?php|<!doctype|javascript:"
                      rb"|PK\x03\x04|PK\x05\x06", re.IGNORECASE)


def _png_metadata(raw: bytes) -> list[bytes]:
    """The payloads of a PNG's chunks other than pixel data; refuses bytes after IEND."""
    at, found = 8, []
    while True:
        if at + 12 > len(raw):
            raise invalid("a PNG cut short")
        length = int.from_bytes(raw[at:at + 4], "big")
        kind = raw[at + 4:at + 8]
        end = at + 12 + length
        if end > len(raw):
            raise invalid("a PNG cut short")
        if kind not in (b"IDAT", b"fdAT"):
            found.append(raw[at + 8:at + 8 + length])
        at = end
        if kind == b"IEND":
            break
    if at != len(raw):
        raise invalid("something else is appended to the PNG")
    return found


# An 0xFF that starts a marker: not followed by a stuffed 0x00, a restart or another 0xFF (fill).
_NEXT_MARKER = re.compile(rb"\xff(?=[^\x00\xd0-\xd7\xff])")


def _jpeg_end(raw: bytes, at: int, found: list[bytes]) -> int:
    """Walks one JPEG from its SOI at `at` to its EOI; returns the offset after EOI and
    collects each marker segment's payload (the entropy-coded pixel data is skipped)."""
    n = len(raw)
    if raw[at:at + 2] != b"\xff\xd8":
        raise invalid("something else is appended to the JPEG")
    at += 2
    while True:
        if at >= n or raw[at] != 0xFF:
            raise invalid("a JPEG cut short or malformed")
        while at < n and raw[at] == 0xFF:
            at += 1  # fill bytes
        if at >= n:
            raise invalid("a JPEG cut short")
        marker = raw[at]
        at += 1
        if marker == 0xD9:
            return at
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            continue
        if at + 2 > n:
            raise invalid("a JPEG cut short")
        length = int.from_bytes(raw[at:at + 2], "big")
        if length < 2 or at + length > n:
            raise invalid("a JPEG cut short or malformed")
        found.append(raw[at + 2:at + length])
        at += length
        if marker == 0xDA:
            # Entropy-coded data runs to the next marker that is not a stuffed 0x00 or a
            # restart (one search in C: a noisy photo has an 0xFF every few hundred bytes).
            next_marker = _NEXT_MARKER.search(raw, at)
            if next_marker is None:
                raise invalid("a JPEG cut short")
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
        raise invalid("something else is appended to the WebP (or it is cut short)")
    at, found = 12, []
    while at < len(raw):
        if at + 8 > len(raw):
            raise invalid("a WebP cut short")
        kind, size = raw[at:at + 4], int.from_bytes(raw[at + 4:at + 8], "little")
        end = at + 8 + size + (size & 1)
        if end > len(raw):
            raise invalid("a WebP cut short")
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
            raise invalid("its metadata holds markup, script or an archive (a file that is also something else)")
