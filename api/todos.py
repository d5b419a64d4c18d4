"""The founder's task list (spec 4.7 GET, POST /api/todos; decisions.md "Desk, tasks and
settings"): services/todos.py."""
from marshmallow import Schema, fields, validate

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from services import todos

bp = Blueprint("todos", __name__, description="The founder's tasks and the next launch steps.")

DECISIONS: list[str] = [
    "GET /api/todos (session) answers 200 {status: ok, todos: [{id, text, done, source: founder | launch, fact_id, "
    "created_at, completed_at}], open, done}: the open tasks first (the service's launch steps in launch order, "
    f"then the founder's oldest first), then the {todos.DONE_SHOWN} done most recently; `open` and `done` count "
    f"them all. Each read adds the next {todos.NEXT_STEPS} launch steps whose facts are false (GET /api/launch) as "
    "tasks (source launch, fact_id naming the fact, the fact's own advice as text), once per fact, and ticks off "
    "a step whose fact has come true (its text then the fact's label, what was achieved). A launch step the founder deleted is not added again.",
    "POST /api/todos {op: add, text} | {op: complete | reopen | delete, id} answers the whole list as GET does, "
    "with status added | completed | reopened | deleted and `todo` (the task changed; null once deleted). text: 1 "
    f"to {todos.MAX_TEXT} characters on one line (400 `invalid_todo`); a founder keeps at most {todos.MAX_TASKS} "
    "tasks of their own (409 `todo_limit_reached`); an id that is not one of the founder's tasks is 404 "
    "`not_found` (another founder's alike); another op is 400 `invalid_action`. Completing a done task or "
    "reopening an open one changes nothing and answers the same.",
]


class TodoBody(Schema):
    op = fields.String(required=True, validate=validate.OneOf(todos.OPS), metadata={"reason": "invalid_action"})
    text = fields.String(validate=validate.Length(min=1, max=todos.MAX_TEXT), metadata={"reason": "invalid_todo"})
    id = fields.Integer(strict=True, metadata={"reason": "invalid_todo", "description": "The task (complete, "
                                                                                       "reopen, delete)"})

    # add takes a line of text (services/todos._add); the others name a task by its id.
    BODY_RULES = {"anyOf": [
        {"required": ["op", "text"], "properties": {"op": {"enum": ["add"]},
                                                   "text": {"type": "string", "pattern": bounds.SHOWN_LINE}}},
        {"required": ["op", "id"], "properties": {"op": {"enum": [op for op in todos.OPS if op != "add"]}}},
    ]}


class TodoRow(Schema):
    id = fields.Integer(required=True)
    text = fields.String(required=True)
    done = fields.Boolean(required=True)
    source = fields.String(required=True, metadata={"enum": ["founder", "launch"]})
    fact_id = fields.String(required=True, allow_none=True, metadata={"description": "The launch fact of a step"})
    created_at = fields.String(required=True)
    completed_at = fields.String(required=True, allow_none=True)


class TodosAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "added", "completed", "reopened", "deleted"]})
    todos = fields.List(fields.Nested(TodoRow), required=True)
    open = fields.Integer(required=True)
    done = fields.Integer(required=True)
    todo = fields.Nested(TodoRow, allow_none=True, metadata={"description": "POST only: the task changed"})


@bp.get("/api/todos")
@bp.declare(changes_state=False)
@bp.response(200, TodosAnswer)
def todos_list():
    """The founder's tasks, with the next launch steps added."""
    return todos.tasks(session=current_session())


@bp.post("/api/todos")
@bp.declare(changes_state=True, refuses={400: ["invalid_action", "invalid_todo"], 404: ["not_found"],
                                         409: ["todo_limit_reached"]})
@bp.arguments(TodoBody)
@bp.response(200, TodosAnswer)
def todos_change(body):
    """Adds, completes, reopens or deletes a task."""
    return todos.change(session=current_session(), op=body["op"], text=body.get("text"), todo_id=body.get("id"))
