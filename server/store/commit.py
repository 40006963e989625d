"""One table change in one Redis round trip: a compare-and-set script.

``Store.update`` reads the document (or reuses one its caller read), lets the
pipeline build the change, and then sends it all with one EVALSHA. The script,
atomically: checks that the document is still the one the change was built on
(its SHA-1, so any other writer in between is seen), checks that none of the
request ids the change assumed unseen has been recorded, writes the document,
the log entry, the request records and the TTLs, and publishes the change with
the document in it, so the fan-out does not load the table again. A change may
also carry rate-limit counters (an action's seat and table): the script counts
them with the write and refuses it (nothing written) when one is over its
limit, so an action's limits cost no round trip of their own.

The embedded store (fakeredis, no Lua) runs the same steps in Python under one
lock: it lives in this process, so nobody else writes to it.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from typing import Any

from server.store.keys import CHANNEL, change_head, code_key, doc_key, dumps, log_key, req_key, text
from server.store.resp import Lean

#: What the script answers (its reply's first element).
GONE, CHANGED, RECORDED, DONE, RATED = 0, 1, 2, 3, 4

# KEYS: doc, log, req[, code], then the rate counters. ARGV: sha1 of the
# document the change was built on, the new document, ttl, log entry ('' for
# none), channel, message head, then four counts (assumed-unseen request ids,
# records to write, ids to drop, rate counters), the counters' window (s), and
# those lists (records as id, value pairs; the counters' limits last).
# The counters are counted only once the change is sure to be written
# otherwise (an attempt that lost a race is not counted); a refused one stays
# counted only where it was over (Store.hit_many's rule).
SCRIPT = """
local cur = redis.call('GET', KEYS[1])
if not cur then return {0} end
if redis.sha1hex(cur) ~= ARGV[1] then return {1} end
local na, ns, nd, nr = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local i = 12
local found = {2}
for _ = 1, na do
  local rec = redis.call('HGET', KEYS[3], ARGV[i])
  if rec then found[#found + 1] = ARGV[i]; found[#found + 1] = rec end
  i = i + 1
end
if #found > 1 then return found end
if nr > 0 then
  local first, lim = #KEYS - nr, i + 2 * ns + nd
  local counts, over = {}, false
  for j = 1, nr do
    counts[j] = redis.call('INCR', KEYS[first + j])
    redis.call('EXPIRE', KEYS[first + j], tonumber(ARGV[11]) + 1)
    if counts[j] > tonumber(ARGV[lim + j - 1]) then over = true end
  end
  if over then
    for j = 1, nr do
      if counts[j] <= tonumber(ARGV[lim + j - 1]) then redis.call('DECR', KEYS[first + j]) end
    end
    return {4}
  end
end
local ttl = ARGV[3]
redis.call('SET', KEYS[1], ARGV[2], 'EX', ttl)
if ARGV[4] ~= '' then redis.call('RPUSH', KEYS[2], ARGV[4]) end
redis.call('EXPIRE', KEYS[2], ttl)
for _ = 1, ns do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  i = i + 2
end
if nd > 0 then redis.call('HDEL', KEYS[3], unpack(ARGV, i, i + nd - 1)) end
redis.call('EXPIRE', KEYS[3], ttl)
if #KEYS - nr == 4 then redis.call('EXPIRE', KEYS[4], ttl) end
redis.call('PUBLISH', ARGV[5], ARGV[6] .. ARGV[2] .. '}')
return {3}
"""


def digest(raw: str) -> str:
    return hashlib.sha1(raw.encode(), usedforsecurity=False).hexdigest()


@dataclass
class Change:
    """Everything one commit writes, encoded."""

    table_id: str
    base: str  # the raw document the change was built on
    doc: bytes
    version: int
    code: str | None
    entry: bytes | None
    assumed: list[str]
    records: list[tuple[str, bytes]]
    drop: list[str]
    #: Rate counters counted with the write: (key, limit); and their window (s).
    hits: list[tuple[str, int]] = field(default_factory=list)
    window: int = 60


class Committer:
    """Runs a ``Change``: EVALSHA on Redis, the same steps in Python when embedded."""

    def __init__(self, client: Any, embedded: bool, lean: Lean | None = None) -> None:
        self.r = client
        self.embedded = embedded
        self.lean = lean
        self.lock = threading.Lock()
        # Registered once; EVALSHA, and EVAL when the server does not know the
        # script yet (a restart, a failover). On a plain TCP Redis ``lean``
        # runs it (server/store/resp.py: under half redis-py's client CPU).
        self.script = None if embedded or lean is not None else client.register_script(SCRIPT)

    def run(self, c: Change, ttl: int) -> tuple[int, dict[str, Any]]:
        """The script's answer, and for RECORDED the records it found (raw JSON)."""
        reply = self._embedded(c, ttl) if self.embedded else self._redis(c, ttl)
        status = int(reply[0])
        found = {str(text(reply[k])): text(reply[k + 1]) for k in range(1, len(reply), 2)}
        return status, found

    def _redis(self, c: Change, ttl: int) -> list[Any]:
        keys = [doc_key(c.table_id), log_key(c.table_id), req_key(c.table_id)]
        if c.code:
            keys.append(code_key(c.code))
        keys += [key for key, _ in c.hits]
        args: list[Any] = [digest(c.base), c.doc, ttl, c.entry or b"", CHANNEL,
                           change_head(c.table_id, c.version), len(c.assumed), len(c.records),
                           len(c.drop), len(c.hits), c.window, *c.assumed]
        for rid, record in c.records:
            args += [rid, record]
        args += c.drop
        args += [limit for _, limit in c.hits]
        if self.lean is not None:
            return list(self.lean.evalsha(SCRIPT, keys, args))
        assert self.script is not None
        return list(self.script(keys=keys, args=args))

    def _embedded(self, c: Change, ttl: int) -> list[Any]:
        tid = c.table_id
        with self.lock:
            cur = text(self.r.get(doc_key(tid)))
            if cur is None:
                return [GONE]
            if cur != c.base:
                return [CHANGED]
            if c.assumed:
                seen = self.r.hmget(req_key(tid), c.assumed)
                found = [x for rid, rec in zip(c.assumed, seen, strict=True) if rec is not None
                         for x in (rid, rec)]
                if found:
                    return [RECORDED, *found]
            if c.hits:
                counts = [int(self.r.incr(key)) for key, _ in c.hits]
                for key, _ in c.hits:
                    self.r.expire(key, c.window + 1)
                over = [n > limit for n, (_, limit) in zip(counts, c.hits, strict=True)]
                if any(over):
                    for (key, _), refused in zip(c.hits, over, strict=True):
                        if not refused:
                            self.r.decr(key)
                    return [RATED]
            with self.r.pipeline() as p:
                p.set(doc_key(tid), c.doc, ex=ttl)
                if c.entry is not None:
                    p.rpush(log_key(tid), c.entry)
                p.expire(log_key(tid), ttl)
                for rid, record in c.records:
                    p.hset(req_key(tid), rid, record)
                if c.drop:
                    p.hdel(req_key(tid), *c.drop)
                p.expire(req_key(tid), ttl)
                if c.code:
                    p.expire(code_key(c.code), ttl)
                p.publish(CHANNEL, change_head(tid, c.version) + c.doc + b"}")
                p.execute()
            return [DONE]


def encode(table_id: str, base: str, commit: Any, assumed: list[str],
           hits: list[tuple[str, int]] | None = None, window: int = 60) -> Change:
    """A ``store.Commit`` (with a document) as the script's arguments."""
    doc = commit.doc
    records = [(rid, dumps(rec)) for rid, rec in
               ([commit.request] if commit.request is not None else []) + commit.more_requests]
    # A game's held code lives as long as its table: "play again" shows it again.
    code = doc.get("code") or doc.get("held_code") or None
    return Change(table_id, base, dumps(doc), int(doc["version"]), code,
                  dumps(commit.entry) if commit.entry is not None else None,
                  list(assumed), records, list(commit.drop_requests), list(hits or []), window)
