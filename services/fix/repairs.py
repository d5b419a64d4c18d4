"""The repair: for one audited page, the corrected HTML and a snippet per finding it could
repair, never stating a fact the page does not.

repair() parses the page with html.parser, changes only what a finding names (a tag added
to <head>, an attribute set, a title or description replaced) and returns the whole page
with everything else as it was. Each finding comes back with `fixed` and `fix` filled in:

    fix = {kind: "snippet", snippet: "<...>" (HTML a founder can paste),
           where: "head" (add it to the page's <head>) | "replace" (put it in place of the
                  element it names), draft: bool (AI-drafted words to read before using),
           how: where the change goes on the platform the page was made with, in words
                (Shopify, WooCommerce, Wix, Squarespace or plain HTML: platforms.py)}

`fixed` is True when the finding is wholly repaired (the corrected page, audited again,
no longer has it); a finding repaired in part (two of three images sized) keeps fixed
False and its fix holds the part that was done; a finding that cannot be repaired keeps
fix None. What is repaired, and from what:

- title: missing or empty, from the page's main heading or og:title (with the shop's name
  when it fits); too long, shortened to 60 characters as the store's renderer shortens its
  own (services/page_titles.py: at a separator or a word, the shop's name kept where it fits).
- meta_description: missing or empty, drafted from the page's own words (draft); too long,
  cut at a word.
- image_alt: alt text drafted from the file name and the words around the image (draft).
- product_data: JSON-LD Product from what the page states: its name (main heading,
  og:title or title), description (meta or og:description), image (og:image or the first
  picture), address, and an offer only when the page states a price and names its currency;
  a field the page does not state is left out. JSON-LD Organization from the shop's name as
  its pages state it and the site's address. The JSON has <, > and & written as \\u003c,
  \\u003e and \\u0026 so no text in it can close its <script>.
- canonical: the page's own address without query or fragment (a relative one resolved).
- open_graph: og:title, og:description, og:image and og:url from the title, description,
  first picture and canonical address.
- viewport: width=device-width, initial-scale=1.
- mixed_content: each http address rewritten to https only when status_of(the https
  address) answers below 400.
- image_size: width and height from image_size(address) -> (width, height) | None; a
  dimension already set is kept and the other follows the picture's proportions.
- A page that declares a character set other than UTF-8 is declared UTF-8: the corrected
  page is text, saved and served as UTF-8.
- Not repaired (reported only): https (the server's setting), one_h1 (the page's design),
  broken_links (where a link should lead is not guessed), page_weight, and noindex (it may
  be meant).

Each repair is here but the JSON-LD one (structured_data.py); the page being repaired and
the way it is written back are in repair_work.py, the page reading shared with the checks in
page_html.py.
"""
from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, Doctype, Tag

from integrations.copy_text import cut
from services.fix import platforms
from services.fix.checks import CHECKS
from services.fix.page_html import (
    Page,
    absolute,
    canonical_tag,
    content_of,
    head_title,
    is_http,
    main_text,
    meta_named,
    og_tag,
    own_address,
    words,
)
from services.fix.repair_work import Fix, Work, html_of
from services.fix.structured_data import canonical_address, first_image, repair_product_data
from services.page_titles import TITLE_MOST, cut_title, fitted_title

VIEWPORT = "width=device-width, initial-scale=1"
DESCRIPTION_CUT = 155  # a too-long description is cut a little inside the limit


# --- One repair per check --------------------------------------------------------------------

def _title(work: Work, target: dict) -> Fix | None:
    if target.get("problem") == "too_long":
        tag = head_title(work.soup)
        if tag is None:
            return None
        # Shortened as the store's renderer shortens its own: the shop's name kept where it fits.
        tag.string = fitted_title(target.get("text") or work.title_text(), words(target.get("shop")))
        return Fix(html_of(tag), "replace", False, True)
    name = work.heading() or content_of(og_tag(work.original, "og:title"))
    shop = words(target.get("shop")) or content_of(og_tag(work.original, "og:site_name"))
    if not name and not (shop and target.get("home")):
        return None  # only the first page (the shop's front) is titled with the shop's name alone
    text = name if not shop or shop.lower() in name.lower() else f"{name} – {shop}" if name else shop
    text = text if len(text) <= TITLE_MOST else cut_title(name, TITLE_MOST)
    tag = head_title(work.soup)
    if tag is None:
        tag = work.add_to_head(work.soup.new_tag("title"))
        tag.string = text
        return Fix(html_of(tag), "head", False, True)
    tag.string = text
    return Fix(html_of(tag), "replace", False, True)


