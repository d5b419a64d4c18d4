"""GET /api/curriculum (decisions.md "Research and verdict"): lessons kept as Markdown under
curriculum/, one folder per subject, read once and cached."""
import re

import pytest

from config import get_settings
from services import curriculum
from services.curriculum import CurriculumError, read_curriculum
from services.discovery import BASE_ALLOWANCE, FEED_SIZE, HOLD_MINUTES, MAX_SHARE_LIFTS
from services.meter import BUCKETS
from tests.factories import refusal

SUBJECTS = ["finding-a-product", "reading-the-offer", "launching", "ads", "support"]

# The app's screens as its navigation names them (api/static/app/main.js, NAV): a lesson names
# one of them ("the Store screen", "the Dashboard") or links to one (#/app/store).
SCREENS = ["Home", "Your products", "Find", "Offer", "Dashboard", "Store", "Edit", "Product", "Launch", "Orders",
           "Suppliers", "Domains", "Research", "Insights", "Workspace", "Learn", "Meter", "Account"]
NAMES_A_SCREEN = re.compile(r"\(#/app/[a-z-]+\)|\bthe (?:" + "|".join(SCREENS) + r")(?: screen)?\b")
# What a founder should not have to read in a lesson (tests/browser/test_founder_words.py
# checks the same on the Learn screen): the service's plumbing rather than the app's words.
FORBIDDEN = {
    "an API route": re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE) /|/api/"),
    "a setting's name": re.compile(r"\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b"),
    "a JSON path": re.compile(r"\$\.[\w\[]"),
    "a backticked code": re.compile(r"`[a-z0-9]+(?:_[a-z0-9]+)+`"),
}


def lessons_of(client, subject):
    response = client.get("/api/curriculum", query_string={"subject": subject})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_without_a_subject_the_subjects_are_listed_in_order_with_their_lessons(client):
    response = client.get("/api/curriculum")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "ok" and set(body) == {"status", "subjects"}
    assert [s["id"] for s in body["subjects"]] == SUBJECTS
    assert [s["title"] for s in body["subjects"]] == [
        "Finding a product", "Reading the offer", "Launching", "Ads", "Support"]
    for subject in body["subjects"]:
        assert set(subject) == {"id", "title", "summary", "lessons"}
        assert subject["summary"] and "\n" not in subject["summary"]
        assert 2 <= len(subject["lessons"]) <= 4, subject["id"]
        for lesson in subject["lessons"]:
            assert set(lesson) == {"id", "title"} and lesson["title"] and re.fullmatch(r"[a-z0-9-]+", lesson["id"])
    assert client.get("/api/curriculum?subject=").get_json() == body  # an empty subject is no subject


def test_a_subject_serves_its_lessons_in_file_order_with_markdown_bodies(client):
    body = lessons_of(client, "reading-the-offer")
    assert (body["status"], body["subject"], body["title"]) == ("ok", "reading-the-offer", "Reading the offer")
    assert [(lesson["id"], lesson["title"]) for lesson in body["lessons"]] == [
        ("the-offer-figures", "The offer, figure by figure"),
        ("break-even-cpa-and-roas", "Break-even CPA and ROAS"),
        ("the-dashboard-verdict", "The dashboard verdict"),
    ]
    figures, roas, verdict = (lesson["body_markdown"] for lesson in body["lessons"])
    # The title is served apart, not repeated as the body's first heading.
    assert not figures.startswith("#") and figures.startswith("[The Offer screen](#/app/offer) prices")
    # Each figure as the Offer screen names it (api/static/app/sources.js, FIGURE_WORDS).
    for field in ("Recommended retail price", "Unit cost", "Shipping per unit", "Payment fees per sale",
                  "Unit margin", "Margin", "Break-even cost per acquisition", "Break-even ROAS",
                  "Inputs and sources"):
        assert f"**{field}**" in figures, field
    assert "21.50 ÷ 40.00 = **53.75 %**" in figures
    assert "40.00 ÷ 21.50 ≈ **1.86**" in roas
    assert all(f"**{verdict_name}**" in verdict for verdict_name in ("Go", "Test small", "Pass"))


def test_every_lesson_of_every_subject_is_served_with_figures_filled_in(client):
    listed = client.get("/api/curriculum").get_json()["subjects"]
    for subject in listed:
        body = lessons_of(client, subject["id"])
        assert [(lesson["id"], lesson["title"]) for lesson in body["lessons"]] == [
            (lesson["id"], lesson["title"]) for lesson in subject["lessons"]]
        for lesson in body["lessons"]:
            assert len(lesson["body_markdown"]) > 400, lesson["id"]  # short, but a lesson
            assert "{{" not in lesson["body_markdown"] and "}}" not in lesson["body_markdown"], lesson["id"]
            assert NAMES_A_SCREEN.search(lesson["body_markdown"]), f"{lesson['id']} names none of the app's screens"


def test_no_lesson_speaks_the_api():
    """A founder reads the lessons in the app: screens and buttons, not routes, reason codes,
    setting names or JSON paths."""
    texts = [(f"{subject.id}/{lesson.id}", lesson.body_markdown)
             for subject in read_curriculum().values() for lesson in subject.lessons]
    texts += [(f"{subject.id} (its summary)", subject.summary) for subject in read_curriculum().values()]
    found = [f"{where}: {what} {match.group(0)!r}" for where, text in texts
             for what, pattern in FORBIDDEN.items() for match in pattern.finditer(text)]
    assert not found, "\n".join(found)


