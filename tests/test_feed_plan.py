"""The feed's candidates statement as PostgreSQL plans it: what a feed reads per card does not grow with
the founder's history. Marked `servers`: these are PostgreSQL's plans (the PostgreSQL pass
runs them)."""
import json

import pytest

from models.clock import utcnow
from models.db import db, transaction
from models.discovery import Seen, Watch
from services.discovery import cards
from services.discovery.holds import FEED_SIZE
from services.evidence_gate import current_gate
from services.ownership import owner_of
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
    gate = current_gate()
    sql, params = cards.candidates_sql(owner_of(session), now, gate, now.date(), FEED_SIZE - 1)
    with transaction():
        plan = db.execute_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params).fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)
    probes = [node for node in _nodes(plan[0]["Plan"]) if node.get("Relation Name") in ("product_seen", "product_watch")]
    assert probes, plan
    for node in probes:
        # At most one row a loop (a probe of one card), never the session's history read whole.
        assert node["Actual Rows"] <= 1, (node["Relation Name"], node["Actual Rows"], node["Actual Loops"])

