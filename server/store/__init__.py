"""The one package that talks to Redis.

``Store`` (``store.py``: tables, join codes, the pending draw's links, and
its parts) is what the service uses; what one action's write runs on is its
part ``Store.writes`` (``writes.py``: the reads the write loop needs, the
compare-and-set ``commit``, and what a process keeps of the tables it writes);
``commit.py`` the commit (one update's read and write sides, ``Tx`` and
``Commit``, and the one-round-trip script that writes it), ``keys.py``
every key and the JSON codec, ``resp.py`` the hot paths' own Redis client;
``listen.py`` the listener on the tables' change channels (reading a
``feeds.py`` feed), ``presence.py`` who is connected, ``connect.py`` the
client ``REDIS_URL`` names, ``paths.py`` which client path runs the scripts
and feeds the listener (chosen once at connect). The store never calls the
service: its retry loop is ``service/write.py``'s.
"""

from server.store.commit import CHANGED, DONE, GONE, PENDING, RATED, RECORDED, Commit, Primed, Tx
from server.store.links import DrawFrame
from server.store.listen import Callbacks
from server.store.store import Store
from server.store.writes import Verdict

__all__ = ["CHANGED", "DONE", "GONE", "PENDING", "RATED", "RECORDED", "Callbacks", "Commit", "DrawFrame", "Primed", "Store", "Tx",
           "Verdict"]
