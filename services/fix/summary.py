"""What a finished Fix run did, said once (issue 48.4): the numbers and the sentences that
the API's run answer (`summary`, services/fix/runs.py), the Fix screen (screens/fix.js), the
report mail and the follow-up mail (services/fix/mail.py, templates/email/fix_*) all show, so
none of them counts for itself and they cannot disagree.

Every finding of a run is in exactly one of three piles:

- repaired: written into the store itself, as a new store version (a store built here, once its
  owner applied the repairs: store_repairs.apply marks those findings fixed with a
  `store_version` fix);
- ready: a repair is written but it is not on the store until someone puts it there: for a
  store elsewhere a snippet to copy and the corrected page to download, for a store built here
  a change of its document waiting for its owner to apply it (`store_change`);
- left: no repair could be written (a broken link, two headings, an http address...).

The scores (issue 48.5): the score before is always measured, on the pages as they were read.
The score after is measured only once an apply wrote a store version and a fresh run checked
it (`after_measured`: that run's score). Otherwise it is the audit of the corrected pages (and
never below the score before, audit_run.py), which nobody has put on the store yet: what the
store is expected to score once the repairs are applied, not a score it has.
"""
from __future__ import annotations

from models.fix import FixRun

# The screen's subtitle, in a founder's words.
CHECKED = "Your store, checked."
CHECKED_AND_REPAIRED = "Your store, checked and repaired."


def _count(n: int, one: str) -> str:
    return f"{n} {one if n == 1 else one + 's'}"


def piles(findings: list[dict]) -> tuple[int, int, int]:
    """(repaired, ready, left): each finding in exactly one of them (module docstring)."""
    repaired = ready = left = 0
    for finding in findings:
        fix = finding.get("fix") or None
        if finding.get("fixed") and isinstance(fix, dict) and fix.get("kind") == "store_version":
            repaired += 1
        elif fix:
            ready += 1
        else:
            left += 1
    return repaired, ready, left


def sentence(*, pages_read: int, found: int, repaired: int, ready: int, left: int, built_here: bool = False) -> str:
    """One plain sentence of what the run did; it never says "repaired 0"."""
    read = f"We read {_count(pages_read, 'page')}"
    if not found:
        return f"{read} and found nothing to fix."
    parts = []
    if repaired:
        parts.append(f"we repaired {repaired} in a new version of your store")
    if ready:
        more = " more" if repaired else ""
        where = "to apply to your store" if built_here else "for you to copy or download"
        parts.append(f"{ready}{more} {'repair is' if ready == 1 else 'repairs are'} ready {where}")
    if left:
        parts.append(f"{left} we could not repair for you" if parts
                     else f"we could not repair {'it' if left == 1 else 'any of them'} for you")
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + ", and " + parts[-1]
    return f"{read} and found {_count(found, 'thing')} to fix: {said}."


def score_sentence(*, before: int | None, after: int | None, measured: bool, ready: int) -> str | None:
    """The scores in words: the one after is called a score only when it was measured."""
    if before is None:
        return None
    if measured and after is not None:
        return (f"Your store scored {before} out of 100 before the repairs; its new version, with them, "
                f"scores {after} out of 100.")
    if after is not None and ready and after != before:
        return (f"Your pages score {before} out of 100 as they are; we expect {after} out of 100 once these "
                "repairs are on your store.")
    return f"Your pages score {before} out of 100."


def of(run: FixRun) -> dict | None:
    """The summary of a finished run (None until it is done, and for one that failed)."""
    if run.stage != FixRun.DONE:
        return None
    findings = list(run.findings or [])
    repaired, ready, left = piles(findings)
    counts = {"pages_read": len(run.pages or []), "found": len(findings), "repaired": repaired, "ready": ready,
              "left": left}
    measured = bool(run.after_measured) and run.score_after is not None
    return {
        **counts,
        "score_before": run.score_before,
        "score_after": run.score_after,
        "score_after_measured": measured,
        "built_here": run.product_id is not None,
        "headline": CHECKED_AND_REPAIRED if repaired else CHECKED,
        "sentence": sentence(**counts, built_here=run.product_id is not None),
        "score_sentence": score_sentence(before=run.score_before, after=run.score_after, measured=measured,
                                         ready=ready),
    }
