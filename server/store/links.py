"""The pending draw, kept beside the table document (``tm:{<id>}:links``,
same hash tag and TTL): its announce and each link cost one round trip and
change no version of the table (docs/fairness.md, "What it costs").

The key's fields: ``_draw`` → the draw's id, ``_pending`` → the pending draw
(``fairdoc.PendingDraw``, JSON), ``_frame`` → the public part of its ``draw``
frame (JSON up to its waiting list), and one field per link taken (seat →
``{"link", "anchor"}``). ``ANNOUNCE`` writes the first three (the table still
at the version the decision read, no draw pending); ``LINK`` adds a link,
checked against ``_pending``; the commit that makes the draw reads every
field, checks in its script that none came since, and clears the key
(``commit.py``). Every other commit is refused while ``_draw`` is set, but
those that say they pass a draw (``commit.py``, op ``p``). A link is taken
only while ``_draw`` names its draw: once the draw is made a late link is
refused, never counted half-way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.store.commit import AT_VERSION, OVER_LIMITS
from server.store.keys import (
    channel_key,
    doc_key,
    dumps,
    links_key,
    loads,
    req_key,
    text,
    version_key,
)
from server.store.paths import Path

#: What ``LINK`` answers (its reply's first element).
OVER, TAKEN, RECORDED, GIVEN, MISMATCH, RATED, STRANGER = 0, 1, 2, 3, 4, 5, 6

# KEYS: links, req, ver, then the rate counters. ARGV: the draw id, the
# seat, its link, the request id, ttl, the hash the seat's chain expects its
# link to hash to (the service hashes the link), the event a taken link logs
# (JSON), the counters' count and window (s), then the counters' limits.
# In order: the request's record (a retry gets its first result), the draw
# (OVER), the seat a contributor of it (STRANGER), the seat's link given
# already (GIVEN), the link itself (MISMATCH), the rate counters (RATED, as
# the commit counts them); then the link is kept, and the request recorded
# unless it was the last link (its request gets the draw's own result, with
# the draw's commit). Answer: TAKEN, the version, and when no contributor is
# missing any more, every field (the draw's commit is then this caller's).
# A link publishes nothing: a roll's links come within milliseconds and its
# snapshot follows, so the phones learn whom a slow draw still waits for from
# the hubs that watch it (``draw_frame``; live/drawwatch.py).
LINK = OVER_LIMITS + """
local rec = redis.call('HGET', KEYS[2], ARGV[4])
if rec then return {2, rec} end
if redis.call('HGET', KEYS[1], '_draw') ~= ARGV[1] then return {0} end
local held = redis.call('HGET', KEYS[1], '_pending')
if not held then return {0} end
local p = cjson.decode(held)
local e = p['expect'][ARGV[2]]
if not e then return {6} end
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then return {3} end
if e['last'] ~= ARGV[6] then return {4} end
local nr = tonumber(ARGV[8])
if nr > 0 and over_limits(3, nr, tonumber(ARGV[9]), 10) then return {5} end
redis.call('HSET', KEYS[1], ARGV[2], cjson.encode({link = ARGV[3], anchor = e['anchor']}))
redis.call('EXPIRE', KEYS[1], ARGV[5])
local v = redis.call('GET', KEYS[3]) or '0'
for _, s in ipairs(p['contributors']) do
  if redis.call('HEXISTS', KEYS[1], s) == 0 then
    redis.call('HSET', KEYS[2], ARGV[4], '{"by":' .. cjson.encode(ARGV[2]) .. ',"result":{"version":' .. v ..
      ',"events":[' .. ARGV[7] .. ']},"v":' .. v .. '}')
    redis.call('EXPIRE', KEYS[2], ARGV[5])
    return {1, v}
  end
