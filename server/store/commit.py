"""The commit: what one update reads (``Tx``: the document, lazy reads) and
writes (``Commit``), ``Primed`` (an update's function with the document its
caller has just read), and that write in one Redis round trip: a
compare-and-set script.

The service's write loop (``service/write.py``) reads the document (or reuses
one its caller read), builds the change, and ``Store.commit`` sends it all
with one EVALSHA (``encode``, then ``Committer.run``). The script,
atomically: checks that the table is still at the version the change was
built on (``tm:{<id>}:ver``: every write of the document writes it too, so any
other writer in between is seen), checks that none of the request ids the
change assumed unseen has been recorded, writes the document, the version,
the log entry, the request records and the TTLs, and publishes the change
with the document in it on the table's own channel (SPUBLISH), so the fan-out
does not load the table again. A change may also carry rate-limit counters
(an action's seat): the script counts them with the write and refuses it
(nothing written) when one is over its limit, so an action's limits cost no
round trip of their own.

Every key the script touches, and its channel, carries the table's hash tag
(``keys.py``): in a Redis Cluster the whole commit runs on the table's slot.
The embedded store runs this same script (fakeredis with Lua).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import redis

from server.model import LogEntry, TableDoc
from server.store.keys import (
    change_head,
    channel_key,
    doc_key,
    dumps,
    links_key,
    loads,
    log_key,
    req_key,
    text,
    version_key,
)
from server.store.paths import Path

R = TypeVar("R")


@dataclass
class Commit(Generic[R]):
    """What one update writes, all at once (the script below); ``doc=None`` writes nothing."""

    doc: TableDoc | None
    entry: LogEntry | None = None
    #: (request_id, what a retry of it gets back)
    request: tuple[str, Any] | None = None
    #: Further request records to (re)write, e.g. those undo retires.
    more_requests: list[tuple[str, Any]] = field(default_factory=list)
    #: request_ids to forget (out of the window; written after the records above).
    drop_requests: list[str] = field(default_factory=list)
    #: What ``update`` returns; left None by updates that return nothing (``Commit[None]``).
    result: R = cast(R, None)
    #: The engine state ``doc["state"]`` encodes, as an object, when the update
    #: made it: this process's fan-out sends from it (``service.write.Wrote``) instead of
    #: decoding it again. Engine states are never changed in place.
    state: Any = None
    #: The pending draw's links key (``links.py``): ``("d", draw, n)`` when
    #: this change makes draw ``draw`` from the ``n`` fields it read there (the
    #: commit checks they are still all, and clears them); ``("p", draw, 0)``
    #: when it may pass a pending draw, having read that ``draw`` waits (0:
    #: none); None: refused (``PENDING``) while a draw waits.
    links: tuple[str, int, int] | None = None
    #: A draw to hold (``links.Announce``), with ``doc`` None: this change
    #: writes no document, only the links key and the request's record.
    announce: Any = None


@dataclass
class Tx:
    """The read side of an update: the document, and the log read only when
    asked (``read_log``, the store's; a decision holds no client of its own).

    The log read is a plain read; the commit checks that the document is still
    the one it was made at (every write of the log or the request records
    also writes the document). A request id is not read at all: it counts as
    unseen (``assumed``) and the commit checks that, or brings its record
    back (``known``) for the next attempt.
    """

    table_id: str
    doc: TableDoc
    raw: str = field(default="", repr=False)
    known: dict[str, Any] = field(default_factory=dict, repr=False)
    assumed: list[str] = field(default_factory=list, repr=False)
    read_log: Callable[[str], list[LogEntry]] | None = field(default=None, repr=False)
    _log: list[LogEntry] | None = field(default=None, repr=False)
    #: The pending draw's links as stored (``Store.links``), read when asked.
    read_links: Callable[[str], dict[str, Any]] | None = field(default=None, repr=False)

    def copy(self) -> TableDoc:
        """A private copy of the document to change (parsing the JSON again is
        several times faster than ``copy.deepcopy``)."""
        return cast(TableDoc, loads(self.raw))

    def cached_result(self, request_id: str) -> Any:
        """What ``Commit.request`` recorded for ``request_id``; None if unseen."""
        if request_id in self.known:
            return self.known[request_id]
        if request_id not in self.assumed:
            self.assumed.append(request_id)
        return None

    def links(self) -> dict[str, Any]:
        """The links key's fields, parsed (``_draw``: the draw id), read on each call."""
        return self.read_links(self.table_id) if self.read_links is not None else {}

    def log(self) -> list[LogEntry]:
        if self._log is None:
            self._log = self.read_log(self.table_id) if self.read_log is not None else []
        return self._log


@dataclass
class Primed(Generic[R]):
    """An update's function with the raw document its caller has just read,
    so the first attempt needs no read of its own (one round trip in all)."""

    fn: Callable[[Tx], Commit[R]]
    raw: str
    #: ``raw`` parsed, when the caller has it and changes nothing in it: the
    #: first attempt's ``Tx.doc``: an action's caller has parsed it to check
    #: the seat before the update (the ``Primed.doc`` row of
    #: docs/performance.md, "Why each fast path exists").
    doc: TableDoc | None = None

    def __call__(self, tx: Tx) -> Commit[R]:
        return self.fn(tx)


#: What the script answers (its reply's first element); ``PENDING``: a
#: draw waits for the phones' links (``links.py``) and this change may not
#: pass it.
GONE, CHANGED, RECORDED, DONE, RATED, PENDING = 0, 1, 2, 3, 4, 5
#: Milliseconds a commit waits for its replicas (``TABLEMATE_REDIS_WAIT``)
#: before it is refused: a replica a few milliseconds away answers in one.
WAIT_MS = 1000

#: A seat's rate counters, counted in a script (this one's and ``links.LINK``):
#: KEYS[k0 + 1 .. k0 + nr] against the limits ARGV[lim ..]. All are counted,
#: or, when one is over its limit, only those over stay counted and it
#: answers true (Rates.hit_many's rule).
OVER_LIMITS = """
local function over_limits(k0, nr, window, lim)
  local counts, over = {}, false
  for j = 1, nr do
    counts[j] = redis.call('INCR', KEYS[k0 + j])
    redis.call('EXPIRE', KEYS[k0 + j], window + 1)
    if counts[j] > tonumber(ARGV[lim + j - 1]) then over = true end
  end
  if over then
    for j = 1, nr do
      if counts[j] <= tonumber(ARGV[lim + j - 1]) then redis.call('DECR', KEYS[k0 + j]) end
    end
  end
  return over
end
"""

# The table's version (KEYS[1] the document, KEYS[2] its version key) must
# be ARGV[1], the one the decision read: else GONE ({0}) or CHANGED ({1}).
# A document stored without its version key (written before the key existed)
# is read for its version once. Shared by every script that writes on a
# decision (this commit, links.py's ANNOUNCE).
AT_VERSION = """
local v = redis.call('GET', KEYS[2])
if not v then
  local cur = redis.call('GET', KEYS[1])
  if not cur then return {0} end
  v = tostring(cjson.decode(cur)['version'])
end
if v ~= ARGV[1] then return {1} end
"""

# KEYS: doc, ver, log, req, channel, links, then the rate counters. ARGV: the
# version the change was built on, the new document, its version, ttl, log
# entry ('' for none), message head, then four counts (assumed-unseen request
# ids, records to write, ids to drop, rate counters), the counters' window (s),
# the links op ('' the change may not pass a pending draw: PENDING while the
# links key names one; 'p' it passes one: the key must name the draw the
# change read there (0: none), else CHANGED; 'd' a draw made: the links key
# must hold exactly the fields the change read, else CHANGED, and is
# cleared), the draw id and that field count, and those lists (records as
# id, value pairs; the counters' limits last). PENDING comes after the
# request records (a retry of an applied request gets its first answer).
# The counters are counted only once the change is sure to be written
# otherwise (an attempt that lost a race is not counted); a refused one stays
# counted only where it was over (Rates.hit_many's rule).
# A document stored without its version key (written before the key existed)
# is read for its version once, then the key is written with it.
SCRIPT = OVER_LIMITS + AT_VERSION + """
local op = ARGV[12]
local d = redis.call('HGET', KEYS[6], '_draw')
if op == 'd' then
  if d and (d ~= ARGV[13] or redis.call('HLEN', KEYS[6]) ~= tonumber(ARGV[14])) then return {1} end
elseif op == 'p' then
  if (d or '0') ~= ARGV[13] then return {1} end
end
local na, ns, nd, nr = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local i = 15
local found = {2}
for _ = 1, na do
  local rec = redis.call('HGET', KEYS[4], ARGV[i])
  if rec then found[#found + 1] = ARGV[i]; found[#found + 1] = rec end
  i = i + 1
end
if #found > 1 then return found end
if op == '' and d then return {5} end
if nr > 0 and over_limits(6, nr, tonumber(ARGV[11]), i + 2 * ns + nd) then return {4} end
local ttl = ARGV[4]
redis.call('SET', KEYS[1], ARGV[2], 'EX', ttl)
redis.call('SET', KEYS[2], ARGV[3], 'EX', ttl)
if ARGV[5] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[5]) end
redis.call('EXPIRE', KEYS[3], ttl)
for _ = 1, ns do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1])
  i = i + 2
end
if nd > 0 then redis.call('HDEL', KEYS[4], unpack(ARGV, i, i + nd - 1)) end
redis.call('EXPIRE', KEYS[4], ttl)
if op == 'd' then redis.call('DEL', KEYS[6]) end
redis.call('SPUBLISH', KEYS[5], ARGV[6] .. ARGV[2] .. '}')
return {3}
"""


@dataclass
class Change:
    """Everything one commit writes, encoded."""

    table_id: str
    #: The version of the document the change was built on.
    base: int
    doc: bytes
    version: int
    entry: bytes | None
    assumed: list[str]
    records: list[tuple[str, bytes]]
    drop: list[str]
    #: Rate counters counted with the write: (key, limit); and their window (s).
    hits: list[tuple[str, int]] = field(default_factory=list)
    window: int = 60
    #: The pending draw's links key: ``Commit.links``'s op ('', 'p', 'd'), draw id, field count.
    links: tuple[str, int, int] = ("", 0, 0)


class Committer:
    """Runs a ``Change``: one script call on the store's client path
    (``paths.py``), which waits for ``replicas`` when asked."""

    def __init__(self, path: Path, replicas: int = 0) -> None:
        self.path = path
        #: Replicas a change must reach before it counts as done (WAIT; 0:
        #: none asked, Redis's own asynchronous replication).
        self.replicas = replicas

    def run(self, c: Change, ttl: int) -> tuple[int, dict[str, Any]]:
        """The script's answer, and for RECORDED the records it found (raw JSON)."""
        tid = c.table_id
        keys = [doc_key(tid), version_key(tid), log_key(tid), req_key(tid), channel_key(tid), links_key(tid),
                *(key for key, _ in c.hits)]
        args: list[Any] = [c.base, c.doc, c.version, ttl, c.entry or b"",
                           change_head(tid, c.version), len(c.assumed), len(c.records),
                           len(c.drop), len(c.hits), c.window, *c.links, *c.assumed]
        for rid, record in c.records:
            args += [rid, record]
        args += c.drop
        args += [limit for _, limit in c.hits]
        reply = self._replicated(keys, args) if self.replicas else self.path.script(SCRIPT, keys, args)
        status = int(reply[0])
        found = {str(text(reply[k])): text(reply[k + 1]) for k in range(1, len(reply), 2)}
        return status, found

    def _replicated(self, keys: list[Any], args: list[Any]) -> list[Any]:
        """The script's reply, once its writes reached ``replicas`` replicas.

        Redis replicates after it answers: a master that dies (or is paused
        past the node timeout, then answers what was queued before it learns
        it was replaced) takes the changes its replica had not got yet with
        it, after they were acknowledged. Here a change that reached no
        replica within ``WAIT_MS`` raises ``TimeoutError`` (503
        ``store_unavailable``): the phone sends it again with the same request
        id, answered from its record if it survived, applied anew if not."""
        reply, acked = self.path.script_wait(SCRIPT, keys, args, self.replicas, WAIT_MS)
        if int(reply[0]) == DONE and acked < self.replicas:
            raise redis.TimeoutError(f"the change reached {acked} of {self.replicas} replicas in {WAIT_MS} ms")
        return reply


def encode(table_id: str, base: int, commit: Any, assumed: list[str],
           hits: list[tuple[str, int]] | None = None, window: int = 60) -> Change:
    """A ``Commit`` (with a document) built on version ``base``, as the script's arguments."""
    doc = commit.doc
    records = [(rid, dumps(rec)) for rid, rec in
               ([commit.request] if commit.request is not None else []) + commit.more_requests]
    return Change(table_id, base, dumps(doc), int(doc["version"]),
                  dumps(commit.entry) if commit.entry is not None else None,
                  list(assumed), records, list(commit.drop_requests), list(hits or []), window,
                  commit.links or ("", 0, 0))
