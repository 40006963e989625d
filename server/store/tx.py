"""One update's two sides: what it reads (``Tx``, the document and lazy
reads) and what it writes (``Commit``), and ``Primed``, an update's function
with the document its caller has just read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from server.model import LogEntry, TableDoc
from server.store.keys import loads

R = TypeVar("R")


@dataclass
class Commit(Generic[R]):
    """What one update writes, all at once (``server/store/commit.py``); ``doc=None`` writes nothing."""

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
