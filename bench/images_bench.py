"""Image uploads: what one POST /api/product may cost within the caps, in time and memory
(a measurement, not a test).

services/images.py reads every upload's header before decoding anything and refuses an
image over MAX_PIXELS or whose cleaning would hold more than MAX_DECODE_BYTES, and a request
whose new images are estimated to take more than MAX_REQUEST_MS together. This script builds
the requests those caps still accept at their dearest, and some they refuse, and sends each
through the Flask test client, in a fresh process of its own per run:

1. Images are generated with Pillow into a temporary folder (kept with --keep), for each
   kind (baseline JPEG, progressive 4:4:4 JPEG, PNG and WebP, without and with
   transparency), either `flat` (one colour: a few KB, the cheapest to send, the attack of
   issue 19) or `busy` (a photo-like picture with as much noise as still fits in
   MAX_IMAGE_BYTES: the dearest to decode and re-encode that may be sent).
2. Two requests per kind and content: as many of the dearest image accepted alone as the
   request's estimate takes, then the dearest image that fits what is left; and eight
   images of an eighth of the estimate each. Then eight 4032 x 3024 phone photos of up to
   4 MB (noisy, quality 92), and three requests that must be refused: eight 5000 x 5000
   one-colour PNGs (the old worst case: 5.7 s and 456 MB more before the caps), a PNG
   declaring 20000 x 20000, and eight PNGs just over the request's estimate.
3. Each run is a child process: it builds the app on a throwaway SQLite database, loads the
   demo catalog, claims a product, sends one small warm-up image, reads the request's files
   into one JSON body, returns free heap to the system (malloc_trim), resets the peak RSS
   (/proc/self/clear_refs) and times the one POST: wall time, the process's CPU time, and
   "more memory", the peak RSS (VmHWM) over the RSS just before the request. The body the
   client holds is allocated before; the server's copies of it (werkzeug's raw body, the
   parsed JSON strings) are counted.
4. Separately, the dearest image of each kind is cleaned alone (services.images.clean, in a
   child process) and its peak RSS growth set beside services.images.Header.memory, the
   estimate the per-image cap is checked against: the estimate should not be below it.

The accepted requests must answer 200 within --max-seconds (1.0) and --max-mb (100) more
memory; the refused ones must answer their reason. A miss is reported in the verdict and the
exit status is 1. Wall times depend on what else runs: the load average is printed.

Usage::

    python bench/images_bench.py [--runs 3] [--only SUBSTRING] [--keep] [--no-estimates] [--json]
"""
from __future__ import annotations

import argparse
import base64
import contextlib
import ctypes
import gc
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image, ImageChops  # noqa: E402

from services import images, own_product  # noqa: E402

DEMO = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
NOISE = (96, 64, 48, 32, 24, 16, 12, 8, 6, 4, 3, 2, 1, 0)


# --- The images ----------------------------------------------------------------------------------

class Variant:
    """One kind of upload: a format and how it is saved."""

    def __init__(self, name: str, kind: str, alpha: bool = False, progressive: bool = False):
        self.name, self.kind, self.alpha, self.progressive = name, kind, alpha, progressive

    def header(self, width: int, height: int) -> images.Header:
        # Progressive JPEGs are saved 4:4:4 (every component at full size: 3 samples a pixel).
        return images.Header(self.kind, width, height, alpha=self.alpha, progressive=self.progressive, samples=3.0)

    def accepted(self, side: int) -> bool:
        header = self.header(side, side)
        return header.pixels <= images.MAX_PIXELS and header.memory <= images.MAX_DECODE_BYTES

    def dearest(self, most_ms: float = images.MAX_REQUEST_MS, size: int = 0) -> int | None:
        """The square side whose image is accepted alone and takes the longest that is at
        most `most_ms` (its upload `size` bytes; for a baseline JPEG this is not the largest
        side: one just under 2048 is decoded at full scale)."""
        best, best_ms = None, -1.0
        for side in range(16, 5001):
            if self.accepted(side):
                ms = replace(self.header(side, side), size=size).work_ms
                if best_ms <= ms <= most_ms:
                    best, best_ms = side, ms
        return best

    def encode(self, picture: Image.Image) -> bytes:
        out = io.BytesIO()
        if self.kind == "PNG":
            picture.save(out, "PNG")
        elif self.kind == "JPEG":
            picture.save(out, "JPEG", quality=92, progressive=self.progressive,
                         subsampling=0 if self.progressive else 2)
        else:
            picture.save(out, "WEBP", quality=90)
        return out.getvalue()


