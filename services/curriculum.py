"""The curriculum (GET /api/curriculum): short lessons for a solo founder using this
service, kept as Markdown files in the repository and read once per process.

Layout of `curriculum/` (the README's "Curriculum and 3D preview" says the same):

- one folder per subject, named `<NN>-<subject id>` (the number orders the subjects);
- in it, `README.md` gives the subject's title (its front matter `title:` or its first
  `# heading`) and, below the title, a one-paragraph summary;
- each lesson is `<NN>-<lesson id>.md` (the number orders the lessons); its title is its
  front matter `title:` or its first `# heading`, and its body is the rest of the file.

Figures the code owns are written `{{name}}` in a lesson and filled in from the constants
and settings in `figures()` when the files are read, so a lesson never states a number
that the service no longer uses. A placeholder that names no figure, a file without a
title, or a folder or file name that does not follow the layout stops the read with
CurriculumError (tests/test_curriculum.py reads the shipped folder).

A subject is looked up by id in what was read, never by building a path from the
request: `../` or any other unknown id is simply unknown.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from config import ROOT, get_settings
from services.discovery import BASE_ALLOWANCE, FEED_SIZE, HOLD_MINUTES, MAX_SHARE_LIFTS
from services.errors import Refused
from services.meter import BUCKETS
from services.referrals import REFERRAL_MULTIPLIERS

CURRICULUM_DIR = ROOT / "curriculum"
SUBJECT_FILE = "README.md"

_NAME = re.compile(r"^(\d+)-([a-z0-9]+(?:-[a-z0-9]+)*)$")
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9_]+)\s*\}\}")


class CurriculumError(Exception):
    """The curriculum folder does not follow its layout (a fault in the repository)."""


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    body_markdown: str


@dataclass(frozen=True)
class Subject:
    id: str
    title: str
    summary: str
    lessons: tuple[Lesson, ...]


def figures() -> dict[str, object]:
    """The numbers lessons may name, from the code and the settings in force."""
    settings = get_settings()
    return {
        "hold_minutes": HOLD_MINUTES,
        "feed_size": FEED_SIZE,
        "feed_candidates": FEED_SIZE - 1,
        "base_allowance": BASE_ALLOWANCE,
        "max_allowance": BASE_ALLOWANCE + MAX_SHARE_LIFTS,
        "evidence_min_rows": settings.evidence_min_rows,
        "evidence_max_age_days": settings.evidence_max_age_days,
        "min_margin_pct": settings.min_margin_pct,
        "referral_cap": f"{max(REFERRAL_MULTIPLIERS):g}",
        **{f"{bucket.id}_cost": bucket.cost for bucket in BUCKETS.values()},
    }


def subjects() -> dict:
    """GET /api/curriculum without a subject: every subject, in order, with its lessons' titles."""
    return {"status": "ok", "subjects": [
        {"id": s.id, "title": s.title, "summary": s.summary,
         "lessons": [{"id": lesson.id, "title": lesson.title} for lesson in s.lessons]}
        for s in read_curriculum().values()]}


def subject(subject_id: str) -> dict:
    """GET /api/curriculum?subject=<id>: the subject's lessons, in order, with their bodies."""
    found = read_curriculum().get(subject_id)
    if found is None:
        known = ", ".join(read_curriculum())
        raise Refused("unknown_subject", f"There is no subject with that id. The subjects are: {known}.")
    return {"status": "ok", "subject": found.id, "title": found.title, "summary": found.summary,
            "lessons": [{"id": lesson.id, "title": lesson.title, "body_markdown": lesson.body_markdown}
                        for lesson in found.lessons]}


def read_curriculum(folder: Path = CURRICULUM_DIR) -> dict[str, Subject]:
    """The subjects of the folder by id, in order; read once per process and folder."""
    return _read(str(folder))


@functools.cache
def _read(folder: str) -> dict[str, Subject]:
    # functools.cache may run this twice when two first requests race; both read the same files.
    values = figures()
    subjects: dict[str, Subject] = {}
    for _number, subject_id, path in _numbered(Path(folder).iterdir(), directories=True):
        if subject_id in subjects:
            raise CurriculumError(f"{path}: a second subject with the id {subject_id!r}")
        readme = path / SUBJECT_FILE
        if not readme.is_file():
            raise CurriculumError(f"{path}: no {SUBJECT_FILE} giving the subject's title")
        title, summary = _titled(readme, values)
        lessons = []
        for _n, lesson_id, lesson_path in _numbered((p for p in path.iterdir() if p.name != SUBJECT_FILE),
                                                    directories=False):
            if any(lesson.id == lesson_id for lesson in lessons):
                raise CurriculumError(f"{lesson_path}: a second lesson with the id {lesson_id!r}")
            lesson_title, body = _titled(lesson_path, values)
            lessons.append(Lesson(lesson_id, lesson_title, body))
        if not lessons:
            raise CurriculumError(f"{path}: a subject with no lesson")
        subjects[subject_id] = Subject(subject_id, title, " ".join(summary.split()), tuple(lessons))
    return subjects


def _numbered(paths, *, directories: bool):
    """(number, id, path) of each `<NN>-<id>` folder (or `<NN>-<id>.md` file), in number order."""
    found = []
    for path in paths:
        if path.name.startswith("."):
            continue
        if path.is_dir() != directories:
            raise CurriculumError(f"{path}: expected {'a subject folder' if directories else 'a lesson file'}")
        stem = path.name if directories else path.name.removesuffix(".md")
        match = _NAME.match(stem)
        if match is None or (not directories and not path.name.endswith(".md")):
            raise CurriculumError(f"{path}: not named <number>-<id>{'' if directories else '.md'} "
                                  "(lower-case letters, digits and hyphens)")
        found.append((int(match.group(1)), match.group(2), path))
    numbers = [number for number, _id, _path in found]
    if len(numbers) != len(set(numbers)):
        raise CurriculumError(f"two entries share a number among {sorted(p.name for _n, _i, p in found)}")
    return sorted(found)


def _titled(path: Path, values: dict) -> tuple[str, str]:
    """(title, body) of a Markdown file: the title from the front matter's `title:` or the
    first `# heading` (which then leaves the body), the body with figures filled in."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    title = None
    if text.startswith("---\n"):
        end = text.find("\n---\n", 3)
        if end < 0:
            raise CurriculumError(f"{path}: front matter without its closing ---")
        for line in text[4:end].splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "title" and value.strip():
                title = value.strip().strip("\"'")
        text = text[end + 5:]
    if title is None:
        lines = text.split("\n")
        for index, line in enumerate(lines):
            if line.startswith("# "):
                title = line[2:].strip()
                text = "\n".join(lines[:index] + lines[index + 1:])
                break
    if not title:
        raise CurriculumError(f"{path}: no title (front matter title: or a first # heading)")

    def fill(match):
        name = match.group(1)
        if name not in values:
            raise CurriculumError(f"{path}: {{{{{name}}}}} names no figure (known: {', '.join(sorted(values))})")
        return str(values[name])

    return _PLACEHOLDER.sub(fill, title), _PLACEHOLDER.sub(fill, text).strip() + "\n"
