"""What a store built here can hold of Fix's repairs (issue 48.2), and the apply that writes them.

A store built by this service is rendered from its store document (services/store/render.py),
which already writes everything the audit asks of a page: titles and search descriptions within
their bounds, alt text, width and height on every picture (a build refuses a photo that is not
on this service or at an https address: services/store/verify.py), canonical links, link
previews, Organization and Product data (tests/test_built_store_passes_its_audit.py). So a
finding on such a store comes from what its founder wrote in it, and its repair is a change of
the store document, never an HTML snippet a founder of a store built here could not paste
anywhere:

- a link in the About text (the only founder text rendered with links) that leads to a page that
  does not open: the link is taken out and its words stay, shown to the owner before anything is
  written. Fix does not guess where a link should lead instead;
- everything else is listed apart with why, in a founder's words: a link whose words say
  nothing (only its writer knows better words), the address the store is served at.

A run writes nothing into the store (audit_run.py: `plan` marks each finding). Its owner applies
the planned changes in one step (`apply`: POST /api/fix/apply): one new store version, made from
the draft the editor shows, undone like any edit by the Store screen's step back, published at
once when the store had nothing else waiting to be published; then a fresh run checks the new
version, and its measured score becomes the report's score after (audit_run.py, summary.py).
"""
from __future__ import annotations

import copy
import secrets

from bs4 import BeautifulSoup

from models.clock import utcnow
from models.db import is_sqlite, transaction
from models.fix import FixRun
from models.job import Job
from models.store import Store
from services.errors import Refused
from services.fix import link_checks
from services.fix.page_html import absolute
from services.jobs import active_job, create_job
from services.ownership import Owner

KIND = "fix_run"  # the job a fresh check runs as (services/fix/runs.py)

# Why a finding is not repaired in the store's content, by check: what the founder can do.
APART = {
    "https": "Your store is served at an address starting with http:, which is set where the service runs, not "
             "in your store's content. A domain of your own, connected on the Domains screen, is served over "
             "https.",
    "broken_links": "This link is in your store's About text, which only you write: better words for it are "
                    "yours to choose. Change them there in the store editor.",
}
OTHERWISE = ("Your store's pages are written by the service, and this is not something your store's content "
             "holds, so we could not repair it for you.")
UNDO = ("It is one new version of your store: to undo it, step back to the version before on the Store screen "
        "(and publish, if it was live).")


def _dead_links(findings: list[dict]) -> dict[str, str]:
    """Every link the findings say does not open: {address: what it answered, in words}."""
    dead: dict[str, str] = {}
    for finding in findings:
        if finding["check"] != "broken_links":
            continue
        for link in (finding.get("target") or {}).get("links") or []:
            if isinstance(link, dict) and link.get("href"):
                dead.setdefault(link["href"], link_checks.link_problem(link.get("status")))
    return dead


def _about_change(document: dict, dead: dict[str, str]) -> dict | None:
    """The About text with its links to pages that do not open taken out (their words kept)."""
    about = (document.get("copy") or {}).get("about")
    if not isinstance(about, str) or not dead:
        return None
    soup = BeautifulSoup(about, "html.parser")
    taken = []
    for tag in soup.find_all("a"):
        href = absolute("", tag.get("href") or "")  # as the audit reads a link: without its fragment
        if href in dead:
            taken.append((" ".join(tag.get_text(" ").split()) or href, href))
            tag.unwrap()
    if not taken:
        return None
    words = [f"\u201c{text}\u201d" for text, _href in taken]
    leads = [f"{w} leads to {href}, which does not open ({dead[href]})" for w, (_text, href) in
             zip(words, taken, strict=True)]
    return {"path": ["copy", "about"], "old": about, "new": str(soup),
            "hrefs": [href for _text, href in taken],
            "what": "A link in your About text" if len(taken) == 1 else "Links in your About text",
            "before": "; ".join(leads) + ".",
            "after": f"{' and '.join(words)} {'stays' if len(taken) == 1 else 'stay'}, as plain words."}


def plan(document: dict, findings: list[dict]) -> list[dict]:
    """Each finding of a run of a store built here, marked with what its document can hold:
    `fix` {kind: store_change, what, before, after, changes, draft: false} (ready to apply), or
    fix None and `why` (listed apart). Nothing is written."""
    about = _about_change(document, _dead_links(findings))
    for finding in findings:
        links = [link.get("href") for link in (finding.get("target") or {}).get("links") or []
                 if isinstance(link, dict)]
        # A finding is repaired by the change when every dead link it names is taken out by it.
        repaired = about is not None and finding["check"] == "broken_links" and links and \
            set(links) <= set(about["hrefs"])
        finding["fixed"] = False
        if repaired:
            finding["fix"] = {"kind": "store_change", "what": about["what"], "before": about["before"],
                              "after": about["after"], "changes": [about], "draft": False}
            finding.pop("why", None)
        else:
            finding["fix"] = None
            finding["why"] = APART.get(finding["check"], OTHERWISE)
    return findings


def planned_changes(findings: list[dict]) -> list[dict]:
    """Every document change the findings plan (or applied), once each, naming the findings it repairs."""
    changes: list[dict] = []
    for finding in findings:
        for change in (finding.get("fix") or {}).get("changes") or []:
            same = next((c for c in changes if c["path"] == change["path"] and c["new"] == change["new"]), None)
            if same is None:
                changes.append({**change, "findings": [finding["id"]]})
            else:
                same["findings"].append(finding["id"])
    return changes


