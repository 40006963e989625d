"""Presence in the store: which seats have a live socket, on any instance.

One sorted set per table (``keys.presence_key``), one member per open socket,
scored by when it was last heard from; members older than ``PRESENCE_TTL``
count as gone, so an instance that dies takes its phones offline by itself.
Opening or closing a socket publishes ``{"t": id, "p": 1}`` on the change channel.
"""

from __future__ import annotations

import time
from typing import Any, cast

from server.keys import CHANNEL, doc_key, dumps, loads, presence_key, text

#: Seconds a socket counts as present after it was last heard from. Phones
#: ping every ~2 s and the server refreshes at most every ``live.PRESENCE_REFRESH``.
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

    def heard(self, table_id: str, member: str | None) -> Any:
        """``presence_touch`` (a spectator has no member) and the table's
        document, in one round trip; None when the table is gone."""
        with self.r.pipeline(transaction=False) as p:
            if member is not None:
                _touch(p, table_id, member, time.time())
            p.get(doc_key(table_id))
            raw = p.execute()[-1]
        return loads(raw) if raw else None

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
