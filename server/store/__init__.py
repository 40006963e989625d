"""The one package that talks to Redis (``store.py``), with its key layout
(``keys.py``), commit script (``commit.py``), presence (``presence.py``) and
hot-path client (``resp.py``)."""

from server.store.store import (
    CHANNEL,
    PRESENCE_TTL,
    Commit,
    Conflict,
    Primed,
    RateLimited,
    Store,
    Tx,
    code_key,
    doc_key,
    dumps,
    loads,
    log_key,
    presence_key,
    rate_key,
    req_key,
)

__all__ = ["CHANNEL", "PRESENCE_TTL", "Commit", "Conflict", "Primed", "RateLimited", "Store", "Tx",
           "code_key", "doc_key", "dumps", "loads", "log_key", "presence_key", "rate_key", "req_key"]
