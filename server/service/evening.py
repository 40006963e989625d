"""An evening, not one game (issue 41): every game played at this table since
it was opened, each one's figures and the running total, for the results
sheet; and in the lobby after "play again", which game of the evening comes
next and who set it up (BG Stats' sessions, BGA's rematch).

A table's log holds every game: each begins at its ``start`` and ends at the
next ``play_again``, and each is rebuilt as the results rebuild the current
one (``replay``), from public figures only.
"""

from __future__ import annotations

from typing import Any, cast

from engines.base import Engine, Step
from server.model import LogEntry, StartRecord, TableDoc
from server.service.replay import initial_state, replayed


def games(log: list[LogEntry]) -> list[tuple[StartRecord, list[LogEntry]]]:
    """Each game of the log, in order: its start record and the entries after
    its start up to the next ``play_again`` (the last: up to the end)."""
    out: list[tuple[StartRecord, list[LogEntry]]] = []
    open_ = False
    for e in log:
        action = e["action"]
        if action["type"] == "start":
            start: StartRecord = {"players": list(action["players"]), "options": action["options"], "v": e["v"]}
            if action.get("paper"):
                start["paper"] = list(action["paper"])
            out.append((start, []))
            open_ = True
        elif action["type"] == "play_again":
            open_ = False  # the lobby's changes belong to no game
        elif open_:
            out[-1][1].append(e)
    return out


def _result(engine: Engine, table: str, start: StartRecord, entries: list[LogEntry]) -> dict[str, Any] | None:
    """One game's result (the engine's), or None if it never finished."""
    state = initial_state(engine, start)
    steps: list[Step] = [(state, [])]
    for _, action in replayed(cast(TableDoc, {"id": table, "start": start}), entries):
        state, events = engine.apply(state, action)
        steps.append((state, events))
    return engine.result(state, iter(steps))


def evening(engine: Engine, doc: TableDoc, log: list[LogEntry]) -> dict[str, Any] | None:
    """The evening's games at this table and their running total, once there
    are two or more finished games (None before): ``games``, per game its
    number and each seat's ``score``, ``rank`` and ``winner``; ``totals``, per
    seat the sum of its scores (None where the game keeps none) and its wins.
    Seats are today's seat ids; a seat that sat a game out has no figure in
    it. ``log``: the table's, up to ``doc``'s version."""
    finished: list[dict[str, Any]] = []
    closed = _closed(log)
    for i, (start, entries) in enumerate(games(log)):
        if i >= closed and doc["status"] != "over":
            break  # the game being played now
        out = _result(engine, doc["id"], start, entries)
        if out is None:
            continue
        finished.append({"n": len(finished) + 1, "players": {
            p["id"]: {"score": p["score"], "rank": p["rank"], "winner": p["winner"]} for p in out["players"]}})
    if len(finished) < 2:
        return None
    totals: dict[str, dict[str, Any]] = {}
    for game in finished:
        for pid, p in game["players"].items():
            t = totals.setdefault(pid, {"score": 0, "wins": 0})
            t["score"] = None if t["score"] is None or p["score"] is None else t["score"] + p["score"]
            t["wins"] += bool(p["winner"])
    return {"games": finished, "totals": totals}


def _closed(log: list[LogEntry]) -> int:
    """How many games a ``play_again`` has closed."""
    return sum(1 for e in log if e["action"]["type"] == "play_again")


def note(doc: TableDoc, atype: str, me: str) -> None:
    """Remembers who set up the next game (``play_again``), for the lobby."""
    if atype == "play_again":
        doc["rematch_by"] = me


def lobby(doc: TableDoc) -> dict[str, Any] | None:
    """What the lobby says after "play again": which game of the evening
    comes next (2 after the first) and who set it up."""
    rematches = doc.get("rematches") or []
    if doc["status"] != "lobby" or not rematches:
        return None
    return {"game": len(rematches) + 1, "by": doc.get("rematch_by", doc["host"])}
