"""The engine's analysis of a board position, computed once per process,
position and viewer (off the event loop) and shared by every phone that
asks. The per-table limit on fresh analyses is the caller's (``Tables``)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable

from engines.base import Engine
from server.model import Analysis, TableDoc
from server.runtime import offload
from server.service import atrest
from server.service.seats import hidden

#: Analyses kept per process (oldest dropped first): a few per live table.
ANALYSIS_CACHE_SIZE = 512


def state_key(doc: TableDoc) -> str:
    """A digest of the game state: the analysis depends on nothing else, so a
    rename (a new version, the same board) reuses it, and so does an undo back
    to a position already analysed."""
    raw = json.dumps(doc["state"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()


class AnalysisCache:
    """The engine's analysis of a board position, computed once per process,
    position and viewer: every phone asks right after each change, and the
    first one computes (off the event loop) while the others wait for it.
    ``before_compute(table_id)`` runs before each fresh computation and may
    refuse it by raising (the per-table limit)."""

    def __init__(self, size: int = ANALYSIS_CACHE_SIZE,
                 before_compute: Callable[[str], None] | None = None) -> None:
        self.size = size
        self.before_compute = before_compute
        self._cache: dict[tuple[str, str, str | None], Analysis] = {}
        self._pending: dict[tuple[str, str, str | None], threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, engine: Engine, doc: TableDoc, player: str | None) -> Analysis:
        state = atrest.load_state(engine, doc) if doc["state"] is not None else None
        if state is None:
            return {"version": doc["version"], "analysis": None}
        if any(s["id"] == player and hidden(s) for s in doc["seats"]):
            player = None  # a sealed or paused seat's analysis could hint at its secrets
        viewer = engine.analysis_viewer(state, player)
        key = (doc["id"], state_key(doc), viewer)
        with self._lock:
            hit = self._cache.get(key)
            waiting = self._pending.get(key) if hit is None else None
            mine = hit is None and waiting is None
            if mine:
                waiting = self._pending[key] = threading.Event()
        if hit is not None:
            return self._at(hit, doc["version"])
        assert waiting is not None
        if not mine:
            waiting.wait(60)
            with self._lock:
                hit = self._cache.get(key)
            return self._at(hit, doc["version"]) if hit else {"version": doc["version"], "analysis": None}
        try:
            if self.before_compute is not None:
                self.before_compute(doc["id"])
            hit = {"version": doc["version"], "analysis": offload(lambda: engine.analysis(state, viewer))}
            with self._lock:
                self._cache[key] = hit
                while len(self._cache) > self.size:
                    self._cache.pop(next(iter(self._cache)))
        finally:
            with self._lock:
                self._pending.pop(key, None)
            waiting.set()
        return hit

    @staticmethod
    def _at(hit: Analysis, version: int) -> Analysis:
        """A cached answer, named for the version asked about (the board may be
        the same several versions on: renames, seat changes)."""
        return hit if hit["version"] == version else {"version": version, "analysis": hit["analysis"]}
