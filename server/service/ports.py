"""What the service is given to tell the world of its commits, and what a
listener is told: the ports between the service and the live adapter.

``Fanout`` is what the service pushes each commit of this process through,
given to ``Tables`` at construction (``live.Hub`` implements it). The hub
also calls the service (snapshots, presence, the listener), so the two are
made in turn: the hub first, holding no service yet, then the service with
the hub as its fan-out, then ``Hub.attach`` (``server/__init__.py``). A
forwarding object would break the cycle as well, but would cost a call on
every commit's push, on the action's own path.

``Callbacks`` is the listener's one callbacks object (``store.listen``),
named here so the adapter needs nothing of the store's.
"""

from __future__ import annotations

from typing import Any, Protocol

from server.model import TableDoc
from server.store.listen import Callbacks

__all__ = ["Callbacks", "Fanout"]


class Fanout(Protocol):
    def wrote(self, table_id: str, version: int, doc: TableDoc, state: Any) -> None:
        """A change this process has just committed, as soon as Redis has it
        and before the action's caller hears back: ``doc`` as committed and
        ``state`` its engine state as an object (None when the change made
        none). Must never raise into the commit, nor wait on a phone."""