VARIANTS = [Variant("jpeg", "JPEG"), Variant("jpeg-progressive-444", "JPEG", progressive=True),
            Variant("png", "PNG"), Variant("png-alpha", "PNG", alpha=True),
            Variant("webp", "WEBP"), Variant("webp-alpha", "WEBP", alpha=True)]


def picture(width: int, height: int, alpha: bool, noise: int, seed: int = 0) -> Image.Image:
    """A photo-like picture: a gradient, soft blobs, and gaussian noise of `noise` (0: none)."""
    gradient = Image.linear_gradient("L").resize((width, height))
    blobs = Image.effect_noise((max(1, width // 48), max(1, height // 48)), 70 + seed).resize(
        (width, height), Image.Resampling.BICUBIC)
    bands = [gradient, blobs, ImageChops.invert(blobs)] + ([gradient.transpose(Image.Transpose.ROTATE_90).resize(
        (width, height))] if alpha else [])
    if noise:
        bands = [ImageChops.add(band, Image.effect_noise((width, height), noise), offset=-128) for band in bands]
    return Image.merge("RGBA" if alpha else "RGB", bands)


def flat(width: int, height: int, alpha: bool) -> Image.Image:
    return Image.new("RGBA", (width, height), (200, 60, 40, 128)) if alpha else \
        Image.new("RGB", (width, height), (200, 60, 40))


def busy(variant: Variant, side: int) -> tuple[bytes, int]:
    """The noisiest picture of `side` x `side` that still fits in MAX_IMAGE_BYTES: a crop of
    a quarter of the side estimates each noise level's size, then the whole is checked."""
    crop = max(64, side // 4)
    ratio = (side * side) / (crop * crop)
    levels = [n for n in NOISE if _size(variant, picture(crop, crop, variant.alpha, n)) * ratio
              <= 0.92 * images.MAX_IMAGE_BYTES] or [0]
    for noise in NOISE[NOISE.index(levels[0]):]:
        try:
            data = variant.encode(picture(side, side, variant.alpha, noise))
        except OSError:  # Pillow's progressive JPEG buffer is w x h bytes: too noisy to fit anyway
            continue
        if len(data) <= images.MAX_IMAGE_BYTES:
            return data, noise
    raise SystemExit(f"{variant.name} {side}x{side}: even without noise it is over {images.MAX_IMAGE_BYTES} bytes")


@contextlib.contextmanager
def _quiet_libjpeg():
    """libjpeg prints "Suspension not allowed here" on the C stderr when a noisy progressive
    picture overflows Pillow's buffer (caught above as too large): not worth showing."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _size(variant: Variant, picture: Image.Image) -> float:
    try:
        return len(variant.encode(picture))
    except OSError:
        return math.inf


def make_file(folder: Path, variant: Variant, side: int, content: str, height: int | None = None) -> dict:
    height = height or side
    path = folder / f"{variant.name}-{side}x{height}-{content}.{variant.kind.lower()}"
    noise = None
    if not path.exists():
        if content == "flat":
            data = variant.encode(flat(side, height, variant.alpha))
        elif content == "phone":
            data, noise = _phone(variant, side, height)
        else:
            data, noise = busy(variant, side)
        path.write_bytes(data)
    header = images.read_header(path.read_bytes())
    return {"path": str(path), "variant": variant.name, "kind": variant.kind, "width": side, "height": height,
            "content": content, "bytes": path.stat().st_size, "noise": noise,
            "work_ms": header.work_ms if header else None,
            "memory_estimate": header.memory if header else None}


def _phone(variant: Variant, width: int, height: int) -> tuple[bytes, int]:
    """A 12-megapixel phone photo of at most 4 MB, as noisy as that allows (quality 92)."""
    for noise in NOISE:
        data = variant.encode(picture(width, height, False, noise))
        if len(data) <= 4_000_000:
            return data, noise
    raise SystemExit("no phone photo fits")


def bomb(folder: Path, width: int, height: int) -> dict:
    """A PNG of a few dozen bytes whose header declares width x height pixels."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
    path = folder / f"bomb-{width}x{height}.png"
    path.write_bytes(data)
    return {"path": str(path), "variant": "png", "kind": "PNG", "width": width, "height": height,
            "content": "bomb", "bytes": len(data), "noise": None, "work_ms": None,
            "memory_estimate": None}


# --- The cases -----------------------------------------------------------------------------------

def within(folder: Path, variant: Variant, content: str, most_ms: float) -> dict | None:
    """The dearest image of this kind and content whose estimate, its real size included,
    is at most `most_ms` (a busy picture's bytes count too, so the side is found, the picture
    made, and the side lowered until the two agree)."""
    size = images.MAX_IMAGE_BYTES if content == "busy" else 0
    while True:
        side = variant.dearest(most_ms, size)
        if side is None:
            return None
        made = make_file(folder, variant, side, content)
        if made["work_ms"] <= most_ms:
            return made
        size = made["bytes"] + 1 if made["bytes"] > size else size + 100_000


def fill(folder: Path, variant: Variant, content: str) -> list[dict]:
    """As many of the dearest accepted image as the request's estimate takes, then the
    dearest image that fits what is left."""
    first = within(folder, variant, content, images.MAX_REQUEST_MS)
    files = [first] * min(images.MAX_IMAGES, int(images.MAX_REQUEST_MS // first["work_ms"]),
                          own_product.MAX_REQUEST_UPLOAD_BYTES // first["bytes"])
    if len(files) < images.MAX_IMAGES:
        rest = within(folder, variant, content, images.MAX_REQUEST_MS - sum(f["work_ms"] for f in files))
        room = own_product.MAX_REQUEST_UPLOAD_BYTES - sum(f["bytes"] for f in files)
        files += [rest] if rest and rest["bytes"] <= room else []
    return files


def phones(folder: Path, jpeg: Variant) -> list[dict]:
    """As many 4 MB phone photos as the new photos of one save may come to together."""
    photo = make_file(folder, jpeg, 4032, "phone", 3024)
    return [photo] * min(images.MAX_IMAGES, own_product.MAX_REQUEST_UPLOAD_BYTES // photo["bytes"])


def label(files: list[dict]) -> str:
    counts: dict[str, int] = {}
    for f in files:
        counts[f"{f['width']}x{f['height']}"] = counts.get(f"{f['width']}x{f['height']}", 0) + 1
    return " + ".join(f"{n} x {size}" for size, n in counts.items())


def cases(folder: Path, only: str | None) -> list[dict]:
    found = []

    def add(name: str, files, expect: tuple[int, str | None]):
        """`files` is called only for the cases asked for (making the images takes a while)."""
        if only is None or only in name:
            made = files()
            found.append({"name": name.replace("{files}", label(made)), "files": made, "expect": expect})

    for variant in VARIANTS:
        for content in ("flat", "busy"):
            add(f"{variant.name} {content}: {{files}} (the dearest accepted image, then what the total leaves)",
                lambda variant=variant, content=content: fill(folder, variant, content), (200, None))
            add(f"{variant.name} {content}: {{files}} (eight of an eighth of the total each)",
                lambda variant=variant, content=content: [within(folder, variant, content, images.MAX_REQUEST_MS / images.MAX_IMAGES)] * 8,
                (200, None))
    jpeg, png = VARIANTS[0], VARIANTS[2]
    add("jpeg phone: {files} phone photos of 4 MB (at most 4,000,000 bytes each: as many as one save takes)",
        lambda: phones(folder, jpeg), (200, None))
    add("refused: {files} PNG, one colour (the old worst case)",
        lambda: [make_file(folder, png, 5000, "flat")] * 8, (400, "invalid_images"))
    add("refused: 1 PNG declaring 20000x20000 (a decompression bomb)", lambda: [bomb(folder, 20000, 20000)],
        (400, "invalid_images"))
    add("refused: {files} PNG, one colour (over the request's estimate)",
        lambda: [make_file(folder, png, png.dearest(images.MAX_REQUEST_MS / images.MAX_IMAGES) + 64, "flat")] * 8,
        (413, "images_too_large"))
    return found


# --- A child process: one request, measured ------------------------------------------------------

def _status() -> dict:
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(value.split()[0]) * 1024
    return values


def _reset_peak() -> int:
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    Path("/proc/self/clear_refs").write_text("5")
    return _status()["VmRSS"]


def _app(folder: Path):
    from config import Settings, use_settings

    settings = use_settings(Settings(database_url=f"sqlite:///{folder / 'bench.db'}", redis_url=None,
                                     secret_key="bench-secret-key-0123456789", base_url="http://localhost",
                                     outbox_dir=str(folder / "outbox"), log_level="WARNING", build="bench"))
    import logging

    from models.db import init_db
    from models.migrate import upgrade

    init_db(settings.database_url)
    upgrade()
    from services.catalog import load_products, parse_catalog

    load_products(parse_catalog([line for line in DEMO.read_text().splitlines() if line.strip()]))
    from api import create_app

    app = create_app(settings)
    logging.getLogger().setLevel(logging.WARNING)
    return app


def _claimed(app):
    client = app.test_client()
    card = client.get("/api/find").get_json()
    claimed = client.post("/api/pass", json={"action": "claim", "product_id": card.get("product_id")}).get_json()
    if claimed.get("status") != "claimed":
        raise SystemExit(f"claim refused: {claimed}")
    return client


def _data_url(path: str, kind: str) -> str:
    return f"data:{MIME[kind]};base64," + base64.b64encode(Path(path).read_bytes()).decode()


def child_request(case: dict) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="images-bench-run-"))
    try:
        app = _app(folder)
        client = _claimed(app)
        warm = client.post("/api/product", json={"images": [_data_url(case["warmup"], "PNG")]})
        if warm.status_code != 200:
            raise SystemExit(f"warm-up answered {warm.status_code}: {warm.get_data(as_text=True)[:300]}")
        body = json.dumps({"images": [_data_url(f["path"], f["kind"]) for f in case["files"]]}).encode()
        before = _reset_peak()
        started, cpu = time.perf_counter(), time.process_time()
        response = client.post("/api/product", data=body, content_type="application/json")
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        peak = _status()["VmHWM"]
        answer = response.get_json(silent=True) or {}
        return {"status": response.status_code, "reason": answer.get("reason"),
                "explanation": answer.get("explanation"), "seconds": seconds, "cpu_seconds": cpu,
                "more_mb": (peak - before) / 1e6,
                "body_mb": len(body) / 1e6}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def child_clean(path: str) -> dict:
    raw = Path(path).read_bytes()
    header = images.header_of(raw)
    images.clean(_small_png())  # warm: Pillow's plugins and codecs loaded
    before = _reset_peak()
    started = time.perf_counter()
    images.clean(raw)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "more_mb": (_status()["VmHWM"] - before) / 1e6, "estimate_mb": header.memory / 1e6}


def _small_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 32), (1, 2, 3)).save(out, "PNG")
    return out.getvalue()


def run_child(mode: str, payload) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, json.dumps(payload)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"a child run failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- The report ----------------------------------------------------------------------------------

def describe(files: list[dict]) -> str:
    sizes = sorted({f["bytes"] for f in files})
    total = sum(f["bytes"] for f in files)
    estimate = sum(f["work_ms"] or 0 for f in files)
    return f"{total / 1e6:.2f} MB sent ({sizes[-1] / 1e6:.2f} MB largest), estimate {estimate:.0f} ms"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per request")
    parser.add_argument("--only", help="only the cases whose name contains this")
    parser.add_argument("--max-seconds", type=float, default=1.0)
    parser.add_argument("--max-mb", type=float, default=100.0)
    parser.add_argument("--keep", action="store_true", help="keep the generated images (their folder is printed)")
    parser.add_argument("--no-estimates", action="store_true", help="skip cleaning each per-image maximum alone")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, payload = args.child
        result = child_request(json.loads(payload)) if mode == "request" else child_clean(json.loads(payload))
        print(json.dumps(result))
        return 0

    folder = Path(tempfile.mkdtemp(prefix="images-bench-"))
    try:
        warmup = folder / "warmup.png"
        warmup.write_bytes(_small_png())
        started = time.perf_counter()
        with _quiet_libjpeg():
            found = cases(folder, args.only)
        print(f"# caps: MAX_PIXELS {images.MAX_PIXELS:,}, MAX_DECODE_BYTES {images.MAX_DECODE_BYTES:,}, "
              f"MAX_REQUEST_MS {images.MAX_REQUEST_MS}, MAX_SIDE {images.MAX_SIDE}; "
              f"{len(found)} requests, images made in {time.perf_counter() - started:.0f} s; "
              f"load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
        results, misses = [], []
        for case in found:
            runs = [run_child("request", {"files": case["files"], "warmup": str(warmup)}) for _ in range(args.runs)]
            status, reason = case["expect"]
            wrong = [r for r in runs if r["status"] != status or (reason and r["reason"] != reason)]
            row = {"name": case["name"], "sent": describe(case["files"]), "expect": status,
                   "statuses": sorted({(r["status"], r["reason"]) for r in runs}, key=str),
                   "seconds_median": statistics.median(r["seconds"] for r in runs),
                   "seconds_max": max(r["seconds"] for r in runs),
                   "cpu_median": statistics.median(r["cpu_seconds"] for r in runs),
                   "more_mb_median": statistics.median(r["more_mb"] for r in runs),
                   "more_mb_max": max(r["more_mb"] for r in runs), "body_mb": runs[0]["body_mb"],
                   "explanation": runs[0]["explanation"] if status != 200 else None}
            results.append(row)
            if wrong:
                misses.append(f"{case['name']}: answered {wrong[0]['status']} {wrong[0]['reason']}: "
                              f"{wrong[0]['explanation']}")
            elif status == 200 and (
                    row["seconds_max"] > args.max_seconds or row["more_mb_max"] > args.max_mb):
                misses.append(f"{case['name']}: {row['seconds_max']:.2f} s, {row['more_mb_max']:.0f} MB more")
            print(f"{row['name']}: {row['statuses']} {row['seconds_median']:.3f} s (max {row['seconds_max']:.3f}, "
                  f"CPU {row['cpu_median']:.3f}), "
                  f"+{row['more_mb_median']:.0f} MB (max {row['more_mb_max']:.0f}); {row['sent']}", file=sys.stderr)
        estimates = []
        if not args.no_estimates:
            for variant in VARIANTS:
                if args.only and args.only not in variant.name:
                    continue
                for content in ("flat", "busy"):
                    file = within(folder, variant, content, images.MAX_REQUEST_MS)
                    runs = [run_child("clean", file["path"]) for _ in range(args.runs)]
                    estimates.append({"image": f"{variant.name} {file['width']}x{file['height']} {content}",
                                      "estimate_mb": runs[0]["estimate_mb"],
                                      "more_mb_max": max(r["more_mb"] for r in runs),
                                      "seconds_median": statistics.median(r["seconds"] for r in runs)})
                    row = estimates[-1]
                    if row["more_mb_max"] > row["estimate_mb"] * 1.02:  # 2 %: page-granular RSS
                        misses.append(f"clean({row['image']}): {row['more_mb_max']:.0f} MB held, above its "
                                      f"estimate of {row['estimate_mb']:.0f} MB")
                    print(f"clean {row['image']}: estimate {row['estimate_mb']:.0f} MB, held {row['more_mb_max']:.0f} MB,"
                          f" {row['seconds_median']:.3f} s", file=sys.stderr)
        report = {"caps": {"MAX_PIXELS": images.MAX_PIXELS, "MAX_DECODE_BYTES": images.MAX_DECODE_BYTES,
                           "MAX_REQUEST_MS": images.MAX_REQUEST_MS, "MAX_SIDE": images.MAX_SIDE},
                  "load_average": os.getloadavg(), "requests": results, "estimates": estimates, "misses": misses}
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            print_table(report, args)
        if args.keep:
            print(f"images kept in {folder}", file=sys.stderr)
        return 1 if misses else 0
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


def print_table(report: dict, args) -> None:
    print("\n| request | answer | time p50 (max) | CPU p50 | more memory p50 (max) | sent |")
    print("|---|---|---|---|---|---|")
    for row in report["requests"]:
        answer = ", ".join(f"{s} {r}" if r else str(s) for s, r in row["statuses"])
        print(f"| {row['name']} | {answer} | {row['seconds_median']:.3f} s ({row['seconds_max']:.3f}) | "
              f"{row['cpu_median']:.3f} s | {row['more_mb_median']:.0f} MB ({row['more_mb_max']:.0f}) | {row['sent']} |")
    if report["estimates"]:
        print("\n| one image cleaned alone | Header.memory | peak RSS growth (max) | time p50 |")
        print("|---|---|---|---|")
        for row in report["estimates"]:
            print(f"| {row['image']} | {row['estimate_mb']:.0f} MB | {row['more_mb_max']:.0f} MB | "
                  f"{row['seconds_median']:.3f} s |")
    print(f"\nverdict (at most {args.max_seconds} s and {args.max_mb:.0f} MB more per accepted request; "
          f"load average {report['load_average'][0]:.2f}):")
    for miss in report["misses"] or ["every request within bounds, every refusal with its reason"]:
        print(f"- {miss}")


if __name__ == "__main__":
    sys.exit(main())
