"""The Redis key layout and the change messages (JSON by ``server/wire.py``).

A table is three keys that share a hash tag (so a cluster keeps them on one
slot) and one TTL, refreshed on every change:

- ``tm:{<id>}:doc``  the table document (seats, options, engine state, version)
- ``tm:{<id>}:log``  the action log, one JSON entry per applied change
- ``tm:{<id>}:req``  request_id → the first result, so retries apply once
- ``tm:{<id>}:here`` presence: one member per open socket (``<seat>/<socket>``),
  scored by when it was last heard from; members older than
  ``presence.PRESENCE_TTL`` count as gone, so an instance that dies takes its
  phones offline by itself

plus ``tm:code:<CODE>`` (lobby join codes) and ``tm:rl:*`` (rate-limit counters).
Every committed change publishes ``{"t": id, "v": version, "d": <doc>}`` on
``CHANNEL`` (a new table's message has no ``d``); one listener per process fans
it out to that process's sockets without loading the table again. A socket
that opens or closes publishes ``{"t": id, "p": 1}`` there (presence, no version).
"""

from __future__ import annotations

from typing import Any

from server.wire import dumps, loads

__all__ = ["CHANNEL", "DOC_FIELD", "change_head", "code_key", "doc_key", "dumps", "loads", "log_key",
           "presence_key", "rate_key", "req_key", "split_change", "text"]

CHANNEL = "tm:changes"
#: What separates a change message's head from the document it carries; a
#: table id never contains it, so the head parses without the document.
DOC_FIELD = ',"d":'


def text(raw: bytes | str | None) -> str | None:
    # Clients are made with decode_responses=True; a bytes value means a client
    # passed in without it, and is decoded rather than mistyped.
    return raw.decode() if isinstance(raw, bytes) else raw


def doc_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:doc"


def log_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:log"


def req_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:req"


def presence_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:here"


def code_key(code: str) -> str:
    return f"tm:code:{code}"


def rate_key(bucket: str, client: str, window: int) -> str:
    return f"tm:rl:{bucket}:{client}:{window}"


def change_head(table_id: str, version: int) -> bytes:
    """A change message up to its document: the script appends ``<doc>}``."""
    return dumps({"t": table_id, "v": version})[:-1] + DOC_FIELD.encode()


def split_change(data: str) -> tuple[dict[str, Any], str | None]:
    """A message's head (``t``, ``v`` or ``p``) and its raw document, if any."""
    at = data.find(DOC_FIELD)
    if at < 0:
        return loads(data), None
    return loads(data[:at] + "}"), data[at + len(DOC_FIELD):-1]
