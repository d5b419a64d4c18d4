"""The founder's task list (GET, POST /api/todos): their own tasks, and the next launch
steps, which the service adds itself.

Launch steps: each time the list is read or changed, the first NEXT_STEPS launch facts
that are false today (services/research/launch.py, in launch order) get a task saying
what to do, once per fact (a unique index on owner and fact settles two reads at once);
a step whose fact has come true is ticked off by the service. A step the founder deleted
stays deleted (its row is kept, marked, so it is not added again); one they ticked off
stays ticked. A step the service ticks off reads as the fact's label ("Offer researched").
"""
from __future__ import annotations

import unicodedata

from models.business import Todo
from models.clock import iso, utcnow
from models.db import transaction
from models.session import Session
from services.discovery import resolve
from services.errors import Refused
from services.ownership import Owner, adopter, adoption_keys, owner_of, session_key
from services.research.launch import facts_for

NEXT_STEPS = 3  # launch steps on the list at a time
MAX_TEXT = 300
MAX_TASKS = 200  # a founder's own tasks, open and done, kept at once
DONE_SHOWN = 50  # ticked-off tasks answered, the latest first
OPS = ("add", "complete", "reopen", "delete")


def tasks(*, session: Session) -> dict:
    """GET /api/todos: the open tasks (launch steps first, in launch order), then the latest done."""
    owner = owner_of(session)
    _sync_launch_steps(session, owner)
    return _answer(owner)


def change(*, session: Session, op: str, text: str | None = None, todo_id: int | None = None) -> dict:
    """POST /api/todos: adds, completes, reopens or deletes a task; answers it and the whole list."""
    owner = owner_of(session)
    if op not in OPS:
        raise Refused("invalid_action", "A task can be added, completed, reopened or deleted; nothing was changed.")
    if op == "add":
        todo = _add(session, owner, text)
    else:
        todo = _own(owner, todo_id)
        now = utcnow()
        with transaction():
            if op == "complete" and not todo.done:
                Todo.update(done=True, completed_at=now).where(Todo.id == todo.id).execute()
            elif op == "reopen" and todo.done:
                Todo.update(done=False, completed_at=None).where(Todo.id == todo.id).execute()
            elif op == "delete":
                if todo.source == Todo.LAUNCH:  # kept, marked, so the step is not added again
                    Todo.update(deleted=True).where(Todo.id == todo.id).execute()
                else:
                    Todo.delete().where(Todo.id == todo.id).execute()
        todo = Todo.get_or_none(Todo.id == todo.id)
    _sync_launch_steps(session, owner)
    answer = _answer(owner)
    shown = _row(todo) if todo is not None and not todo.deleted else None
    return {**answer, "status": {"add": "added", "complete": "completed", "reopen": "reopened",
                                 "delete": "deleted"}[op], "todo": shown}


def _add(session: Session, owner: Owner, text: str | None) -> Todo:
    words = (text or "").strip()
    if not words or len(words) > MAX_TEXT or any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") for ch in words):
        raise Refused("invalid_todo", f"A task needs 1 to {MAX_TEXT} characters of text on one line; nothing was "
                                      "added.")
    with transaction():
        count = Todo.select().where(Todo.owner == owner.key, Todo.source == Todo.FOUNDER).count()
        if count >= MAX_TASKS:
            raise Refused("todo_limit_reached", f"Your list holds {MAX_TASKS} tasks of your own at most: delete some "
                                                "you have done first; nothing was added.")
        return Todo.create(owner=owner.key, session=session.id, account=session.account_id, text=words,
                           source=Todo.FOUNDER, created_at=utcnow())


def _own(owner: Owner, todo_id) -> Todo:
    """The owner's task by id; another founder's (or none) is not_found, alike."""
    if isinstance(todo_id, bool) or not isinstance(todo_id, int):
        raise Refused("invalid_todo", "Name the task by its id (a whole number); nothing was changed.")
    todo = Todo.get_or_none(Todo.id == todo_id, Todo.owner == owner.key, Todo.deleted == False)  # noqa: E712
    if todo is None:
        raise Refused("not_found", "You have no task with that id; nothing was changed.")
    return todo


def _sync_launch_steps(session: Session, owner: Owner) -> None:
    facts = facts_for(owner, resolve(session))
    now = utcnow()
    next_steps = [f for f in facts if not f["true_today"]][:NEXT_STEPS]
    with transaction():
        # A step ticked off by the service reads as what was achieved ("Offer researched"): its
        # advice was for while it was open.
        for fact in (f for f in facts if f["true_today"]):
            (Todo.update(done=True, completed_at=now, text=fact["label"])
             .where(Todo.owner == owner.key, Todo.fact_id == fact["id"], Todo.done == False)  # noqa: E712
             .execute())
        for fact in next_steps:
            (Todo.insert(owner=owner.key, session=session.id, account=session.account_id,
                         text=fact["detail"][:MAX_TEXT], source=Todo.LAUNCH, fact_id=fact["id"], created_at=now)
             .on_conflict_ignore().execute())


def _answer(owner: Owner) -> dict:
    visible = Todo.owner == owner.key, Todo.deleted == False  # noqa: E712
    open_rows = list(Todo.select().where(*visible, Todo.done == False)  # noqa: E712
                     .order_by(Todo.source.desc(), Todo.created_at, Todo.id))  # "launch" > "founder": steps first
    done_rows = list(Todo.select().where(*visible, Todo.done == True)  # noqa: E712
                     .order_by(Todo.completed_at.desc(), Todo.id.desc()).limit(DONE_SHOWN))
    return {"status": "ok", "todos": [_row(t) for t in open_rows + done_rows],
            "open": len(open_rows), "done": Todo.select().where(*visible, Todo.done == True).count()}  # noqa: E712


def _row(todo: Todo) -> dict:
    return {"id": todo.id, "text": todo.text, "done": todo.done, "source": todo.source, "fact_id": todo.fact_id,
            "created_at": iso(todo.created_at), "completed_at": iso(todo.completed_at) if todo.completed_at else None}


def _todos_held(session_id: int) -> list[str]:
    # Launch steps are not counted: they are written from the launch facts, which follow the
    # work they name (a claim, a store) and are written again for the account.
    count = (Todo.select().where(Todo.owner == session_key(session_id), Todo.source == Todo.FOUNDER,
                                 Todo.deleted == False).count())  # noqa: E712
    return [f"{count} task{'' if count == 1 else 's'} you wrote"] if count else []


@adopter(kind="todos", held=_todos_held)
def adopt_todos(session_id: int, account_id: int) -> dict:
    """A session's tasks become its account's; a launch step the account already has is not kept twice."""
    session_key, account_key = adoption_keys(session_id, account_id)
    theirs = Todo.select(Todo.fact_id).where(Todo.owner == account_key, Todo.fact_id.is_null(False))
    Todo.delete().where(Todo.owner == session_key, Todo.fact_id.in_(theirs)).execute()
    moved = Todo.update(owner=account_key, account=account_id).where(Todo.owner == session_key).execute()
    return {"todos": [moved]} if moved else {}
