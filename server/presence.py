"""Presence in the store: which seats have a live socket, on any instance.

One sorted set per table (``keys.presence_key``), one member per open socket,
scored by when it was last heard from; members older than ``PRESENCE_TTL``
count as gone, so an instance that dies takes its phones offline by itself.
Opening or closing a socket publishes ``{"t": id, "p": 1}`` on the change channel.
"""

from __future__ import annotations

import time
from typing import Any, cast

from server.keys import CHANNEL, doc_key, dumps, presence_key, text

#: Seconds a socket counts as present after it was last refreshed. Phones ping
#: every ~2 s; each process refreshes all its live sockets together every
#: ``hub.PRESENCE_REFRESH`` s (one pipeline), so only a dead instance's
#: members ever reach this age.
PRESENCE_TTL = 12.0


def _seats(members: Any) -> set[str]:
    return {str(text(m)).rpartition("/")[0] for m in cast(list[str], members)}


def _touch(p: Any, table_id: str, member: str, now: float) -> None:
    key = presence_key(table_id)
    p.zadd(key, {member: now})
    p.zremrangebyscore(key, "-inf", now - PRESENCE_TTL)
    # Outlives its members by a little; a table nobody watches leaves nothing behind.
    p.expire(key, int(PRESENCE_TTL) + 5)


class Presence:
    """The presence half of ``Store`` (a mixin: ``Store`` provides ``r``)."""

    r: Any

    def presence_touch(self, table_id: str, member: str, now: float | None = None,
                       read: bool = False) -> set[str]:
        """Marks one socket (``<seat>/<socket id>``) as heard from just now;
        with ``read``, returns ``present`` in the same round trip (else empty)."""
        now = time.time() if now is None else now
        with self.r.pipeline(transaction=False) as p:
            _touch(p, table_id, member, now)
            if read:
                p.zrangebyscore(presence_key(table_id), now - PRESENCE_TTL, "+inf")
            found = p.execute()
        return _seats(found[3]) if read else set()

    def presence_refresh(self, tables: dict[str, tuple[list[str], list[str]]],
                         now: float | None = None) -> dict[str, set[str] | None]:
        """One process's periodic refresh, in one round trip for all its tables:
        for each table, ``(live, gone)`` members are touched and forgotten, and
        its presence is read back (it also changes by expiry, elsewhere); None
        for a table whose document has expired."""
        now = time.time() if now is None else now
        with self.r.pipeline(transaction=False) as p:
            for table_id, (live, gone) in tables.items():
                key = presence_key(table_id)
                if gone:
                    p.zrem(key, *gone)
                if live:
                    p.zadd(key, dict.fromkeys(live, now))
                p.zremrangebyscore(key, "-inf", now - PRESENCE_TTL)
                p.expire(key, int(PRESENCE_TTL) + 5)
                p.zrangebyscore(key, now - PRESENCE_TTL, "+inf")
                p.exists(doc_key(table_id))
            found = p.execute()
        out: dict[str, set[str] | None] = {}
        i = 0
        for table_id, (live, gone) in tables.items():
            i += bool(gone) + bool(live) + 4
            out[table_id] = _seats(found[i - 2]) if found[i - 1] else None
        return out

    def presence_drop(self, table_id: str, member: str, announce: bool = True) -> None:
        """Forgets one socket; ``announce`` tells every instance's phones."""
        with self.r.pipeline(transaction=False) as p:
            p.zrem(presence_key(table_id), member)
            if announce:
                p.publish(CHANNEL, dumps({"t": table_id, "p": 1}))
            p.execute()

    def presence_announce(self, table_id: str) -> None:
        self.r.publish(CHANNEL, dumps({"t": table_id, "p": 1}))

    def present(self, table_id: str, now: float | None = None) -> set[str]:
        """The seats with at least one socket heard from within ``PRESENCE_TTL``."""
        now = time.time() if now is None else now
        return _seats(self.r.zrangebyscore(presence_key(table_id), now - PRESENCE_TTL, "+inf"))
