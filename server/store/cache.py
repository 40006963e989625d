"""What a process keeps of the tables it writes, so an action needs no read of
its own: the newest document it knows of each (``Latest``), and the engine
state, as an object, of the version it last committed (``States``); and the
change messages of the commits it awaits (``InFlight``)."""

from __future__ import annotations

import os
import threading
from typing import Any

from server.store.keys import loads

#: Tables whose latest document a process keeps (``Latest``), as text (a few KB each).
LATEST_TABLES = 4096
#: Tables whose newest document a process keeps parsed (``Parsed``): a
#: parsed document is several times its text, and the actions that share one
#: (a roll's links) come within milliseconds, so a few of the most recent do.
PARSED_TABLES = 32


class Latest:
    """The newest document this process has seen of the tables it hears
    (``Listener.watch``: its own commits, and every instance's through the
    table's change channel, whose messages carry the document): an action
    starts from it instead of reading the table. Kept only for a watched
    table, while the listener is connected: a table this process does not
    hear could change under a kept copy for good. Being behind costs nothing
    but a round trip: the commit compares the stored version with the one the
    change was built on, and a refused commit reads the table and runs again
    (``service/write.py``)."""

    def __init__(self, size: int = LATEST_TABLES) -> None:
        self.size = size
        self.docs: dict[str, tuple[int, str]] = {}
        self.lock = threading.Lock()
        #: The tables whose every change this process hears now.
        self.heard: set[str] = set()

    def watch(self, table_id: str) -> None:
        """The table's channel is confirmed: from now on no change of it goes unheard."""
        with self.lock:
            self.heard.add(table_id)

    def unwatch(self, table_id: str) -> None:
        with self.lock:
            self.heard.discard(table_id)
            self.docs.pop(table_id, None)

    def stop(self) -> None:
        """The listener lost its connection: changes may go unheard."""
        with self.lock:
            self.heard.clear()
            self.docs.clear()

    def get(self, table_id: str) -> str | None:
        found = self.docs.get(table_id)
        return found[1] if found is not None else None

    def put(self, table_id: str, version: int, raw: str) -> None:
        """Keeps ``raw`` (of a heard table) unless a newer version is kept already."""
        if table_id not in self.heard:
            return
        with self.lock:
            held = self.docs.pop(table_id, None)
            if held is not None and held[0] > version:
                raw, version = held[1], held[0]
            self.docs[table_id] = (version, raw)
            if len(self.docs) > self.size:
                del self.docs[next(iter(self.docs))]  # the one written longest ago

    def seen(self, table_id: str, version: int, raw: str | None) -> None:
        """A change message: kept only for a table already held (the process
        writes it), and forgotten when the message has no document."""
        held = self.docs.get(table_id)
        if held is None or held[0] >= version:
            return
        if raw is None:
            self.drop(table_id)
        else:
            self.put(table_id, version, raw)

    def drop(self, table_id: str) -> None:
        with self.lock:
            self.docs.pop(table_id, None)


class Parsed:
    """One parsed copy of the newest document, shared by every action that
    starts from it (``Store.parsed``): the phones' links of one roll and the
    roll after it all read the same version, and each parsed the whole
    document to find its seat (the ``Parsed`` row of docs/performance.md, "Why
    each fast path exists"). Keyed by the raw JSON itself, so a copy is
    only ever handed out for the very text it was parsed from.

    Whoever gets one only reads it (the seat, the version; ``Tx.doc``): a
    change is made on ``Tx.copy()``. ``TABLEMATE_CHECK_SHARED`` (set by the
    test suite) compares each copy with its text again when handed out, so
    a change in place fails a test instead of leaking into the next action."""

    def __init__(self, size: int = PARSED_TABLES) -> None:
        self.size = size
        self.held: dict[str, tuple[str, Any]] = {}
        self.lock = threading.Lock()
        self.check = os.environ.get("TABLEMATE_CHECK_SHARED") == "1"

    def get(self, table_id: str, raw: str) -> Any:
        found = self.held.get(table_id)
        if found is not None and (found[0] is raw or found[0] == raw):
            if self.check and loads(raw) != found[1]:
                raise AssertionError(f"table {table_id}: a shared parsed document was changed in place")
            return found[1]
        doc = loads(raw)
        self.put(table_id, raw, doc)
        return doc

    def put(self, table_id: str, raw: str, doc: Any) -> None:
        """``doc`` is ``raw`` parsed (a commit's own document, as it was encoded): shared from now on."""
        with self.lock:
            self.held.pop(table_id, None)
            self.held[table_id] = (raw, doc)
            if len(self.held) > self.size:
                del self.held[next(iter(self.held))]  # the one parsed longest ago


class States:
    """The engine state, as an object, of the version of a table this process
    last committed, for the table's next action: decoding it from the document
    is the ``States`` row of docs/performance.md, "Why each fast path exists". A state is found only for
    the very version it was made at (a version is one document: the commit
    compares), and engine states are never changed in place, so sharing it is
    safe. Bounded like ``Latest``."""

    def __init__(self, size: int = LATEST_TABLES) -> None:
        self.size = size
        self.held: dict[str, tuple[int, Any]] = {}
        self.lock = threading.Lock()

    def get(self, table_id: str, version: int) -> Any:
        found = self.held.get(table_id)
        return found[1] if found is not None and found[0] == version else None

    def put(self, table_id: str, version: int, state: Any) -> None:
        with self.lock:
            held = self.held.pop(table_id, None)
            if held is not None and held[0] > version:
                version, state = held
            self.held[table_id] = (version, state)
            if len(self.held) > self.size:
                del self.held[next(iter(self.held))]  # the one committed longest ago


class InFlight:
    """The commits this process has sent and not yet heard back: (table id,
    version) → the change message if it came first, else None. Redis writes a
    script's SPUBLISH to the subscriber before the script's reply to its
    caller, so the listener would usually see this process's own change first
    and fan it out by parsing the document and decoding its engine state
    again; it leaves it to the committing caller instead (``keep``), who
    hands it on if nobody else tells it (``Store.commit``)."""

    def __init__(self) -> None:
        self.messages: dict[tuple[str, int], str | None] = {}
        self.lock = threading.Lock()

    def hold(self, table_id: str, version: int) -> None:
        """A commit of this version is on its way: its message is left to it."""
        with self.lock:
            # setdefault: another greenlet of this process may be committing the
            # same version (built on the same document); its message is kept.
            self.messages.setdefault((table_id, version), None)

    def keep(self, table_id: str, version: int, raw: str | None) -> bool:
        """Whether a change message is of a commit this process still awaits
        (then kept for it)."""
        with self.lock:
            key = (table_id, version)
            if key not in self.messages:
                return False
            self.messages[key] = raw
            return True

    def release(self, table_id: str, version: int) -> str | None:
        """The commit of this version came back: the message kept for it, if one came."""
        with self.lock:
            return self.messages.pop((table_id, version), None)
