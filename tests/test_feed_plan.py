"""Find's and feed's statements as PostgreSQL runs them: always the prepared statement's
generic plan (models/compiled.py asks for it), never planned again per request, and in it
what a feed reads per card does not grow with the founder's history. Marked `servers`:
these are PostgreSQL's plans (the PostgreSQL pass runs them)."""
import json

import pytest

from models.clock import utcnow
from models.compiled import GENERIC_PREFIX, _prepare
from models.db import db, transaction
from models.discovery import Seen, Watch
from services.discovery import state
from services.discovery.holds import FEED_SIZE
from services.evidence_gate import current_gate
from tests.factories import catalog, session_of

pytestmark = [pytest.mark.servers, pytest.mark.usefixtures("frozen_clock")]
HISTORY = 1000  # products the founder saw before (at 400 the planner probes per card either way)


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def test_a_feed_reads_one_seen_row_and_one_watch_per_card_whatever_the_history(founder):
    catalog(HISTORY + 20)
    client = founder()
    assert client.get("/api/feed").status_code == 200
    session = session_of(client)
    now = utcnow()
    Seen.insert_many([{"session": session.id, "product": f"p{n:02d}", "created_at": now}
                      for n in range(FEED_SIZE, HISTORY)]).on_conflict_ignore().execute()
    Watch.insert_many([{"session": session.id, "product": f"p{n:02d}", "email": "w@example.com", "created_at": now}
                       for n in range(HISTORY)]).execute()  # open watches on products others hold
    db.execute_sql("ANALYZE product_seen")
    db.execute_sql("ANALYZE product_watch")
    text = state._STATE_AND_CANDIDATES.text(False, FEED_SIZE - 1, False)
    gate = current_gate()
    values = {"session_id": session.id, "account_id": None, "key": f"session:{session.id}", "now": now,
              "cutoff": gate.cutoff(now.date()), "min_margin": gate.min_margin_pct}
    with transaction():
        db.execute_sql("SET LOCAL plan_cache_mode = force_generic_plan")
        _prepare(db.obj, text)
        sql = "EXPLAIN (ANALYZE, FORMAT JSON) " + text.execute_sql.removeprefix(GENERIC_PREFIX)
        plan = db.execute_sql(sql, text.params(values, text.execute_slots)).fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)
    probes = [node for node in _nodes(plan[0]["Plan"]) if node.get("Relation Name") in ("product_seen", "product_watch")]
    assert probes, plan
    for node in probes:
        # At most one row a loop (a probe of one card), never the session's history read whole.
        assert node["Actual Rows"] <= 1, (node["Relation Name"], node["Actual Rows"], node["Actual Loops"])


@pytest.mark.parametrize("path", ["/api/feed", "/api/find"])
def test_find_and_feed_are_never_planned_again_per_request(founder, path):
    """Left to itself PostgreSQL plans each of a prepared statement's first five runs on a
    connection afresh, and may go on doing so for good; these statements ask for the generic
    plan from the first run."""
    catalog(20)
    client = founder()
    for _ in range(7):
        assert client.get(path).status_code == 200
    plans = db.execute_sql("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements "
                           "WHERE name LIKE 'ff_owner_state%%' OR name LIKE 'ff_feed_candidates%%'").fetchall()
    assert plans and all(custom == 0 and generic > 0 for _name, generic, custom in plans), plans
