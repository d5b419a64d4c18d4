"""Fixtures for the browser tests: the suite's app served over real HTTP, Debian's Chromium
driven by Playwright, and `open_app`, which opens the app as one founder on a desktop or a
phone viewport.

Every test under tests/browser/ is marked `browser` (see `pytest_itemcollected` below), so
it runs in the embedded pass of .ci/run only (tests/conftest.py).

A test fails when the page logs a console error or throws an uncaught exception it did not
allow, and when axe-core finds a critical or serious accessibility violation on a page the
test took a screenshot of. Screenshots land in var/artifacts/browser/<test>/ (or under
$BROWSER_ARTIFACTS): they are the artifacts a reviewer looks at.
"""
from __future__ import annotations

import itertools
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import sync_playwright
from werkzeug.serving import WSGIRequestHandler, make_server

from config import use_settings
from tests.conftest import ROOT, SETTINGS
from tests.mailbox import last_link

# The machine has no network: without the background-networking flags Chromium keeps
# trying to reach Google's services and floods the log with refused connections.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 860}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
              "device_scale_factor": 2},
}

# The app starts on a local server: far longer than this means it never will.
READY_TIMEOUT_MS = 15_000

# axe-core impacts that fail a test; `moderate` and `minor` ones are left to review.
BLOCKING_IMPACTS = ("critical", "serious")
AXE = Axe()  # reads the axe.min.js bundled with axe-playwright-python once


def pytest_itemcollected(item):
    # pytest calls this hook only with items under this folder (it is this conftest's), so
    # a new browser test module is marked without having to remember it.
    item.add_marker(pytest.mark.browser)


class _QuietRequestHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass  # the app logs every request itself (api/http.py); werkzeug's line is a duplicate


@pytest.fixture(scope="session")
def live_server(app, worker):
    """The suite's app over real HTTP for Chromium; yields its base URL, `http://127.0.0.1:PORT`.

    It depends on `worker` so that the jobs its routes send (a sign-in mail, say) are run by
    the suite's real Dramatiq worker, as they are for the test client's requests.
    """
    # Port 0: the system picks a free port, so runs side by side on this machine never collide.
    # Threaded: the browser fetches the shell's modules, styles and API calls in parallel.
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_QuietRequestHandler)
    # A daemon thread: a run that dies half-way does not hang on it.
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


