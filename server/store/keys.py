"""The Redis key layout and the change messages (JSON by ``server/wire.py``).

A table is three keys that share a hash tag (so a cluster keeps them on one
slot) and one TTL, refreshed on every change:

- ``tm:{<id>}:doc``  the table document (seats, options, engine state, version)
- ``tm:{<id>}:ver``  the document's version alone: what the commit compares
- ``tm:{<id>}:log``  the action log, one JSON entry per applied change
- ``tm:{<id>}:req``  request_id → the first result, so retries apply once
- ``tm:{<id>}:here`` presence: one member per open socket (``<seat>/<socket>``),
  scored by when it was last heard from; members older than
  ``presence.PRESENCE_TTL`` count as gone, so an instance that dies takes its
  phones offline by itself

- ``tm:{<id>}:links`` the pending draw (``links.py``): ``_draw`` → its id,
  ``_pending``, ``_frame``, seat → ``{"link", "anchor"}``; written by the
  announce's script (no commit), one field a link, cleared by the commit
  that makes the draw; while it names a draw, commits are refused but those
  that pass it
- ``tm:{<id>}:rl:<bucket>:<who>:<window>`` a rate counter of the table (a seat's actions)

plus ``tm:code:<CODE>`` (lobby join codes), ``tm:rl:<bucket>:<client>:<window>``
(rate counters per client address) and ``tm:instances`` (the instances alive,
for table routing: ``instances.py``). Every committed change publishes
``{"t": id, "v": version, "d": <doc>}`` on the table's own channel
``tm:{<id>}:ch`` (SPUBLISH: on a cluster it stays on the table's node; a new
table's message has no ``d``); a process listens on the channels of the tables
it has sockets on, and fans a change out to them without loading the table
again. A socket that opens or closes publishes ``{"t": id, "p": 1}`` there
(presence, no version); a draw announced publishes ``{"t": id, "w": version, "f": <draw frame>}``
(``links.py``: whom the pending draw still waits for, no version of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.wire import dumps, loads

__all__ = ["DOC_FIELD", "change_head", "channel_key", "code_key", "doc_key", "dumps", "loads", "log_key",
           "links_key", "presence_key", "rate_key", "req_key", "split_change", "table_key", "table_of", "text",
           "version_key"]

#: What separates a change message's head from the document it carries; a
#: table id never contains it, so the head parses without the document.
DOC_FIELD = ',"d":'


def text(raw: bytes | str | None) -> str | None:
    # Clients are made with decode_responses=True; a bytes value means a client
    # passed in without it, and is decoded rather than mistyped.
    return raw.decode() if isinstance(raw, bytes) else raw


def table_key(part: str) -> Callable[[str], str]:
    """The builder of one of a table's keys, ``tm:{<id>}:<part>``: every key
    and channel of a table shares its hash tag here, so a cluster keeps them
    on the table's slot and a commit script touches only that slot."""
    return lambda table_id: f"tm:{{{table_id}}}:{part}"


doc_key = table_key("doc")
version_key = table_key("ver")
log_key = table_key("log")
req_key = table_key("req")
presence_key = table_key("here")
links_key = table_key("links")
#: The table's change channel (a sharded channel: it has a slot, like a key).
channel_key = table_key("ch")


def table_of(channel: str) -> str:
    """The table a channel is of.

    >>> table_of(channel_key("AbC_1"))
    'AbC_1'
    """
    return channel[channel.index("{") + 1:channel.index("}")]


def code_key(code: str) -> str:
    return f"tm:code:{code}"


def rate_key(bucket: str, client: str, window: int, table: str | None = None) -> str:
    """A rate counter: of a table's (``table``, its hash tag: a commit counts
    it on the table's slot), or of a client address."""
    if table is not None:
        return table_key(f"rl:{bucket}:{client}:{window}")(table)
    return f"tm:rl:{bucket}:{client}:{window}"


def change_head(table_id: str, version: int) -> bytes:
    """A change message up to its document: the script appends ``<doc>}``."""
    return dumps({"t": table_id, "v": version})[:-1] + DOC_FIELD.encode()


#: What separates a link message's head from the draw frame it carries.
FRAME_FIELD = ',"f":'


def split_change(data: str) -> tuple[dict[str, Any], str | None]:
    """A message's head (``t``, ``v`` or ``p``, or ``w``) and its raw document
    (or a link message's draw frame), if any: whichever field comes first
    ends the head (a table id contains neither)."""
    doc, frame = data.find(DOC_FIELD), data.find(FRAME_FIELD)
    at, size = (frame, len(FRAME_FIELD)) if frame >= 0 and (doc < 0 or frame < doc) else (doc, len(DOC_FIELD))
    if at < 0:
        return loads(data), None
    return loads(data[:at] + "}"), data[at + size:-1]
