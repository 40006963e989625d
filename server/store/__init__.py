"""The one package that talks to Redis.

``Store`` (``store.py``: tables, the versioned atomic update, rate counters)
is what the service uses; ``tx.py`` is one update's read and write sides,
``cache.py`` what a process keeps of the tables it writes, ``listen.py`` the
listener on the tables' change channels (reading a ``feeds.py`` feed),
``presence.py`` who is connected, ``keys.py``
every key and the JSON codec, ``commit.py`` the one-round-trip commit
script, and ``resp.py`` the hot paths' own Redis client.
"""

from server.store.store import Conflict, RateLimited, Store
from server.store.tx import Commit, Primed, Tx

__all__ = ["Commit", "Conflict", "Primed", "RateLimited", "Store", "Tx"]
