"""Visitors' questions on a published store (issue 44 point 4): what they may spend of the
founder's credits, the answers kept for them, and how many were answered and turned away.

A visitor asking POST /api/support about a store that is not theirs spends its founder's
`support` credits (spec 8.1: the founder's account is the subject). Left unbounded, anyone
could use up the whole allowance and leave the founder's own drafts and answers refused, so
the visitors' questions may use only the share of it the founder set (the business setting
public_support_share, percent): the meter counts them on a share of their own
(services/meter.Share) as well as on the bucket.

A question already answered for the same facts is answered again from what was written,
with no model call and no spend: the answer is kept under a digest of the store's facts as
the agent read them and of the question's words. Any change of those facts (a new published
version, a new business name) makes another digest, so a kept answer never outlives the
facts it cites.

The founder sees, per day, how many were answered (from_earlier of them from a kept answer)
and how many were turned away.
"""
from __future__ import annotations

import hashlib
import json
import re
from datetime import timedelta
from fractions import Fraction

from integrations import ai
from models.clock import utcnow
from models.desk import PublicAnswer, PublicQuestionDay
from models.store import Store
from services import business
from services.meter import Share
from services.ownership import Owner

SHARE_NAME = "public"
SHOWN_DAYS = 7  # the founder is shown the last week's questions, today included

_WORD = re.compile(r"[^\W_]+")


def share_of(owner: Owner) -> Share:
    """The share of the founder's support allowance their store's visitors may use."""
    percent = business.settings_of(owner)["public_support_share"]
    return Share(SHARE_NAME, Fraction(percent, 100))


def words_of(question: str) -> str:
    """A question as compared: its words in lower case, without punctuation or extra spaces."""
    return " ".join(_WORD.findall(question.casefold()))


def key_of(task: ai.Task) -> str:
    """The digest of a question's words and of the store facts it is answered from."""
    # The parts are cut from the question, whose words are in the key already; kept as written
    # (case, punctuation), they would make "How much?" and "how MUCH" two keys.
    copy = {key: value for key, value in (task.current or {}).items() if key != "parts"}
    facts = {"product": task.facts.product, "offer": task.facts.offer, "business": task.facts.business,
             "copy": copy, "question": words_of(task.instructions)}
    return hashlib.sha256(json.dumps(facts, sort_keys=True, default=str).encode()).hexdigest()


def kept_answer(key: str) -> dict | None:
    """The answer written before for this question and these facts: {answer, cites}, or None."""
    row = PublicAnswer.get_or_none(PublicAnswer.key == key)
    return {"answer": row.answer, "cites": row.cites} if row is not None else None


def keep(key: str, product_id: str, task: ai.Task, copy: dict) -> None:
    """Keeps an answer written for a visitor (the first of two written at once stands)."""
    (PublicAnswer.insert(key=key, store=product_id, question=words_of(task.instructions), answer=copy["answer"],
                         cites=copy["cites"], created_at=utcnow())
     .on_conflict_ignore().execute())


# --- Counting -----------------------------------------------------------------------------------

ANSWERED, FROM_EARLIER, TURNED_AWAY = "answered", "from_earlier", "turned_away"


def count(product_id: str, *outcomes: str) -> None:
    """Adds one to each of the day's counts named (answered, from_earlier, turned_away)."""
    increments = {getattr(PublicQuestionDay, name): getattr(PublicQuestionDay, name) + 1 for name in outcomes}
    (PublicQuestionDay.insert(store=product_id, day=utcnow().date(), **dict.fromkeys(outcomes, 1))
     .on_conflict(conflict_target=[PublicQuestionDay.store, PublicQuestionDay.day], update=increments)
     .execute())


def summary(owner: Owner) -> dict:
    """What GET /api/helpdesk tells the founder: the share they set, and their stores'
    visitors' questions over the last SHOWN_DAYS days."""
    since = utcnow().date() - timedelta(days=SHOWN_DAYS - 1)
    rows = (PublicQuestionDay.select().join(Store, on=(PublicQuestionDay.store == Store.product))
            .where(Store.owner == owner.key, PublicQuestionDay.day >= since))
    totals = dict.fromkeys((ANSWERED, FROM_EARLIER, TURNED_AWAY), 0)
    for row in rows:
        for name in totals:
            totals[name] += getattr(row, name)
    return {"share": business.settings_of(owner)["public_support_share"], "days": SHOWN_DAYS, **totals}
