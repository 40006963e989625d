"""The instances of one deployment, for table routing (``server/http/routing.py``):
one sorted set, ``tm:instances``, a member per instance scored by when it last
said it was alive. Every instance reads the same members, so every instance
names the same owner for a table."""

from __future__ import annotations

import time
from typing import Any

from server.store.keys import text

INSTANCES_KEY = "tm:instances"
#: Seconds an instance counts as alive after its last beat: several beats
#: (``routing.BEAT``), so a slow round trip never drops a live instance.
ALIVE_FOR = 15.0


def beat(r: Any, me: str, now: float | None = None) -> list[str]:
    """``me`` is alive now; back, every instance alive (``me`` included), sorted."""
    now = time.time() if now is None else now
    with r.pipeline(transaction=False) as p:
        p.zadd(INSTANCES_KEY, {me: now})
        p.zremrangebyscore(INSTANCES_KEY, "-inf", now - ALIVE_FOR)
        p.expire(INSTANCES_KEY, int(ALIVE_FOR * 4))
        p.zrange(INSTANCES_KEY, 0, -1)
        found = p.execute()
    return sorted(str(text(m)) for m in found[3])

