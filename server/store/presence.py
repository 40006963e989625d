"""Presence in the store: which seats have a live socket, on any instance.

One sorted set per table (``keys.presence_key``), one member per open socket,
scored by when it was last heard from; members older than ``PRESENCE_TTL``
count as gone, so an instance that dies takes its phones offline by itself.
Opening or closing a socket publishes ``{"t": id, "p": 1}`` on the table's
change channel.
"""

from __future__ import annotations

import time
from typing import Any, cast

from server.store.keys import channel_key, doc_key, dumps, presence_key, text
from server.store.paths import Path

#: Seconds a socket counts as present after it was last refreshed. Phones ping
#: every ~2 s; each process refreshes all its live sockets together every
#: ``live.liveness.PRESENCE_REFRESH`` s (one pipeline), so only a dead instance's
#: members ever reach this age.
PRESENCE_TTL = 12.0


def _seats(members: Any) -> set[str]:
    found = cast(list[str], members)
    if found and not isinstance(found[0], str):
        found = [str(text(m)) for m in found]
    return {m.rpartition("/")[0] for m in found}


def _touch(p: Any, table_id: str, member: str, now: float) -> None:
    key = presence_key(table_id)
    p.zadd(key, {member: now})
    p.zremrangebyscore(key, "-inf", now - PRESENCE_TTL)
    # Outlives its members by a little; a table nobody watches leaves nothing behind.
    p.expire(key, int(PRESENCE_TTL) + 5)


#: ``Presence.refresh`` on one Redis: every table of one process in
#: one script call (a cluster runs the same steps as a pipeline: a script
#: may touch one slot only, and redis-py pipelines no script on a cluster). KEYS: per table its presence set and its document. ARGV: now, the
#: oldest score still present, the set's TTL, then per table the count and
#: members to touch, the count and members to forget. Returns per table its
#: present members, or nil when the document has expired. As a pipeline, the
#: client's own work is five commands a table, each packed, parsed and called
#: back, every round (the heartbeat and presence row of
#: docs/performance.md, "Why each fast path exists").
REFRESH_SCRIPT = """
local now, oldest, ttl = ARGV[1], ARGV[2], ARGV[3]
local a = 4
local out = {}
for i = 1, #KEYS, 2 do
  local key = KEYS[i]
  local n = tonumber(ARGV[a]); a = a + 1
  for j = a, a + n - 1 do redis.call('ZADD', key, now, ARGV[j]) end
  a = a + n
  n = tonumber(ARGV[a]); a = a + 1
  for j = a, a + n - 1 do redis.call('ZREM', key, ARGV[j]) end
  a = a + n
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. oldest)
  redis.call('EXPIRE', key, ttl)
  if redis.call('EXISTS', KEYS[i + 1]) == 1 then
    out[#out + 1] = redis.call('ZRANGEBYSCORE', key, oldest, '+inf')
  else
    out[#out + 1] = false
  end
end
return out
"""


class Presence:
    """Who is connected, on one Redis (``Store.presence``): ``r`` the store's
    client, ``path`` how it runs a script (``paths.py``)."""

    def __init__(self, r: Any, path: Path) -> None:
        self.r, self.path = r, path

    def touch(self, table_id: str, member: str, now: float | None = None,
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

    def refresh(self, tables: dict[str, tuple[list[str], list[str]]],
                         now: float | None = None) -> dict[str, set[str] | None]:
        """One process's periodic refresh, in one round trip for all its tables:
        for each table, ``(live, gone)`` members are touched and forgotten, and
        its presence is read back (it also changes by expiry, elsewhere); None
        for a table whose document has expired."""
        now = time.time() if now is None else now
        if not tables:
            return {}
        if not self.path.spans_tables:
            return self._refresh_pipelined(tables, now)
        keys: list[str] = []
        args: list[Any] = [repr(now), repr(now - PRESENCE_TTL), int(PRESENCE_TTL) + 5]
        for table_id, (live, gone) in tables.items():
            keys += (presence_key(table_id), doc_key(table_id))
            args += (len(live), *live, len(gone), *gone)
        replies = self.path.script(REFRESH_SCRIPT, keys, args)
        return {tid: None if r is None else _seats(r) for tid, r in zip(tables, replies, strict=True)}

    def _refresh_pipelined(self, tables: dict[str, tuple[list[str], list[str]]],
                           now: float) -> dict[str, set[str] | None]:
        """``refresh``'s steps as commands of one pipeline (a cluster
        client sends each node its own part)."""
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

    def drop(self, table_id: str, member: str, announce: bool = True) -> None:
        """Forgets one socket; ``announce`` tells every instance's phones."""
        with self.r.pipeline(transaction=False) as p:
            p.zrem(presence_key(table_id), member)
            if announce:
                p.spublish(channel_key(table_id), announcement(table_id))
            p.execute()

    def announce(self, table_id: str) -> None:
        self.r.spublish(channel_key(table_id), announcement(table_id))

    def present(self, table_id: str, now: float | None = None) -> set[str]:
        """The seats with at least one socket heard from within ``PRESENCE_TTL``."""
        now = time.time() if now is None else now
        if self.path.lean is not None:
            # The own client where the path has one: every roll at a table with
            # phone chains reads this (its contributors), and through redis-py
            # it was a third of the announce (docs/performance.md, "A roll with
            # phone hash chains").
            found = self.path.lean.call(("ZRANGEBYSCORE", presence_key(table_id), repr(now - PRESENCE_TTL), "+inf"))
        else:
            found = self.r.zrangebyscore(presence_key(table_id), now - PRESENCE_TTL, "+inf")
        return _seats(found)


def announcement(table_id: str) -> bytes:
    """The presence message of a table: a socket of it opened or closed."""
    return dumps({"t": table_id, "p": 1})