def with_changes(document: dict, changes: list[dict]) -> tuple[dict, list[dict]]:
    """The document with each change whose old value it still holds; and the changes made."""
    updated, made = copy.deepcopy(document), []
    for change in changes:
        *parents, last = change["path"]
        holder = updated
        for key in parents:
            holder = holder.get(key) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and holder.get(last) == change["old"]:
            holder[last] = change["new"]
            made.append(change)
    return updated, made


def store_of(run: FixRun, owner: Owner) -> Store | None:
    """The store built here that the run checked, when `owner` is its owner; else None."""
    if run.product_id is None:
        return None
    store = Store.get_or_none(Store.product == run.product_id)
    return store if store is not None and store.owner == owner.key else None


def apply(*, run: FixRun, owner: Owner) -> tuple[FixRun, list[Job]]:
    """Writes every planned change as one new version of the owner's store (a second apply, or
    one racing it, writes nothing more); answers the run and the jobs to send after commit: the
    publish (when the store had nothing else waiting to be published) and the fresh check."""
    from services.store import publish, versions  # services.store reaches back into Fix's neighbours

    if store_of(run, owner) is None:
        raise Refused("not_found", "No check of a store of yours has that token: only a store's owner applies its "
                                   "repairs. Nothing was changed.")
    if run.stage != FixRun.DONE:
        raise Refused("fix_run_not_done")
    if run.applied_at is not None:
        return run, []
    changes = planned_changes(run.findings)
    if not changes:
        raise Refused("nothing_to_apply")
    jobs: list[Job] = []
    with transaction():
        # The store row is locked before anything is read (write_version locks it too), so two
        # applies of one run, or an apply and an edit, take turns; the run's conditional update
        # lets only the first of two applies write.
        query = Store.select().where(Store.product == run.product_id)
        store = (query if is_sqlite() else query.for_update()).get()
        if FixRun.update(applied_at=utcnow()).where(FixRun.id == run.id, FixRun.applied_at.is_null()).execute() == 0:
            return FixRun.get_by_id(run.id), []
        draft = versions.document_of(run.product_id, store.draft)
        updated, made = with_changes(draft, changes)
        if not made:
            raise Refused("nothing_to_apply", "Your store changed since this check, and none of its repairs matches "
                                              "it any more. Nothing was changed; check your store again.")
        live = store.published_version is not None and store.published_version == store.draft
        number = versions.write_version(run.product_id, updated, by_founder=True,
                                        summary="Fix: " + " and ".join(c["what"].lower() for c in made) + " repaired")
        if live:
            job, created = publish.request_publish(run.product_id)
            jobs += [job] if created else []
        check = FixRun.create(token=secrets.token_urlsafe(24), url=run.url, session=run.session_id, account=run.account_id,
                              product=run.product_id, audited_version=number, recheck_of=run.id,
                              created_at=utcnow())
        job, _ = create_job(kind=KIND, subject=check.token, payload={"run_id": check.id}, max_attempts=2)
        jobs.append(job)
        repaired = {finding_id for change in made for finding_id in change["findings"]}
        FixRun.update(store_version=number, recheck_id=check.id,
                      findings=[_applied(f, number, repaired) for f in run.findings]).where(
            FixRun.id == run.id).execute()
    return FixRun.get_by_id(run.id), jobs


def _applied(finding: dict, version: int, repaired: set[str]) -> dict:
    if finding["id"] not in repaired:
        return finding
    return {**finding, "fixed": True, "fix": {**finding["fix"], "kind": "store_version", "version": version}}


def _apart(findings: list[dict]) -> list[dict]:
    """The findings the store's content cannot hold, once per thing said (the same finding on
    every page is one entry naming them all)."""
    apart: list[dict] = []
    for finding in findings:
        if finding.get("fix"):
            continue
        why = finding.get("why") or OTHERWISE
        same = next((a for a in apart if a["what"] == finding["detail"] and a["why"] == why), None)
        if same is None:
            apart.append({"finding": finding["id"], "findings": [finding["id"]], "what": finding["detail"], "why": why})
        else:
            same["findings"].append(finding["id"])
    return apart


def _publishing(product_id: str) -> bool:
    from services.store import builds, publish

    return active_job(kind=publish.PUBLISH, subject=builds.subject(product_id)) is not None


def said(run: FixRun, owner: Owner) -> dict | None:
    """The `apply` part of a run's answer: for the owner of the store built here it checked, once
    it is done, what applying writes (or wrote), what stays apart and why, and where it stands."""
    store = store_of(run, owner) if run.stage == FixRun.DONE else None
    if store is None:
        return None
    changes = planned_changes(run.findings)
    check = FixRun.get_or_none(FixRun.id == run.recheck_id) if run.recheck_id else None
    state = "applied" if run.applied_at else "offered" if changes else "nothing"
    return {
        "state": state,
        "repairs": [{"finding": c["findings"][0], "findings": c["findings"], "what": c["what"],
                     "before": c["before"], "after": c["after"]} for c in changes],
        "apart": _apart(run.findings),
        "version": run.store_version,
        "published": run.store_version is not None and store.published_version == run.store_version,
        "publishing": run.store_version is not None and _publishing(run.product_id),
        "checking": check is not None and check.stage not in FixRun.FINISHED,
        "check_token": check.token if check is not None else None,
        "undo": UNDO,
    }