def test_figures_come_from_the_code_and_the_settings_in_force(client):
    # Read with the lines joined, as the Learn screen shows a paragraph.
    finding = {lesson["id"]: " ".join(lesson["body_markdown"].split())
               for lesson in lessons_of(client, "finding-a-product")["lessons"]}
    settings = get_settings()
    assert f"held for you for {HOLD_MINUTES} minutes" in finding["holds-claims-and-passes"]
    assert (f"starts at {BASE_ALLOWANCE};" in finding["holds-claims-and-passes"]
            and f"up to {BASE_ALLOWANCE + MAX_SHARE_LIFTS}" in finding["holds-claims-and-passes"])
    assert f"up to {FEED_SIZE - 1} free candidates" in finding["reading-a-card"]
    assert (f"at least {settings.evidence_min_rows} dated evidence rows from the last "
            f"{settings.evidence_max_age_days} days") in finding["reading-a-card"]
    assert f"{settings.min_margin_pct} %" in finding["reading-a-card"]
    meter = " ".join(lessons_of(client, "support")["lessons"][2]["body_markdown"].split())
    for bucket in BUCKETS.values():  # each allowance as the Meter screen names it, with its cost
        assert f"**{bucket.name}**, {bucket.cost} credits a use" in meter, bucket.id


@pytest.mark.parametrize("subject", ["../", "..", "../curriculum", "../../etc/passwd", "01-finding-a-product",
                                     "Finding-A-Product", "finding-a-product/", "%2e%2e%2f", "README.md", "x" * 500])
def test_an_unknown_subject_is_404_unknown_subject(client, subject):
    body = refusal(client.get("/api/curriculum", query_string={"subject": subject}), 404, "unknown_subject")
    assert all(known in body["explanation"] for known in SUBJECTS)


def test_the_decisions_name_the_subjects(client):
    decisions = client.get("/api/openapi.json").get_json()["info"]["x-decisions"]
    assert any("GET /api/curriculum" in d and ", ".join(SUBJECTS) in d for d in decisions)


# --- The folder's layout --------------------------------------------------------------------------

def write(folder, files: dict):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def test_titles_come_from_front_matter_or_the_first_heading_and_order_from_the_numbers(tmp_path):
    write(tmp_path, {
        "2-second/README.md": "---\ntitle: Second subject\n---\nIts summary\nover two lines.\n",
        "2-second/10-later.md": "# Later\n\nBody of later.\n",
        "2-second/9-earlier.md": "---\ntitle: \"Earlier, with a quote\"\n---\n# Not the title\n\nHold {{hold_minutes}}.\n",
        "1-first/README.md": "# First subject\n\nSummary.\n",
        "1-first/1-only.md": "Intro line.\n# Only\nText.\n",
    })
    subjects = read_curriculum(tmp_path)
    assert list(subjects) == ["first", "second"]
    second = subjects["second"]
    assert (second.title, second.summary) == ("Second subject", "Its summary over two lines.")
    assert [(lesson.id, lesson.title) for lesson in second.lessons] == [
        ("earlier", "Earlier, with a quote"), ("later", "Later")]
    assert second.lessons[0].body_markdown == f"# Not the title\n\nHold {HOLD_MINUTES}.\n"
    assert second.lessons[1].body_markdown == "Body of later.\n"
    assert subjects["first"].lessons[0].body_markdown == "Intro line.\nText.\n"


@pytest.mark.parametrize("files, message", [
    ({"1-a/README.md": "# A\n", "1-a/1-x.md": "# X\n{{no_such_figure}}\n"}, "names no figure"),
    ({"1-a/README.md": "# A\n", "1-a/1-x.md": "no title at all\n"}, "no title"),
    ({"1-a/README.md": "# A\n", "1-a/x.md": "# X\n"}, "not named"),
    ({"1-a/README.md": "# A\n", "1-a/1-x.txt": "# X\n"}, "not named"),
    ({"a/README.md": "# A\n", "a/1-x.md": "# X\n"}, "not named"),
    ({"1-a/1-x.md": "# X\n"}, "README.md"),
    ({"1-a/README.md": "# A\n"}, "no lesson"),
    ({"1-a/README.md": "# A\n", "1-a/1-x.md": "# X\n", "1-a/01-y.md": "# Y\n"}, "share a number"),
    ({"1-a/README.md": "# A\n", "2-a/README.md": "# A\n", "1-a/1-x.md": "# X\n", "2-a/1-x.md": "# X\n"},
     "second subject"),
    ({"1-a/README.md": "---\ntitle: A\n", "1-a/1-x.md": "# X\n"}, "closing ---"),
])
def test_a_folder_that_breaks_the_layout_stops_the_read(tmp_path, files, message):
    write(tmp_path, files)
    with pytest.raises(CurriculumError, match=message):
        read_curriculum(tmp_path)


def test_the_files_are_read_once_and_cached(tmp_path):
    write(tmp_path, {"1-a/README.md": "# A\n", "1-a/1-x.md": "# X\nfirst\n"})
    first = read_curriculum(tmp_path)
    (tmp_path / "1-a" / "1-x.md").write_text("# X\nchanged\n")
    assert read_curriculum(tmp_path) is first
    assert first["a"].lessons[0].body_markdown == "first\n"
    assert read_curriculum() is read_curriculum(curriculum.CURRICULUM_DIR)
