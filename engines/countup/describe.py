"""History parts for the public events: keys of ``web/games/countup/strings.js``
(``countup.history.*``) and plain values, which the phone words in its own
language (``engines.history.Part``)."""

from __future__ import annotations

from typing import Any

from engines.base import SEAT_EVENTS, Action, Event, describe_seat_event
from engines.history import HistoryText, Part, Value, cut, part

_REASONS = frozenset({"two_stars", "total", "tie_break", "shared"})


def _h(key: str, **params: Any) -> Part:
    return part(f"countup.history.{key}", **params)


def _declaration(ev: Event, name: Any) -> Part | None:
    """The part of a call that speaks of hands raised on it."""
    who = [name(p) for p in ev.get("declared") or ev.get("players") or []]
    if not who:
        return None
    if len(who) == 1:
        return _h("declares", p=who[0])
    return _h("collide_void" if ev.get("voided") else "collide", who={"and": who})


def describe(event: Event, names: dict[str, str]) -> list[Part]:
    """
    >>> describe({"type": "caller_set", "seat": None}, {})
    [{'key': 'countup.history.caller_host', 'params': {}}]
    """
    if event.get("type") in SEAT_EVENTS:
        return describe_seat_event(event, names)

    def name(p: Any) -> Part | str:
        return names.get(p, str(p)) if p is not None else _h("host")

    kind = event.get("type")
    r = event.get("round")
    if kind == "restriction_revealed":
        return [_h("restriction", digits=" ".join(map(str, event["digits"])),
                   banned=[str(d) for d in event["restricted"]])]
    if kind == "danger_revealed":
        lo, hi = event["range"]
        return [_h("danger", lo=lo, hi=hi)]
    if kind == "sheet_locked":
        return [_h("sheet_locked", p=name(event["player"]))]
    if kind == "seat_skipped":
        return [_h("seat_skipped", p=name(event["seat"]), round=r)]
    if kind == "count_ready":
        return [_h("count_ready")]
    if kind in ("called", "declared"):
        # A quiet number is just the number, as it was called aloud.
        said = _declaration(event, name)
        return [_h("call_said", number=event["number"], said=said) if said else _h("call", number=event["number"])]
    if kind == "round_ended":
        key = "round_ended_marker" if event.get("end") == "marker20" else "round_ended"
        return [_h(key, round=r, number=event["number"])]
    if kind == "bonus_entered":
        return [_h("bonus", p=name(event["player"]), points=event["points"])]
    if kind == "round_scored":
        scores = [_h("score", p=name(p), score=s) for p, s in event["scores"].items()]
        stars = [name(p) for p in event["stars"]]
        return [_h("round_scored", round=r, scores=scores)] + ([_h("stars", who={"and": stars})] if stars else [])
    if kind == "game_over":
        reason = event["reason"]
        why = _h(f"reason_{reason}") if reason in _REASONS else str(reason)
        return [_h("game_over", who={"and": [name(p) for p in event["winners"]]}, why=why)]
    if kind == "caller_set":
        return [_h("caller_host") if event["seat"] is None else _h("caller", p=name(event["seat"]))]
    if kind == "round_started":
        return [_h("round_started", round=r)]
    return [part("history.event", type=str(kind))]


#: The history's lines: every call, the count's end, the scores, the cards and
#: the next round each on a line of their own.
_CALLS = frozenset({"called", "declared"})
BREAKS = _CALLS | {
    "restriction_revealed", "danger_revealed", "count_ready", "round_ended", "bonus_entered",
    "round_scored", "game_over", "caller_set", "round_started",
}
OPENERS = {"round_started": "round"}


def history_lines(events: list[Event], names: dict[str, str]) -> list[HistoryText]:
    """A call's line carries its number; a number on which nobody declared is
    ``quiet`` (the server folds a stretch of them; the count's end, if it ends
    there, has a line of its own).

    >>> [(x.parts, x.count, x.quiet) for x in history_lines(
    ...     [{"type": "called", "round": 1, "number": 12, "declared": [], "end": None}], {})]
    [([{'key': 'countup.history.call', 'params': {'number': 12}}], 12, True)]
    """
    out = []
    for rnd, piece in cut(events, BREAKS, OPENERS):
        parts = [p for ev in piece for p in describe(ev, names)]
        first = piece[0]
        if first.get("type") in _CALLS:
            quiet = first["type"] == "called" and not first.get("declared") and len(piece) == 1
            out.append(HistoryText(parts, rnd, int(first["number"]), quiet))
        else:
            out.append(HistoryText(parts, rnd))
    return out


def stretch(first: int, last: int, by: str, then: bool) -> Part:
    """Numbers counted aloud with nothing happening on them, as one line;
    ``then``: the call that ends the stretch follows it.

    >>> stretch(12, 17, "Sam", False)
    {'key': 'countup.history.stretch', 'params': {'span': '12–17', 'by': 'Sam'}}
    """
    span = f"{first}–{last}" if last > first else str(first)
    return _h("stretch_then" if then else "stretch", span=span, by=by)


def sealed(action: Action, events: list[Event]) -> Value | None:
    """A locked sheet's numbers: numbers read the same in every language.

    >>> sealed({"type": "numbers", "numbers": [3, 9, 14]}, [])
    [3, 9, 14]
    """
    numbers = action.get("numbers")
    return [int(n) for n in numbers] if numbers else None