@pytest.fixture
def base_url_is_the_live_server(live_server):
    """The provider's page, and the landing and back addresses it sends the browser to, are
    absolute URLs made from BASE_URL: the suite's (http://localhost) is no server Chromium can
    reach, so for these tests BASE_URL is the live server, as it is the public address live."""
    use_settings(SETTINGS.but(base_url=live_server))
    yield
    use_settings(SETTINGS)


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium (`$CHROMIUM_PATH`, default /usr/bin/chromium), headless, driven by
    Playwright. Playwright's own browser downloads are never used."""
    wanted = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    path = shutil.which(wanted)
    if path is None:
        # A failure, not a skip: a browser test that does not run is a defect here.
        pytest.fail(f"no Chromium at {wanted}: install Debian's chromium (apt-get install chromium) "
                    f"or set CHROMIUM_PATH to a Chromium executable", pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def _artifacts_folder(test_name: str) -> Path:
    root = Path(os.environ.get("BROWSER_ARTIFACTS") or ROOT / "var" / "artifacts" / "browser")
    # Parametrized names carry ids like `[phone]`; anything else unusual in a name becomes `-`.
    return root / re.sub(r"[^\w.\[\]-]+", "-", test_name).strip("-")


@pytest.fixture
def open_app(request, chromium, live_server, run_jobs):
    """Call `open_app(viewport="desktop")` (or `"phone"`) to open the app as a new founder:
    a new browser context (its own cookie jar) with a page on it. Returns a `BrowserApp`.

    At teardown it fails the test on any console error or uncaught exception that the test
    did not allow with `allow_console(pattern)`, and on any allowance that never matched.
    """
    artifacts = _artifacts_folder(request.node.name)
    # Start from an empty folder: the screenshots there are this run's, never a stale one.
    shutil.rmtree(artifacts, ignore_errors=True)
    shots = itertools.count(1)  # one running number for all of the test's founders
    opened: list[BrowserApp] = []

    def open_(viewport: str = "desktop") -> BrowserApp:
        browser = BrowserApp(chromium, live_server, viewport, artifacts=artifacts, shots=shots, run_jobs=run_jobs)
        opened.append(browser)
        return browser

    yield open_
    problems = [problem for browser in opened for problem in browser.close()]
    if problems:
        pytest.fail("the browser reported problems:\n" + "\n".join(problems), pytrace=False)


class BrowserApp:
    """One founder in Chromium: `context` (its own cookie jar), `page`, and helpers."""

    def __init__(self, chromium, base_url: str, viewport: str, *, artifacts: Path, shots, run_jobs):
        if viewport not in VIEWPORTS:
            raise ValueError(f"viewport must be one of {sorted(VIEWPORTS)}, not {viewport!r}")
        self.base_url = base_url
        self.viewport = viewport
        self.context = chromium.new_context(**VIEWPORTS[viewport])
        self.page = self.context.new_page()
        self._artifacts = artifacts
        self._shots = shots
        self._run_jobs = run_jobs
        self._console_errors: list[str] = []
        self._uncaught: list[str] = []
        self._allowed: dict[re.Pattern, int] = {}  # pattern -> how many errors it excused
        # On the context, not the page: popups and new tabs of this founder count too.
        self.context.on("console", self._on_console)
        self.context.on("weberror", self._on_uncaught)

    def _on_console(self, message) -> None:
        if message.type != "error":
            return
        # "Failed to load resource" names its URL only in the location: keep it, to tell what failed.
        url = (message.location or {}).get("url")
        self._console_errors.append(f"{message.text} at {url}" if url else message.text)

    def _on_uncaught(self, web_error) -> None:
        self._uncaught.append(web_error.error.stack or web_error.error.message)

    def allow_console(self, pattern: str) -> BrowserApp:
        """Excuses the console errors `pattern` (a regular expression) is found in. A console
        error reads as its text, then ` at <url>` when Chromium names a URL. Chromium logs
        "Failed to load resource: the server responded with a status of 409 (CONFLICT)" for
        every fetch answered outside 2xx, so a test that provokes a refusal allows it, e.g.
        `allow_console(r"status of 409 .* at .*/api/claim")`. The pattern must match at least
        once before teardown. Uncaught exceptions cannot be allowed: they are always bugs."""
        self._allowed[re.compile(pattern)] = 0
        return self

    def goto(self, route: str = "/"):
        """Opens `route` (a path, with query and hash if any) on the live server and waits until
        the app is ready (`document.documentElement.dataset.ready === "true"`). Returns the
        navigation's response; a route that differs from the current URL only by its hash is a
        same-document navigation, for which Playwright returns None."""
        assert route.startswith("/"), f"a route is a path on the live server, not {route!r}"
        response = self.page.goto(self.base_url + route)
        # A function, not an expression: Playwright polls an expression string with eval() in
        # the page, which the shell's policy refuses (no 'unsafe-eval') once a poll is needed.
        try:
            self.page.wait_for_function("() => document.documentElement.dataset.ready === 'true'",
                                        timeout=READY_TIMEOUT_MS)
            return response
        except PlaywrightTimeoutError:
            pass  # failed below, outside the handler: Playwright's own traceback says nothing more
        pytest.fail(f"{route} never became ready (document.documentElement.dataset.ready) within "
                    f"{READY_TIMEOUT_MS // 1000} s; console errors so far: {self._console_errors or 'none'}",
                    pytrace=False)

    def shot(self, name: str) -> Path:
        """Saves a full-page screenshot as <artifacts>/<test>/<NN>-<name>-<viewport>.png, then
        fails the test if axe-core finds a critical or serious violation on the page."""
        assert re.fullmatch(r"[\w-]+", name), f"a shot's name is a word (letters, digits, - and _), not {name!r}"
        self._artifacts.mkdir(parents=True, exist_ok=True)
        path = self._artifacts / f"{next(self._shots):02d}-{name}-{self.viewport}.png"
        # The screenshot comes first, so the artifact exists when axe fails the test.
        self.page.screenshot(path=path, full_page=True, animations="disabled")
        violations = [v for v in AXE.run(self.page).response["violations"] if v["impact"] in BLOCKING_IMPACTS]
        if violations:
            pytest.fail(f"axe-core on {self.page.url} ({self.viewport}, screenshot {path}):\n"
                        + "\n".join(_describe(violation) for violation in violations), pytrace=False)
        return path

    def outbox_link(self, address: str, *, path: str | None = None) -> str:
        """The newest sign-in link mailed to `address` (only links to `path`, when given),
        pointed at the live server: the mail names the suite's BASE_URL, http://localhost."""
        self._run_jobs()  # the mail is sent by a job: wait until every queued job has run
        link = urlsplit(last_link(address, path=path))
        live = urlsplit(self.base_url)
        return urlunsplit(link._replace(scheme=live.scheme, netloc=live.netloc))

    def close(self) -> list[str]:
        """Closes the context; returns the problems to report (unexcused errors, unused allowances)."""
        try:
            # A round trip to the page: console events Chromium sent before it have arrived.
            self.page.evaluate("0")
        except PlaywrightError:
            pass  # the page closed or crashed; what arrived is what there is
        self.context.close()
        problems = [f"[{self.viewport}] console error: {text}"
                    for text in self._console_errors if not self._excused(text)]
        problems += [f"[{self.viewport}] uncaught exception: {text}" for text in self._uncaught]
        problems += [f"[{self.viewport}] allow_console({pattern.pattern!r}) matched no console error"
                     for pattern, used in self._allowed.items() if not used]
        return problems

    def _excused(self, text: str) -> bool:
        for pattern in self._allowed:
            if pattern.search(text):
                self._allowed[pattern] += 1
                return True
        return False


def _describe(violation: dict) -> str:
    targets = [", ".join(map(str, node["target"])) for node in violation["nodes"][:3]]
    more = f" and {len(violation['nodes']) - 3} more" if len(violation["nodes"]) > 3 else ""
    return f"  {violation['id']} ({violation['impact']}): {violation['help']}; at {' | '.join(targets)}{more}"
