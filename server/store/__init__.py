"""The one package that talks to Redis.

``Store`` (``store.py``: tables, their compare-and-set ``commit``, rate
counters) is what the service uses; ``commit.py`` the commit (one update's
read and write sides, ``Tx`` and ``Commit``, and the one-round-trip script
that writes it), ``cache.py`` what a process keeps of the tables it writes,
``listen.py`` the listener on the tables' change channels (reading a
``feeds.py`` feed), ``presence.py`` who is connected, ``keys.py`` every key
and the JSON codec, ``resp.py`` the hot paths' own Redis client, ``connect.py`` the client ``REDIS_URL`` names, ``paths.py`` which client path
runs the scripts and feeds the listener (chosen once at connect). The store
never calls the service: its retry loop is ``service/write.py``'s.
"""

from server.store.commit import CHANGED, DONE, GONE, PENDING, RATED, RECORDED, Commit, Primed, Tx
from server.store.links import DrawFrame
from server.store.listen import Callbacks
from server.store.store import Store, Verdict

__all__ = ["CHANGED", "DONE", "GONE", "PENDING", "RATED", "RECORDED", "Callbacks", "Commit", "DrawFrame", "Primed", "Store", "Tx",
           "Verdict"]
