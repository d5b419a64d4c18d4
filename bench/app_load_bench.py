"""First load of the browser app (GET / and its /static/app/ files) in Chromium; a
measurement, not a test.

1. Builds a throwaway SQLite database and outbox in a temporary folder, migrates it and seeds
   the demo catalog with the project's CLI (`flask --app api db upgrade`, `catalog seed`),
   starts the service as `make run` does (gunicorn -c gunicorn.conf.py "api:create_app()",
   WORKER_IN_PROCESS=1) on a free loopback port and waits for /api/health. The service is
   stopped with SIGTERM at the end, also on error.
2. Drives Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) headless through Playwright
   (it never downloads a browser). One uncounted load per route warms the server.
3. Loads each of --routes --runs times cold (a new browser context each time: empty cache, no
   cookie), then --warm times warm (one context, the page reloaded). Per load: the bytes on the
   wire (CDP Network.loadingFinished encodedDataLength, headers included) of every response
   but images (type Image or an image/* MIME type), by type; the time from navigation start to
   app-ready, i.e. the startTime of the app's performance.mark("app-ready"), or, without that
   mark, when a MutationObserver saw <html data-ready="true"> (the table says which);
   DOMContentLoaded (domContentLoadedEventStart); the number of requests (images included).
   Bytes are summed once the network has been quiet for 500 ms (5 s at most).
4. Prints per route p50/p95 of app-ready and DOMContentLoaded, the median KB (1000 bytes) by
   type and in total, and a verdict against the budget: cold loads under 150 KB (largest
   route median) and app-ready p95 under 1000 ms (slowest route). Over budget is reported,
   not an error: the exit status is 0 whenever it measured.

Usage::

    python bench/app_load_bench.py [--runs 20] [--warm 10] [--routes /#/app/home /#/app/find]
        [--timeout 30] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TYPES = ["document", "script", "stylesheet", "fetch/xhr", "other"]
CDP_TYPES = {"Document": "document", "Script": "script", "Stylesheet": "stylesheet", "Fetch": "fetch/xhr",
             "XHR": "fetch/xhr"}
BUDGET_KB, BUDGET_MS = 150, 1000
# Runs in every document before the page's own scripts: notes when <html data-ready="true"> appears.
WATCH_READY = """new MutationObserver((records, observer) => {
  if (document.documentElement && document.documentElement.dataset.ready === "true") {
    window.__benchReadyAt = performance.now();
    observer.disconnect();
  }
}).observe(document, {attributes: true, attributeFilter: ["data-ready"], subtree: true});"""
IS_READY = "() => window.__benchReadyAt !== undefined || performance.getEntriesByName('app-ready', 'mark').length > 0"
READ_TIMES = """() => {
  const mark = performance.getEntriesByName("app-ready", "mark")[0];
  const nav = performance.getEntriesByType("navigation")[0];
  return {mark: mark ? mark.startTime : null, attribute: window.__benchReadyAt ?? null,
          dcl: nav.domContentLoadedEventStart};
}"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def start_service(folder: Path, port: int, log) -> subprocess.Popen:
    """Migrates and seeds a database in `folder`, then starts gunicorn as `make run` does."""
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "SMTP_URL")}
    env.update(DATABASE_URL=f"sqlite:///{folder / 'app.db'}", OUTBOX_DIR=str(folder / "outbox"), PORT=str(port),
               HOST=HOST, BASE_URL=f"http://{HOST}:{port}", SECRET_KEY="bench-secret-key-0123456789",
               WORKER_IN_PROCESS="1", LOG_LEVEL="WARNING")
    for command in (["db", "upgrade"], ["catalog", "seed"]):
        subprocess.run([sys.executable, "-m", "flask", "--app", "api", *command], cwd=ROOT, env=env,
                       stdout=log, stderr=subprocess.STDOUT, check=True)
    # --no-control-socket: gunicorn's default control socket is one path per user
    # (~/.gunicorn/gunicorn.ctl), which this throwaway server would take from any other running one.
    return subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--no-control-socket",
                             "api:create_app()"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_for_health(proc: subprocess.Popen, base: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode} before /api/health answered")
        try:
            with urllib.request.urlopen(f"{base}/api/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"/api/health did not answer 200 within {timeout:.0f} s")


def stop_service(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Load:
    """What CDP reports about one navigation: each request's type, and the bytes of each."""

    def __init__(self, cdp):
        self.types, self.bytes = {}, {}  # by request id; emptied before each navigation
        cdp.on("Network.requestWillBeSent", self.sent)
        cdp.on("Network.responseReceived", self.received)
        cdp.on("Network.loadingFinished", self.finished)

    def sent(self, event):
        if not event["request"]["url"].startswith("data:"):
            self.types[event["requestId"]] = event.get("type", "Other")

    def received(self, event):
        if event["response"].get("mimeType", "").startswith("image/"):
            self.types[event["requestId"]] = "Image"

    def finished(self, event):
        if event["requestId"] in self.types:
            self.bytes[event["requestId"]] = event["encodedDataLength"]

    def by_type(self) -> dict:
        totals = dict.fromkeys(TYPES, 0)
        for request_id, size in self.bytes.items():
            kind = self.types[request_id]
            if kind != "Image":
                totals[CDP_TYPES.get(kind, "other")] += int(size)
        return totals


def measure(page, load: Load, navigate, timeout_ms: float) -> dict:
    """Runs `navigate`, waits for app-ready and a quiet network, and reads the figures."""
    load.types.clear()
    load.bytes.clear()
    navigate()
    try:
        page.wait_for_function(IS_READY, timeout=timeout_ms)
    except PlaywrightTimeout:
        raise RuntimeError(f"{page.url}: neither performance.mark('app-ready') nor data-ready='true' "
                           f"within {timeout_ms / 1000:g} s") from None
    times = page.evaluate(READ_TIMES)
    try:
        page.wait_for_load_state("networkidle", timeout=5000)
    except PlaywrightTimeout:  # the app keeps polling: count what arrived within the 5 s
        pass
    source = "mark" if times["mark"] is not None else "attribute"
    return {"ready_ms": round(times[source], 1), "ready_source": source, "dcl_ms": round(times["dcl"], 1),
            "requests": len(load.types), "bytes": load.by_type()}


def load_and_reload(browser, url: str, reloads: int, timeout_ms: float) -> list[dict]:
    """A new context (empty cache, no cookie): loads `url`, then reloads the page `reloads` times."""
    context = browser.new_context()
    try:
        context.add_init_script(WATCH_READY)
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        load = Load(cdp)
        cdp.send("Network.enable")
        first = measure(page, load, lambda: page.goto(url, wait_until="commit"), timeout_ms)
        return [first] + [measure(page, load, lambda: page.reload(wait_until="commit"), timeout_ms)
                          for _ in range(reloads)]
    finally:
        context.close()


def run_loads(base: str, args) -> tuple[str, dict]:
    """Chromium's version, and per route the figures of each cold and warm load."""
    chromium = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    timeout_ms = args.timeout * 1000
    raw = {route: {"cold": [], "warm": []} for route in args.routes}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        for route in args.routes:  # warms the server (templates, static files); not counted
            load_and_reload(browser, base + route, 0, timeout_ms)
        for _ in range(args.runs):  # routes alternate, so a slow moment hits each
            for route in args.routes:
                raw[route]["cold"] += load_and_reload(browser, base + route, 0, timeout_ms)
        for route in args.routes:  # the first load of the context only fills the cache and gets the cookie
            if args.warm:
                raw[route]["warm"] = load_and_reload(browser, base + route, args.warm, timeout_ms)[1:]
        version = browser.version
        browser.close()
    return version, raw


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)  # nearest rank
    return ordered[max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


def summarize(loads: list[dict]) -> dict:
    def ms(key, p):
        return percentile([load[key] for load in loads], p)

    return {"loads": len(loads), "ready_p50_ms": ms("ready_ms", 50), "ready_p95_ms": ms("ready_ms", 95),
            "dcl_p50_ms": ms("dcl_ms", 50), "dcl_p95_ms": ms("dcl_ms", 95),
            "requests": statistics.median(load["requests"] for load in loads),
            "kb": {kind: statistics.median(load["bytes"][kind] for load in loads) / 1000 for kind in TYPES},
            "total_kb": statistics.median(sum(load["bytes"].values()) for load in loads) / 1000,
            "ready_via": "+".join(sorted({load["ready_source"] for load in loads}))}


def print_table(results: dict, version: str, args) -> None:
    print(f"Browser app first load, Chromium {version} headless, {args.runs} cold and {args.warm} warm loads per "
          "route; gunicorn on loopback, demo catalog on SQLite; times from navigation start")
    header = (f"{'route':<14} {'load':<5} {'ready p50':>9} {'p95':>7} {'DCL p50':>8} {'p95':>7} {'reqs':>5} "
              + " ".join(f"{kind:>10}" for kind in TYPES) + f" {'total KB':>9}  ready via")
    print(header + "\n" + "-" * len(header))
    for route, kinds in results.items():
        for kind, s in kinds.items():
            if s is not None:
                print(f"{route:<14} {kind:<5} {s['ready_p50_ms']:>6.0f} ms {s['ready_p95_ms']:>4.0f} ms "
                      f"{s['dcl_p50_ms']:>5.0f} ms {s['dcl_p95_ms']:>4.0f} ms {s['requests']:>5.0f} "
                      + " ".join(f"{s['kb'][t]:>10.1f}" for t in TYPES) + f" {s['total_kb']:>9.1f}  {s['ready_via']}")
    print("(KB: median bytes on the wire, headers included, 1 KB = 1000 bytes, images excluded; ready via: "
          "mark = performance.mark('app-ready'), attribute = when data-ready='true' was seen)")


def verdict(results: dict) -> dict:
    worst_kb = max(kinds["cold"]["total_kb"] for kinds in results.values())
    worst_ms = max(kinds["cold"]["ready_p95_ms"] for kinds in results.values())
    return {"largest_cold_median_kb": worst_kb, "slowest_cold_ready_p95_ms": worst_ms,
            "within_kb": worst_kb < BUDGET_KB, "within_ms": worst_ms < BUDGET_MS}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="cold loads per route")
    parser.add_argument("--warm", type=int, default=10, help="warm reloads per route (0: none)")
    parser.add_argument("--routes", nargs="+", default=["/#/app/home", "/#/app/find"])
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a load may take to be ready")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="app_load_bench-") as folder, \
            open(Path(folder) / "service.log", "w+") as log:
        port = free_port()
        proc = None
        try:
            proc = start_service(Path(folder), port, log)
            wait_for_health(proc, f"http://{HOST}:{port}")
            version, raw = run_loads(f"http://{HOST}:{port}", args)
        except Exception:
            log.seek(0)
            state = "running" if proc is None or proc.poll() is None else f"exited with {proc.returncode}"
            print(f"app_load_bench failed (gunicorn {state}); end of its log:\n{log.read()[-3000:]}", file=sys.stderr)
            raise
        finally:
            if proc is not None:
                stop_service(proc)
    results = {route: {"cold": summarize(loads["cold"]), "warm": summarize(loads["warm"]) if loads["warm"] else None}
               for route, loads in raw.items()}
    check = verdict(results)
    if args.json:
        print(json.dumps({"chromium": version, "runs": args.runs, "warm": args.warm, "budget_kb": BUDGET_KB,
                          "budget_ms": BUDGET_MS, "verdict": check, "summary": results, "loads": raw}, indent=2))
    else:
        print_table(results, version, args)
        print(f"verdict: {'within budget' if check['within_kb'] and check['within_ms'] else 'OVER BUDGET'}: "
              f"cold first load {check['largest_cold_median_kb']:.1f} KB non-image (largest route median; budget "
              f"{BUDGET_KB} KB) {'ok' if check['within_kb'] else 'over'}, app-ready p95 "
              f"{check['slowest_cold_ready_p95_ms']:.0f} ms (slowest route; budget {BUDGET_MS} ms) "
              f"{'ok' if check['within_ms'] else 'over'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