def _meta_description(work: Work, target: dict) -> Fix | None:
    tag = meta_named(work.soup, "description")
    if target.get("problem") == "too_long":
        if tag is None:
            return None
        tag["content"] = cut(words(target.get("text") or tag.get("content")), DESCRIPTION_CUT)
        return Fix(html_of(tag), "replace", False, True)
    written = work.drafts.meta_description(title=work.title_text() or work.heading(), text=main_text(work.original))
    written = cut(words(written), DESCRIPTION_CUT)
    if not written:
        return None
    work.drafted_description = True
    if tag is None:
        tag = work.add_to_head(work.soup.new_tag("meta", attrs={"name": "description", "content": written}))
        return Fix(html_of(tag), "head", True, True)
    tag["content"] = written
    return Fix(html_of(tag), "replace", True, True)


def _image_alt(work: Work, target: dict) -> Fix | None:
    done, images = [], target.get("images") or []
    for image in images:
        tag = work.tag_at(image.get("position"))
        if tag is None or tag.name != "img":
            continue
        src = tag.get("src") or tag.get("data-src") or ""
        alt = words(work.drafts.alt_text(src=src, context=image_context(tag, work)))
        if alt:
            tag["alt"] = alt
            done.append(html_of(tag))
    return Fix("\n".join(done), "replace", True, len(done) == len(images)) if done else None


def image_context(tag: Tag, work: Work) -> str:
    """The words a visitor sees with the image: its caption, its link's words or title, the
    heading above it, else the page's main heading or title."""
    figure = tag.find_parent("figure")
    caption = figure.find("figcaption") if figure is not None else None
    link = tag.find_parent("a")
    above = tag.find_previous(["h1", "h2", "h3"])
    for candidate in (caption.get_text(" ") if caption is not None else "",
                      link.get_text(" ") if link is not None else "",
                      link.get("title") if link is not None else "",
                      tag.get("title"),
                      above.get_text(" ") if above is not None else "",
                      work.heading(), work.title_text()):
        if words(candidate):
            return words(candidate)
    return ""


def _canonical(work: Work, target: dict) -> Fix | None:
    if target.get("problem") == "missing":
        tag = canonical_tag(work.soup)
        if tag is not None:  # present with an empty href
            tag["href"] = own_address(work.page.url)
            return Fix(html_of(tag), "replace", False, True)
        tag = work.soup.new_tag("link", attrs={"rel": "canonical", "href": own_address(work.page.url)})
        work.add_to_head(tag)
        return Fix(html_of(tag), "head", False, True)
    if target.get("problem") == "not_absolute":
        tag = canonical_tag(work.soup)
        if tag is None:
            return None
        resolved = absolute(work.base, target.get("href") or "")
        tag["href"] = resolved if is_http(resolved) else own_address(work.page.url)
        return Fix(html_of(tag), "replace", False, True)
    return None


def _open_graph(work: Work, target: dict) -> Fix | None:
    missing = target.get("missing") or []
    description = content_of(meta_named(work.soup, "description"))
    values = {"og:title": work.title_text() or work.heading(),
              "og:description": description,
              "og:image": first_image(work),
              "og:url": canonical_address(work)}
    added, draft = [], False
    for prop in missing:
        value = values.get(prop)
        if not value:
            continue
        existing = og_tag(work.soup, prop)
        if existing is not None:  # present but empty
            existing["content"] = value
            added.append(html_of(existing))
        else:
            added.append(html_of(work.add_to_head(work.soup.new_tag("meta", attrs={"property": prop, "content": value}))))
        draft = draft or (prop == "og:description" and work.drafted_description)
    return Fix("\n".join(added), "head", draft, len(added) == len(missing)) if added else None


def _viewport(work: Work, target: dict) -> Fix | None:
    tag = meta_named(work.soup, "viewport")
    if tag is None:
        tag = work.add_to_head(work.soup.new_tag("meta", attrs={"name": "viewport", "content": VIEWPORT}))
        return Fix(html_of(tag), "head", False, True)
    tag["content"] = VIEWPORT
    return Fix(html_of(tag), "replace", False, True)


