"""The checks that follow a page's links and files (checks.py runs them with the others):
broken_links (links that do not open, that only a script can follow, or whose words say
nothing) and mixed_content (http: files on an https page, found by mixed_resources()); with
NOT_PROBED, what the audit's probe answers for a link past its MAX_LINK_PROBES, and the words
a founder reads for a link's problem (link_problem)."""
from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup

from services.fix.page_checks import View, file_name, named, plural, quoted
from services.fix.page_html import absolute, is_http, origin, rel_has, words

ACTIVE_MIXED = frozenset({"script", "link", "iframe"})  # blocked by browsers
MIXED_TAGS = ("img", "script", "link", "iframe", "source", "video", "audio")
VAGUE_LINK_WORDS = frozenset({"click here", "click this", "here", "go", "more", "read more", "learn more",
                              "this", "link", "start", "right here", "continue", "more info", "details"})

NOT_PROBED = object()  # a link the audit did not probe (past MAX_LINK_PROBES): left unjudged


def link_problem(status: int | None) -> str:
    if status is None:
        return "no answer"
    if status in (404, 410):
        return "page not found"
    if status in (401, 403):
        return "closed to visitors"
    if status >= 500:
        return "the site's server failed"
    return f"error {status}"


def _broken_links(view: View, probe) -> list[tuple]:
    """Broken links (every SEO tool's audit), Lighthouse `crawlable-anchors` and `link-text`."""
    broken, scripted, vague = [], [], []
    for tag in view.soup.find_all("a"):
        href = (tag.get("href") or "").strip()
        text = words(tag.get_text(" ")).lower().strip(".!:»›→ ")
        if href.lower().startswith("javascript:"):
            scripted.append(text or href[:40])
            continue
        if text in VAGUE_LINK_WORDS and href and not href.startswith("#"):
            vague.append(text)
        if not href or href.startswith("#"):
            continue
        url = absolute(view.base, href)
        if not is_http(url):
            continue
        status = probe(url)
        if status is NOT_PROBED:
            continue
        if status is None or status >= 400:
            if url not in [b["href"] for b in broken]:
                broken.append({"href": url, "status": status})
    found = []
    if broken:
        shown = [f"{_short(b['href'], view.page.url)} ({link_problem(b['status'])})" for b in broken]
        found.append(("medium", f"{plural(len(broken), 'link leads', 'links lead')} to a page that does not open: "
                      f"{named(shown)}.", {"links": broken}))
    if scripted:
        found.append(("low", f"{plural(len(scripted), 'link works', 'links work')} only with scripts, so search "
                      f"engines cannot follow {'it' if len(scripted) == 1 else 'them'}: "
                      f"{named([quoted(s) for s in scripted])}.", {"links": scripted}))
    if vague:
        found.append(("low", f"{plural(len(vague), 'link says', 'links say')} only "
                      f"{named(sorted({quoted(v) for v in vague}))}, which tells search engines and screen "
                      "readers nothing about where it leads.", {"words": vague}))
    return found


def _short(url: str, page_url: str) -> str:
    """A link as a founder reads it: the path on their own site, the whole address elsewhere."""
    if origin(url) == origin(page_url):
        parts = urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "") or "/"
    return url


def mixed_resources(soup: BeautifulSoup, base: str, where: dict[int, int]) -> list[dict]:
    """The http: subresources of a page: {position, tag, attr, url} per address (srcset lists
    each of theirs)."""
    found = []
    for tag in soup.find_all(MIXED_TAGS):
        if tag.name == "link" and not rel_has(tag, "stylesheet"):
            continue
        for attr in ("src", "href", "srcset") if tag.name != "link" else ("href",):
            raw = tag.get(attr)
            if not raw:
                continue
            candidates = [c.strip().split()[0] for c in raw.split(",") if c.strip()] if attr == "srcset" else [raw]
            for candidate in candidates:
                url = urljoin(base, candidate.strip())
                if urlsplit(url).scheme == "http":
                    position = where[id(tag)]
                    found.append({"position": position, "tag": tag.name, "attr": attr, "url": url})
    return found


def _mixed_content(view: View, _probe) -> list[tuple]:
    """Lighthouse mixed content (`is-on-https`): an https page loading files over http."""
    if urlsplit(view.page.url).scheme != "https":
        return []
    resources = mixed_resources(view.soup, view.base, view.where)
    active = [r for r in resources if r["tag"] in ACTIVE_MIXED]
    passive = [r for r in resources if r["tag"] not in ACTIVE_MIXED]
    found = []
    if active:
        found.append(("high", f"{plural(len(active), 'script, style or frame is', 'scripts, styles or frames are')} "
                      "loaded without encryption, so browsers block them on this secure page: "
                      f"{named([file_name(r['url']) for r in active])}.", {"kind": "active", "resources": active}))
    if passive:
        found.append(("medium", f"{plural(len(passive), 'picture or media file is', 'pictures or media files are')} "
                      "loaded without encryption, so browsers warn visitors that this page is not fully secure: "
                      f"{named([file_name(r['url']) for r in passive])}.", {"kind": "passive", "resources": passive}))
    return found


RUNS = {"broken_links": _broken_links, "mixed_content": _mixed_content}
