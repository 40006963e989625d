"""History parts for events: keys of ``web/games/kingup/strings.js``
(``kingup.history.*``, its level names ``kingup.level.*``) and plain values,
which the phone words in its own language (``engines.history.Part``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import SEAT_EVENTS, Action, Event, describe_seat_event
from engines.history import Part, Value, part

Names = dict[str, str]


def _h(key: str, **params: Any) -> Part:
    return part(f"kingup.history.{key}", **params)


def _level(level: int | str) -> Part:
    if level == "throne" or level == 6:
        return _h("throne")
    return _h("level", level=int(level), name=part(f"kingup.level.{int(level)}"))


def _who(names: Names, players: list[str]) -> list[str] | Part:
    return [names.get(p, p) for p in players] or _h("nobody")


def _scores(names: Names, scores: dict[str, int]) -> list[Part]:
    return [_h("score", p=names.get(p, p), score=s) for p, s in scores.items()]


def _placed(e: Event, names: Names) -> list[Part]:
    return [_h("placed", p=names.get(e["player"], e["player"]), char=e["char"], where=_level(e["level"]))]


def _placement_done(e: Event, names: Names) -> list[Part]:
    return [_h("placement_done", spare=list(e["leftovers"]), next=names.get(e["next"], e["next"]))]


def _moved(e: Event, names: Names) -> list[Part]:
    # Korean's particle follows 층, not the level's name in brackets after
    # it: the throne, which has no 층, has a line of its own.
    key = "moved_throne" if e["to"] in ("throne", 6) else "moved"
    return [_h(key, p=names.get(e["player"], e["player"]), char=e["char"], start=e["from"], to=_level(e["to"]))]


def _nominated(e: Event, names: Names) -> list[Part]:
    return [_h("nominated", p=names.get(e["player"], e["player"]), char=e["char"])]


def _votes_revealed(e: Event, names: Names) -> list[Part]:
    if e["result"] == "crowned":
        return [_h("crowned", char=e["candidate"])]
    no = _who(names, [p for p, v in e["votes"].items() if v == "no"])
    return [_h("eliminated", char=e["candidate"], no=no, next=names.get(e["next"], e["next"]))]


def _seat_line(e: Event, names: Names) -> list[Part]:
    """Lines that name only the acting seat (``p``), with the event's own fields."""
    fields = {k: v for k, v in e.items() if k in ("count", "of", "round")}
    return [_h(e["type"], p=names.get(e["player"], e["player"]), **fields)]


def _seat_skipped(e: Event, names: Names) -> list[Part]:
    return [_h("seat_skipped", p=names.get(e["seat"], e["seat"]), count=e["count"], of=e["of"])]


def _votes_opening(e: Event, names: Names) -> list[Part]:
    return [_h("votes_opening", who=_who(names, e["players"]))]


def _vote_withdrawn(e: Event, names: Names) -> list[Part]:
    return [_h("vote_withdrawn", p=names.get(e["seat"], e["seat"]))]


def _round_scored(e: Event, names: Names) -> list[Part]:
    line = _h("round_scored", round=e["round"], king=e["king"], scores=_scores(names, e["scores"]))
    return [line] + ([_h("rule33", who=_who(names, e["rule33"]))] if e["rule33"] else [])


def _game_over(e: Event, names: Names) -> list[Part]:
    best = max(e["totals"].values(), default=0)
    line = _h("game_over", title=_h("shared" if e["shared"] else "alone"), who=_who(names, e["winners"]), best=best)
    tb = e.get("tie_break")
    if not tb:
        return [line]
    return [line, _h("tie_survivors" if tb["rule"] == "survivors" else "tie_shared")]


def _round_started(e: Event, names: Names) -> list[Part]:
    start = e.get("start")
    line = _h("round_started", round=e["round"])
    return [line] + ([_h("round_starter", p=names.get(start, start))] if start else [])


_TEXT: dict[str, Callable[[Event, Names], list[Part]]] = {
    "placed": _placed,
    "placement_done": _placement_done,
    "moved": _moved,
    "nominated": _nominated,
    "vote_cast": _seat_line,
    "seat_skipped": _seat_skipped,
    "vote_opened": _seat_line,
    "votes_opening": _votes_opening,
    "vote_withdrawn": _vote_withdrawn,
    "votes_revealed": _votes_revealed,
    "goal_recorded": _seat_line,
    "goal_drawn": _seat_line,
    "board_entered": _seat_line,
    "round_scored": _round_scored,
    "game_over": _game_over,
    "round_started": _round_started,
}

EVENT_TYPES: tuple[str, ...] = tuple(_TEXT)
#: The history's lines: the end of placement, a vote's outcome, a round's
#: scores, the game's end and the next round each on a line of their own.
BREAKS = frozenset(
    {"placement_done", "votes_revealed", "round_scored", "game_over", "round_started"}
)
OPENERS = {"round_started": "round"}


def describe(event: Event, names: Names) -> list[Part]:
    """
    >>> describe({"type": "placed", "player": "p1", "char": "M", "level": 3}, {"p1": "Sam"})[0]["params"]["where"]
    {'key': 'kingup.history.level', 'params': {'level': 3, 'name': {'key': 'kingup.level.3', 'params': {}}}}
    """
    if event["type"] in SEAT_EVENTS:
        return describe_seat_event(event, names)
    return _TEXT[event["type"]](event, names)


def sealed(action: Action, events: list[Event]) -> Value | None:
    """A vote as its card says it (``kingup.vote.*``, the vote screen's words).

    >>> sealed({"type": "vote", "vote": "no"}, [])
    {'key': 'kingup.vote.no', 'params': {}}
    """
    vote = action.get("vote")
    return part(f"kingup.vote.{vote}") if vote in ("yes", "no") else None
