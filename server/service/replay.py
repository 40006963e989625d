"""How a game is rebuilt from its table's log: the start record's ``setup``,
the seats without a phone at the start, then every engine action still in
force. Start, undo and the results replay all go through here, so they
cannot disagree about what the game was.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engines.base import Action as EngineAction
from engines.base import Engine
from server.model import LogEntry, StartRecord, TableDoc
from server.service import atrest


def paper_action(seat: str, by: str) -> EngineAction:
    """The engine's ``set_paper`` for ``seat``, sent by the host ``by``."""
    return {"type": "set_paper", "seat": seat, "player": by, "host": True}


def initial_state(engine: Engine, start: StartRecord) -> Any:
    """The state a game starts from: ``setup``, then every seat that had no
    phone at the start marked as paper. Start, undo and results all rebuild
    the game from here (the seat itself stands for the host in the action:
    the start record does not name one)."""
    state = engine.setup(start["players"], start["options"])
    for seat in start.get("paper", []):
        state, _ = engine.apply(state, paper_action(seat, seat))
    return state


def game_entries(doc: TableDoc, entries: Iterable[LogEntry]) -> list[LogEntry]:
    """The current game's logged game actions still in force: after its
    ``start`` (an earlier game on this table, before ``play_again``, is not
    replayed) and not taken back by an undo."""
    start = doc["start"]
    since = start.get("v", 0) if start is not None else 0
    mine = [e for e in entries if e["v"] > since]
    gone = {e["action"].get("target") for e in mine if e["action"]["type"] == "undo"}
    return [e for e in mine if e["kind"] == "game" and e["v"] not in gone]


#: The platform changes that may carry an engine action (``action["engine"]``):
#: a seat taken off its phone (``set_paper``) and handed back (``set_phone``).
CARRIERS = frozenset({"phoneless", "phone_back"})


def engine_action(entry: LogEntry) -> EngineAction | None:
    """The engine action a log entry applied: a game action's own, or the
    ``set_paper``/``set_phone`` a mid-game ``phoneless``/``phone_back``
    carried (None: none)."""
    if entry["kind"] == "game":
        return entry["action"]
    carried: EngineAction | None = entry["action"].get("engine") if entry["action"]["type"] in CARRIERS else None
    return carried


def replayed(doc: TableDoc, entries: Iterable[LogEntry]) -> list[tuple[int, EngineAction]]:
    """What rebuilds the current game after ``initial_state``, in log order:
    (version, engine action) of each game action still in force and of each
    mid-game ``phoneless`` or ``phone_back`` (not undoable: platform changes)."""
    start = doc["start"]
    since = start.get("v", 0) if start is not None else 0
    mine = [e for e in entries if e["v"] > since]
    gone = {e["action"].get("target") for e in mine if e["action"]["type"] == "undo"}
    out = []
    for e in mine:
        action = engine_action(e)
        if action is not None and e["v"] not in gone:
            out.append((e["v"], atrest.shown(doc["id"], action, e["v"])))
    return out
