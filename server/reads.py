"""Reads: what a seat sees of a table (snapshot), its history, and the engine's
analysis, computed once per version and viewer. Nothing here writes."""

from __future__ import annotations

import threading
from typing import Any

from engines.base import Engine
from server.model import Action, Analysis, History, HistoryLine, LogEntry, Snapshot, TableDoc
from server.offload import offload
from server.platform_text import describe_platform

#: Analyses kept per process (oldest dropped first): a few per live table.
ANALYSIS_CACHE_SIZE = 512


def host_filter(engine: Engine, templates: list[Action], host: bool) -> list[Action]:
    """Drops host-only templates for other seats; strips the ``host`` marker."""
    out = []
    for t in templates:
        host_only = t.get("host") is True or t["type"] in engine.host_actions
        if host_only and not host:
            continue
        out.append({k: v for k, v in t.items() if k != "host"})
    return out


def snapshot(engine: Engine, doc: TableDoc, player: str | None, state: Any = None,
             online: set[str] | None = None) -> Snapshot:
    """What ``player`` (None: spectator) sees of the table. ``state`` may be
    passed pre-loaded when building many snapshots of one version. ``online``:
    the seats with a live socket (``Store.present``); each player then carries
    ``connected``."""
    if doc["state"] is not None and state is None:
        state = engine.load(doc["state"])
    public = engine.public_players(state) if state is not None else {}
    players = [
        {"id": s["id"], "name": s["name"], "host": s["id"] == doc["host"], **public.get(s["id"], {})}
        for s in doc["seats"]
    ]
    if online is not None:
        for p in players:
            p["connected"] = p["id"] in online
    host = player is not None and player == doc["host"]
    seat = next((s for s in doc["seats"] if s["id"] == player), None)
    sealed = bool(seat and seat.get("sealed"))
    legal: list[Action] = []
    if state is not None:
        # A sealed seat sees what a spectator sees: its own view and its legal
        # moves would both reveal its secrets to whoever holds the new token.
        view = engine.view(state, None if sealed else player)
        if player is not None and not sealed:
            legal = host_filter(engine, engine.legal_actions(state, player), host)
    else:
        view = {}
    if sealed and seat is not None and "pin" in seat:
        legal.append({"type": "unlock"})
    if host:
        if doc["status"] == "lobby":
            legal.append({"type": "seats"})
            if doc["min_players"] <= len(doc["seats"]) <= doc["max_players"]:
                legal.append({"type": "start"})
        elif doc["undoable"]:
            legal.append({"type": "undo"})
        if doc["status"] == "over":
            legal.append({"type": "play_again"})
    snap: Snapshot = {
        "table": doc["id"], "game": doc["game"], "code": doc["code"], "version": doc["version"],
        "status": doc["status"], "host": doc["host"], "me": player, "options": doc["options"],
        "min_players": doc["min_players"], "max_players": doc["max_players"],
        "round": doc["round"], "players": players, "view": view, "legal": legal,
    }
    if seat is not None:
        snap["sealed"] = sealed
        snap["pin"] = "pin" in seat
    return snap


def history(engine: Engine, doc: TableDoc, entries: list[LogEntry], lang: str) -> History:
    """The log as text by round; entries later undone are marked, not dropped."""
    names = {s["id"]: s["name"] for s in doc["seats"]}
    undone = {e["action"]["target"] for e in entries if e["action"]["type"] == "undo"}
    rounds: dict[int, list[HistoryLine]] = {}
    # Seats removed since still have a name in the events that mention them.
    for e in entries:
        for ev in e["events"]:
            names.setdefault(ev.get("player", ""), ev.get("name", ""))
    for e in entries:
        if e["kind"] == "game":
            text = " ".join(engine.describe(ev, lang, names) for ev in e["events"])
        else:
            text = describe_platform(e, lang, names)
        rounds.setdefault(e["round"], []).append(
            {"version": e["v"], "by": e["by"], "text": text, "undone": e["v"] in undone}
        )
    return {
        "version": doc["version"],
        "rounds": [{"round": r, "entries": rounds[r]} for r in sorted(rounds)],
    }


class AnalysisCache:
    """The engine's analysis of a version, computed once per process, version
    and viewer: every phone asks right after each change, and the first one
    computes (off the event loop) while the others wait for it."""

    def __init__(self, size: int = ANALYSIS_CACHE_SIZE) -> None:
        self.size = size
        self._cache: dict[tuple[str, int, str | None], Analysis] = {}
        self._pending: dict[tuple[str, int, str | None], threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, engine: Engine, doc: TableDoc, player: str | None) -> Analysis:
        state = engine.load(doc["state"]) if doc["state"] is not None else None
        if any(s["id"] == player and s.get("sealed") for s in doc["seats"]):
            player = None  # a sealed seat's analysis could hint at its secrets
        viewer = engine.analysis_viewer(state, player) if state is not None else None
        key = (doc["id"], doc["version"], viewer)
        with self._lock:
            hit = self._cache.get(key)
            waiting = self._pending.get(key) if hit is None else None
            mine = hit is None and waiting is None
            if mine:
                waiting = self._pending[key] = threading.Event()
        if hit is not None:
            return hit
        assert waiting is not None
        if not mine:
            waiting.wait(60)
            with self._lock:
                hit = self._cache.get(key)
            return hit or {"version": doc["version"], "analysis": None}
        try:
            result = offload(lambda: engine.analysis(state, viewer)) if state is not None else None
            hit = {"version": doc["version"], "analysis": result}
            with self._lock:
                self._cache[key] = hit
                while len(self._cache) > self.size:
                    self._cache.pop(next(iter(self._cache)))
        finally:
            with self._lock:
                self._pending.pop(key, None)
            waiting.set()
        return hit
