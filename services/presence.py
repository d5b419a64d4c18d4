"""Where a founder is in the app (POST /api/presence): each session's latest area and screen
with its time, kept for support ("which screen were you on?") and for the walkthrough to
pick up where the founder is. Nothing serves it back yet."""
from __future__ import annotations

import peewee as pw

from models.clock import utcnow
from models.funnel import Presence
from models.session import Session

RECORDED = "recorded"


def record(*, session: Session, area: str, screen: str) -> dict:
    """Records the session's current area and screen, replacing the one before."""
    now = utcnow()
    (Presence.insert(session=session.id, area=area, screen=screen, updated_at=now)
     .on_conflict(conflict_target=[Presence.session],
                  update={Presence.area: pw.EXCLUDED.area, Presence.screen: pw.EXCLUDED.screen,
                          Presence.updated_at: pw.EXCLUDED.updated_at})
     .execute())
    return {"status": RECORDED}
