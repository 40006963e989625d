"""``R``, an update's result type, where ``service/write.py`` imports it from:
one update's read and write sides live with the script that writes them
(``commit.py``)."""

from server.store.commit import R

__all__ = ["R"]