def _mixed_content(work: Work, target: dict) -> Fix | None:
    resources = target.get("resources") or []
    secure: dict[str, str] = {}
    for resource in resources:
        url = resource.get("url") or ""
        if urlsplit(url).scheme != "http":
            continue
        https = "https:" + url[len("http:"):]
        status = work.probe(https)
        # Rewritten only when the same file answers over https: a guess would break the page.
        if status is not None and status < 400:
            secure[url] = https
    changed: list[Tag] = []
    rewritten = 0
    for resource in resources:
        tag = work.tag_at(resource.get("position"))
        attr = resource.get("attr")
        if tag is None or tag.name != resource.get("tag") or not tag.get(attr) or resource.get("url") not in secure:
            continue
        if attr == "srcset":
            tag[attr] = _rewrite_srcset(tag[attr], work.base, secure)
        elif urljoin(work.base, tag[attr].strip()) == resource["url"]:
            tag[attr] = secure[resource["url"]]
        else:
            continue
        rewritten += 1
        if tag not in changed:
            changed.append(tag)
    if not changed:
        return None
    return Fix("\n".join(html_of(t) for t in changed), "replace", False, rewritten == len(resources))


def _rewrite_srcset(srcset: str, base: str, secure: dict[str, str]) -> str:
    candidates = []
    for candidate in srcset.split(","):
        parts = candidate.strip().split(None, 1)
        if not parts:
            continue
        url = urljoin(base, parts[0])
        parts[0] = secure.get(url, parts[0])
        candidates.append(" ".join(parts))
    return ", ".join(candidates)


def _image_size(work: Work, target: dict) -> Fix | None:
    done, images = [], target.get("images") or []
    for image in images:
        tag = work.tag_at(image.get("position"))
        if tag is None or tag.name != "img" or not image.get("url"):
            continue
        size = work.image_size(image["url"])
        if not size or len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size):
            continue
        width, height = size
        set_width, set_height = _number(tag.get("width")), _number(tag.get("height"))
        if set_width and not set_height:
            height = max(1, round(set_width * height / width))
            width = None
        elif set_height and not set_width:
            width = max(1, round(set_height * width / height))
            height = None
        if width is not None:
            tag["width"] = str(width)
        if height is not None:
            tag["height"] = str(height)
        done.append(html_of(tag))
    return Fix("\n".join(done), "replace", False, len(done) == len(images)) if done else None


def _number(value) -> float | None:
    try:
        number = float(str(value).strip().removesuffix("px"))
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def declare_utf8(soup: BeautifulSoup) -> None:
    """The corrected page is text, saved and served as UTF-8: a page that declares another
    character set (windows-1252, say) declares UTF-8 instead, or its accents would be garbled."""
    for tag in soup.find_all("meta"):
        if tag.get("charset") is not None and tag["charset"].strip().lower() not in ("utf-8", "utf8"):
            tag["charset"] = "utf-8"
        elif (tag.get("http-equiv") or "").strip().lower() == "content-type" and re.search(
                r"charset\s*=\s*(?!utf-?8\b)", tag.get("content") or "", re.I):
            tag["content"] = "text/html; charset=utf-8"


REPAIRS = {"title": _title, "meta_description": _meta_description, "image_alt": _image_alt,
           "product_data": repair_product_data, "canonical": _canonical, "open_graph": _open_graph,
           "viewport": _viewport, "mixed_content": _mixed_content, "image_size": _image_size}
REPAIRABLE = tuple(REPAIRS)


def repair(page: Page, findings: list[dict], *, drafts, status_of, image_size) -> tuple[str, list[dict]]:
    """The page's corrected HTML and its findings with fixed and fix filled in. Findings of
    other pages come back unchanged. Repairs run in CHECKS order, so the link preview's
    tags read the title and description as repaired."""
    work = Work(page, drafts=drafts, status_of=status_of, image_size=image_size)
    for node in work.soup.contents:
        if isinstance(node, Doctype):
            node.SUFFIX = ">"  # Beautiful Soup adds a line break after it; the page has its own
    declare_utf8(work.soup)
    results: dict[str, dict] = {}
    platform = platforms.recognise(page.html)
    mine = [f for f in findings if f.get("page") == page.url]
    for finding in sorted(mine, key=lambda f: CHECKS.index(f["check"]) if f["check"] in CHECKS else len(CHECKS)):
        run = REPAIRS.get(finding["check"])
        done = run(work, finding.get("target") or {}) if run else None
        fix = None if done is None else {"kind": "snippet", "snippet": done.snippet, "where": done.where,
                                         "draft": done.draft, "how": platforms.how(platform, finding["check"])}
        results[finding["id"]] = {**finding, "fixed": bool(done and done.complete), "fix": fix}
    return html_of(work.soup), [results.get(f["id"], dict(f)) if f.get("page") == page.url else dict(f)
                            for f in findings]
