"""The pending draw's links, kept beside the table document (``tm:{<id>}:links``,
same hash tag and TTL), so that a link costs one round trip and changes no
version of the table (docs/fairness.md, "What it costs").

The commit that announces a draw starts the key afresh (``_draw`` → the
draw's id, ``commit.py``); each link is one field of it (``LINK``, below);
the commit that makes the draw reads every field, checks in its script that
none came since, and clears the key. A link is taken only while ``_draw``
names its draw: once the draw is made (the key cleared or started afresh for
the next one) a late link is refused, never counted half-way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.store.commit import OVER_LIMITS
from server.store.keys import channel_key, dumps, links_key, loads, req_key, text, version_key
from server.store.paths import Path

#: What ``LINK`` answers (its reply's first element).
OVER, TAKEN, RECORDED, GIVEN, MISMATCH, RATED = 0, 1, 2, 3, 4, 5

# KEYS: links, req, ver, channel, then the rate counters. ARGV: the draw id,
# the seat, its entry (JSON), the request id, ttl, whether the link is the
# seat's next (1) or not (0), the message's four pieces (head up to the
# version, up to the version again, up to the waiting list, the rest), the
# event a taken link logs (JSON), then two counts (contributors, counters),
# the counters' window (s), and those lists (the counters' limits last).
# In order: the request's record (a retry gets its first result), the draw
# (OVER), the seat's link given already (GIVEN), the link itself (MISMATCH),
# the rate counters (RATED, as the commit counts them); then the link is kept,
# the request recorded unless it was the last link (its request gets the
# draw's own result, with the draw's commit), and the table told whom the
# draw still waits for. Answer: TAKEN, the version, and when no contributor
# is missing any more, every field (the draw's commit is then this caller's).
LINK = OVER_LIMITS + """
local rec = redis.call('HGET', KEYS[2], ARGV[4])
if rec then return {2, rec} end
if redis.call('HGET', KEYS[1], '_draw') ~= ARGV[1] then return {0} end
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then return {3} end
if ARGV[6] ~= '1' then return {4} end
local nc, nr = tonumber(ARGV[12]), tonumber(ARGV[13])
if nr > 0 and over_limits(4, nr, tonumber(ARGV[14]), 15 + nc) then return {5} end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[5])
local v = redis.call('GET', KEYS[3]) or '0'
local waiting = {}
for j = 1, nc do
  local s = ARGV[14 + j]
  if redis.call('HEXISTS', KEYS[1], s) == 0 then waiting[#waiting + 1] = cjson.encode(s) end
end
redis.call('SPUBLISH', KEYS[4], ARGV[7] .. v .. ARGV[8] .. v .. ARGV[9] .. table.concat(waiting, ',') .. ARGV[10])
if #waiting > 0 then
  redis.call('HSET', KEYS[2], ARGV[4], '{"by":' .. cjson.encode(ARGV[2]) .. ',"result":{"version":' .. v ..
    ',"events":[' .. ARGV[11] .. ']},"v":' .. v .. '}')
  redis.call('EXPIRE', KEYS[2], ARGV[5])
  return {1, v}
end
local all = redis.call('HGETALL', KEYS[1])
local out = {1, v}
for j = 1, #all do out[#out + 1] = all[j] end
return out
"""


@dataclass(frozen=True)
class Link:
    """One link as the service asks the store to keep it."""

    draw: int
    seat: str
    #: ``{"link", "anchor"}``: what the draw's commit reads back.
    entry: dict[str, str]
    rid: str
    #: Whether it is the seat's next link (checked by the service against the
    #: chain the draw expects): refused after the draw and repeat checks.
    next_ok: bool
    contributors: list[str]
    #: The draw frame's public part (``fairness.pending_view``) but ``waiting``.
    view: dict[str, Any]
    #: What the link's request logs as its result (``linked``).
    event: dict[str, Any]


@dataclass(frozen=True)
class Taken:
    """``LINK``'s answer: ``status``, the table's version then, the request's
    record (``RECORDED``), and every field of the links key when this link
    was the last one missing (None otherwise); ``RATED``: the wait."""

    status: int
    version: int = 0
    record: Any = None
    fields: dict[str, Any] | None = None
    #: ``RATED``: seconds until the rate window turns.
    wait: int = 0


def frame_pieces(table_id: str, view: dict[str, Any]) -> list[str]:
    """The link message around its version and waiting list:
    ``{"t": id, "w": v, "f": {"type": "draw", "version": v, "pending": {..., "waiting": [...]}}}``."""
    head = dumps({"t": table_id}).decode()[:-1] + ',"w":'
    body = dumps({k: x for k, x in view.items() if k != "waiting"}).decode()
    return [head, ',"f":{"type":"draw","version":', ',"pending":' + body[:-1] + ',"waiting":[', "]}}}"]


def take(path: Path, table_id: str, link: Link, ttl: int, counters: list[tuple[str, int]],
         window: int) -> Taken:
    """Runs ``LINK`` (one round trip)."""
    keys = [links_key(table_id), req_key(table_id), version_key(table_id), channel_key(table_id),
            *(key for key, _ in counters)]
    args: list[Any] = [link.draw, link.seat, dumps(link.entry), link.rid, ttl, 1 if link.next_ok else 0,
                       *frame_pieces(table_id, link.view), dumps(link.event), len(link.contributors),
                       len(counters), window, *link.contributors, *(limit for _, limit in counters)]
    reply = path.script(LINK, keys, args)
    status = int(reply[0])
    if status == RECORDED:
        return Taken(status, record=loads(str(text(reply[1]))))
    if status != TAKEN:
        return Taken(status)
    fields = None
    if len(reply) > 2:
        fields = fields_of([text(x) for x in reply[2:]])
    return Taken(status, int(str(text(reply[1]))), fields=fields)


def fields_of(flat: list[str | None]) -> dict[str, Any]:
    """HGETALL's flat answer as the links key's fields: ``_draw`` → the draw
    id, seat → its entry."""
    out: dict[str, Any] = {}
    for k in range(0, len(flat) - 1, 2):
        name, raw = str(flat[k]), str(flat[k + 1])
        out[name] = int(raw) if name == "_draw" else loads(raw)
    return out
