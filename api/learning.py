"""The curriculum (decisions.md "Research and verdict"): lessons for a solo founder, kept as
Markdown under curriculum/ (services/curriculum.py)."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from services import curriculum

bp = Blueprint("learning", __name__, description="Lessons for a founder using this service.")

DECISIONS: list[str] = [
    "GET /api/curriculum?subject=<id> (session): 200 {status: ok, subject, title, summary, lessons: [{id, title, "
    "body_markdown}]}, lessons in order; without subject (or with an empty one) 200 {status: ok, subjects: [{id, "
    "title, summary, lessons: [{id, title}]}]}; an id that is not a subject (`../` included) is 404 "
    "`unknown_subject`. Subjects: " + ", ".join(curriculum.read_curriculum()) + ".",
    f"Lessons are Markdown files in the repository: {curriculum.CURRICULUM_DIR.name}/<NN>-<subject id>/ per subject "
    f"(its {curriculum.SUBJECT_FILE} gives the title and summary), <NN>-<lesson id>.md per lesson; the numbers "
    "order them. A lesson's title is its front matter `title:` or its first `# heading` (which is then not repeated "
    "in body_markdown). Figures the code owns (hold minutes, feed size, allowance, evidence gate, credit costs) are "
    "filled in from the constants and settings in force. The files are read once per process; a change needs a restart.",
]


class CurriculumQuery(Schema):
    subject = fields.String(metadata={"description": "A subject id; omit it to list the subjects"})


class LessonSchema(Schema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    body_markdown = fields.String(metadata={"description": "Markdown; present when a subject is asked for"})


class SubjectSchema(Schema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    summary = fields.String(required=True)
    lessons = fields.List(fields.Nested(LessonSchema), required=True)


class CurriculumAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    subjects = fields.List(fields.Nested(SubjectSchema), metadata={"description": "Without subject: every subject"})
    subject = fields.String(metadata={"description": "With subject: its id"})
    title = fields.String()
    summary = fields.String()
    lessons = fields.List(fields.Nested(LessonSchema), metadata={"description": "With subject: its lessons, in order"})


@bp.get("/api/curriculum")
@bp.declare(changes_state=False, refuses={404: ["unknown_subject"]})
@bp.arguments(CurriculumQuery, location="query")
@bp.response(200, CurriculumAnswer)
def lessons(query):
    """Lists the curriculum's subjects, or serves one subject's lessons in Markdown."""
    subject_id = (query.get("subject") or "").strip()
    return curriculum.subject(subject_id) if subject_id else curriculum.subjects()