end
local all = redis.call('HGETALL', KEYS[1])
local out = {1, v}
for j = 1, #all do out[#out + 1] = all[j] end
return out
"""

# KEYS: doc, ver, req, links, channel, then the rate counters. ARGV: the
# version the decision read, the draw id, the pending draw (JSON), the
# frame's public part (``_frame``), ttl, the message (whole: its version is
# the one the decision read, checked first), the request id and its record,
# then three counts (assumed-unseen request ids, rate counters) and the
# counters' window (s), then those lists (the counters' limits last).
# The answers are commit.py's: GONE, CHANGED (the table moved: decide again),
# RECORDED (with the records found), RATED, PENDING (a draw waits already),
# DONE. No version, no log line, no document written.
ANNOUNCE = OVER_LIMITS + AT_VERSION + """
local na, nr = tonumber(ARGV[9]), tonumber(ARGV[10])
local found = {2}
for j = 1, na do
  local rec = redis.call('HGET', KEYS[3], ARGV[11 + j])
  if rec then found[#found + 1] = ARGV[11 + j]; found[#found + 1] = rec end
end
if #found > 1 then return found end
if redis.call('HEXISTS', KEYS[4], '_draw') == 1 then return {5} end
if nr > 0 and over_limits(5, nr, tonumber(ARGV[11]), 12 + na) then return {4} end
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[4], '_draw', ARGV[2], '_pending', ARGV[3], '_frame', ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[5])
redis.call('HSET', KEYS[3], ARGV[7], ARGV[8])
redis.call('EXPIRE', KEYS[3], ARGV[5])
redis.call('SPUBLISH', KEYS[5], ARGV[6])
return {3}
"""


@dataclass(frozen=True)
class Link:
    """One link as the service asks the store to keep it."""

    draw: int
    seat: str
    link: str
    #: What the link hashes to: the script takes it if that is the ``last``
    #: of the seat's chain as the pending draw expects it.
    prev: str
    rid: str
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


@dataclass(frozen=True)
class Announce:
    """A draw to hold (``Commit.announce``): its id, the pending draw as the
    store keeps it, and the public part of its ``draw`` frame
    (``fairview.pending_view``, its ``waiting`` list whole)."""

    draw: int
    pending: dict[str, Any]
    view: dict[str, Any]


def frame_pieces(table_id: str, view: dict[str, Any]) -> list[str]:
    """The draw message around its version and waiting list:
    ``{"t": id, "w": v, "f": {"type": "draw", "version": v, "pending": {..., "waiting": [...]}}}``."""
    head = dumps({"t": table_id}).decode()[:-1] + ',"w":'
    body = dumps({k: x for k, x in view.items() if k != "waiting"}).decode()
    return [head, ',"f":{"type":"draw","version":', ',"pending":' + body[:-1] + ',"waiting":[', "]}}}"]


def take(path: Path, table_id: str, link: Link, ttl: int, counters: list[tuple[str, int]],
         window: int) -> Taken:
    """Runs ``LINK`` (one round trip)."""
    keys = [links_key(table_id), req_key(table_id), version_key(table_id), *(key for key, _ in counters)]
    args: list[Any] = [link.draw, link.seat, link.link, link.rid, ttl, link.prev,
                       dumps(link.event), len(counters), window, *(limit for _, limit in counters)]
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


def announce(path: Path, table_id: str, base: int, a: Announce, rid: str, record: Any, assumed: list[str],
             ttl: int, counters: list[tuple[str, int]], window: int) -> list[Any]:
    """Runs ``ANNOUNCE`` (one round trip): its raw reply."""
    keys = [doc_key(table_id), version_key(table_id), req_key(table_id), links_key(table_id),
            channel_key(table_id), *(key for key, _ in counters)]
    head, mid, frame, tail = frame_pieces(table_id, a.view)
    waiting = ",".join(dumps(s).decode() for s in a.view["waiting"])
    message = f"{head}{base}{mid}{base}{frame}{waiting}{tail}"
    args: list[Any] = [base, a.draw, dumps(a.pending), frame, ttl, message, rid, dumps(record),
                       len(assumed), len(counters), window, *assumed, *(limit for _, limit in counters)]
    return path.script(ANNOUNCE, keys, args)


def fields_of(flat: list[str | None]) -> dict[str, Any]:
    """HGETALL's flat answer as the links key's fields: ``_draw`` → the draw
    id, ``_pending`` → the pending draw, ``_frame`` as stored, seat → its entry."""
    out: dict[str, Any] = {}
    for k in range(0, len(flat) - 1, 2):
        name, raw = str(flat[k]), str(flat[k + 1])
        out[name] = int(raw) if name == "_draw" else raw if name == "_frame" else loads(raw)
    return out


@dataclass(frozen=True)
class DrawFrame:
    """The ``draw`` frame of a waiting draw as it stands: the draw's id, the
    table's version, the frame (JSON) and whom the draw still waits for."""

    draw: int
    version: int
    frame: str
    waiting: list[str]


def draw_frame(fields: dict[str, Any], version: int) -> DrawFrame | None:
    """The ``draw`` frame of the pending draw the links key holds
    (``fields``) at the table's ``version``, the announce's with the links
    taken since; None when no draw waits."""
    draw, frame, held = fields.get("_draw"), fields.get("_frame"), fields.get("_pending")
    if draw is None or frame is None or held is None:
        return None
    waiting = [s for s in held["contributors"] if not isinstance(fields.get(s), dict)]
    body = f'{{"type":"draw","version":{version}{frame}{",".join(dumps(s).decode() for s in waiting)}]}}}}'
    return DrawFrame(int(draw), version, body, waiting)
