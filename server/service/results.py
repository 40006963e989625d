"""A finished game's result: standings, the round-by-round sheet and the BG
Stats import link, from the engine's ``result`` over a replay of the log.

The replay is the one undo makes (``replay.replayed``): ``initial_state``
of the logged start, then every game action of the current game still in
force (and the ``set_paper`` of each seat that lost its phone mid-game).
Only public figures leave here: the engine's result reads what the end of the
game reveals, and names are the seats' display names.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from engines.base import Engine, Step
from server.errors import ServiceError
from server.model import GameResult, LogEntry, TableDoc
from server.service import atrest, evening
from server.service.replay import game_entries, initial_state, replayed

#: BG Stats' documented import links (docs/results.md): the same request under
#: the app's own scheme, and as an https link the app claims when installed.
BGSTATS_APP = "bgstats://app.bgstatsapp.com/createPlay.html?data="
BGSTATS_WEB = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE_NAME = "Tablemate"


def not_over() -> ServiceError:
    return ServiceError("conflict", "not_over", "The game is not over yet: the result comes at its end.")


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def _replay(engine: Engine, doc: TableDoc, log: list[LogEntry]) -> Iterator[Step]:
    start = doc["start"]
    assert start is not None
    state = initial_state(engine, start)
    yield state, []
    for _, action in replayed(doc, log):
        state, events = engine.apply(state, action)
        yield state, events


def result(engine: Engine, doc: TableDoc, log: list[LogEntry], tz_minutes: int = 0) -> GameResult:
    """The result of the table's finished game; 409 ``not_over`` before its end.
    ``tz_minutes`` (east of UTC) sets the local date and time BG Stats records."""
    if doc["status"] != "over" or doc["start"] is None or doc["state"] is None:
        raise not_over()
    # The log is read apart from the document: a later change (the next game
    # already started) must not leak into this one.
    log = [e for e in log if e["v"] <= doc["version"]]
    entries = game_entries(doc, log)
    out = engine.result(atrest.load_state(engine, doc), _replay(engine, doc, log))
    if out is None:
        raise not_over()
    since = doc["start"].get("v", 0)
    start_entry = next((e for e in log if e["v"] == since), None) or next(
        (e for e in log if e["action"]["type"] == "start"), None)
    started = start_entry["at"] if start_entry is not None else doc["created"]
    finished = entries[-1]["at"] if entries else started
    duration = max(0, round((finished - started) / 60))
    names = {s["id"]: s["name"] for s in doc["seats"]}
    first = out.get("start_player")
    players = [{**p, "name": names.get(p["id"], p["id"]), "start_player": p["id"] == first}
               for p in out["players"]]
    order = {p["id"]: i for i, p in enumerate(players)}
    players.sort(key=lambda p: (p["rank"] if p["rank"] is not None else len(players) + 1, order[p["id"]]))
    details = {k: v for k, v in out.items() if k not in ("players", "rounds", "start_player")}
    play = bgstats_play(engine, doc, players, started, duration, tz_minutes)
    data = quote(json.dumps(play, ensure_ascii=False, separators=(",", ":")), safe="")
    res: GameResult = {
        "table": doc["id"], "game": doc["game"], "version": doc["version"],
        "started_at": _iso(started), "finished_at": _iso(finished), "duration_min": duration,
        "players": players, "rounds": out["rounds"], "details": details,
        "bgstats": BGSTATS_APP + data, "bgstats_web": BGSTATS_WEB + data,
    }
    tonight = evening.evening(engine, doc, log)
    if tonight is not None:
        res["evening"] = tonight
    return res


def bgstats_play(engine: Engine, doc: TableDoc, players: list[dict[str, Any]], started: float,
                 duration: int, tz_minutes: int) -> dict[str, Any]:
    """The play in BG Stats' import format (docs/results.md): the game by its
    title, and its BGG id where it has one (``Engine.bgg_id``)."""
    game: dict[str, Any] = {
        "name": engine.title["en"], "sourceGameId": engine.name, "highestWins": True, "noPoints": False,
    }
    if engine.bgg_id is not None:
        game["bggId"] = engine.bgg_id
    scored = any(p["score"] is not None for p in players)
    if not scored:
        game["noPoints"] = True  # Camel Up pyramid-only: the app kept no money
    start = doc["start"]
    return {
        "sourceName": SOURCE_NAME,
        # One play per game of this table: a second import of it is recognised.
        "sourcePlayId": f"{doc['id']}-{start.get('v', 0) if start else 0}",
        "playDate": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(started + tz_minutes * 60)),
        "durationMin": duration,
        "game": game,
        "players": [
            {
                "name": p["name"],
                # Names, not seat ids: p1 at one table is not p1 at the next, and
                # BG Stats remembers how each source player was matched.
                "sourcePlayerId": p["name"],
                **({"score": p["score"], "rank": p["rank"]} if scored else {}),
                "winner": p["winner"],
                "startPlayer": p["start_player"],
                "role": "",
            }
            for p in players
        ],
    }
