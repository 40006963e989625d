"""History parts for events: keys of ``web/games/camelup/strings.js``
(``camelup.history.*``, its colours ``camelup.colour.*``) and plain values,
which the phone words in its own language (``engines.history.Part``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.base import SEAT_EVENTS, Action, Event, describe_seat_event
from engines.history import Part, Value, part

#: The colours the web has a name for (``camelup.colour.<id>``); a label
#: outside them is shown as it is.
COLOURS = frozenset({"blue", "green", "yellow", "red", "purple", "orange", "pink", "white", "black", "grey"})


def _h(key: str, **params: Any) -> Part:
    return part(f"camelup.history.{key}", **params)


class _Words:
    def __init__(self, event: Event, names: Mapping[str, str]) -> None:
        self.names = names
        self.labels: Mapping[str, str] = event.get("colours") or {}

    def who(self, player: Any) -> str:
        return str(self.names.get(player, player)) if player is not None else "?"

    def camel(self, camel: Any) -> Part | str:
        label = str(self.labels.get(camel, camel))
        return part(f"camelup.colour.{label}") if label in COLOURS else label

    def camels(self, camels: Any) -> list[Part | str]:
        return [self.camel(c) for c in camels]


def _gain(delta: int) -> str:
    # A signed figure ("+3", "-1") reads the same in both languages.
    return f"{delta:+d}"


def _leg_bet(e: Event, w: _Words) -> list[Part]:
    return [_h("leg_bet", p=w.who(e["player"]), camel=w.camel(e["camel"]), value=e["value"])]


def _tile(e: Event, w: _Words) -> list[Part]:
    start = e.get("from")
    fields = {"p": w.who(e["player"]), "space": e["space"], "side": _h(f"side_{e['side']}")}
    return [_h("tile_moved", **fields, start=start) if start else _h("tile", **fields)]


def _die(e: Event, w: _Words) -> list[Part]:
    if e["die"] == "grey":
        face = _h("face_white" if e["color"] == "white" else "face_black", value=e["value"])
        return [_h("die_grey", p=w.who(e["player"]), face=face, camel=w.camel(e["camel"]))]
    return [_h("die", p=w.who(e["player"]), camel=w.camel(e["die"]), value=e["value"])]


def _moved(e: Event, w: _Words) -> list[Part]:
    tile = e.get("tile")
    parts: list[Part] = []
    if tile:
        parts.append(_h("move_tile", space=tile["space"], owner=w.who(tile["owner"]),
                        side=_h(f"side_{tile['side']}")))
    if e.get("wrapped"):
        parts.append(_h("move_wrapped"))
    if e["crossed"]:
        parts.append(_h("move_crossed"))
    else:
        parts.append(_h("move_at", to=e["to"], where=_h("move_top" if e["on_top"] else "move_under")))
    return [_h("move", unit=w.camels(e["unit"]), start=e["from"], parts=parts)]


def _finish(e: Event, w: _Words) -> list[Part]:
    return [_h("finish", p=w.who(e["player"]), pile=_h(f"pile_{e['pile']}"))]


def _partner(e: Event, w: _Words) -> list[Part]:
    return [_h("partner", p=w.who(e["player"]), other=w.who(e["with"]))]


def _copy(e: Event, w: _Words) -> list[Part]:
    choice = e["choice"]
    what = (_h(f"copy_{choice}") if choice in ("best", "none", "pyramid")
            else _h("copy_ticket", camel=w.camel(e.get("camel")), value=str(e.get("value"))))
    return [_h("copy", p=w.who(e["player"]), what=what)]


def _gains(e: Event, w: _Words) -> list[Part]:
    return [_h("gain", p=w.who(p), delta=_gain(g)) for p, g in e["gains"].items()]


def _leg_scored(e: Event, w: _Words) -> list[Part]:
    return [_h("leg_scored", leg=e["leg"], first=w.camel(e["ranking"][0]), second=w.camel(e["ranking"][1]),
               gains=_gains(e, w))]


def _leg_started(e: Event, w: _Words) -> list[Part]:
    if e.get("start_player"):
        return [_h("leg_started_by", leg=e["leg"], p=w.who(e["start_player"]))]
    return [_h("leg_started", leg=e["leg"])]


def _leg_ended(e: Event, w: _Words) -> list[Part]:
    return [_h("leg_ended", leg=e["leg"], first=w.camel(e["ranking"][0]), second=w.camel(e["ranking"][1]))]


def _race_ended(e: Event, w: _Words) -> list[Part]:
    return [_h("race_ended", winner=w.camel(e["winner_camel"]), loser=w.camel(e["loser_camel"]))]


def _pile(e: Event, w: _Words) -> list[Part]:
    pile = _h(f"pile_{e['pile']}")
    if not e["cards"]:
        out = [_h("pile_empty", pile=pile)]
    else:
        cards = [_h("pile_card", p=w.who(c["player"]), camel=w.camel(c["camel"]), delta=_gain(c["delta"]))
                 for c in e["cards"]]
        out = [_h("pile_shown", pile=pile, cards=cards)]
    void = [_h("pile_void_card", p=w.who(c["player"]), camel=w.camel(c["camel"])) for c in e.get("void", ())]
    return out + ([_h("pile_void", void=void)] if void else [])


def _game_over(e: Event, w: _Words) -> list[Part]:
    who = [w.who(p) for p in e["winners"]]
    money = [_h("money", p=w.who(p), money=m) for p, m in e["money"].items()]
    return [_h("game_over_shared" if len(who) > 1 else "game_over", who=who, money=money)]


def _paper_waiting(e: Event, w: _Words) -> list[Part]:
    return [_h("paper_waiting", winner=e["winner"], loser=e["loser"])]


def _stack_set(e: Event, w: _Words) -> list[Part]:
    camels: list[Part | str] | str = w.camels(e["camels"]) or "-"
    return [_h("stack_set", p=w.who(e["player"]), space=e["space"], camels=camels)]


_LINES: dict[str, Callable[[Event, _Words], list[Part]]] = {
    "leg_bet_taken": _leg_bet,
    "tile_placed": _tile,
    "die_rolled": _die,
    "camel_moved": _moved,
    "finish_card_placed": _finish,
    "paper_cards_waiting": _paper_waiting,
    "partnership_formed": _partner,
    "copy_chosen": _copy,
    "leg_scored": _leg_scored,
    "leg_started": _leg_started,
    "leg_ended": _leg_ended,
    "race_ended": _race_ended,
    "pile_revealed": _pile,
    "game_over": _game_over,
    "stack_set": _stack_set,
}


#: The history's lines: a leg's end, its scoring, the next leg's start and the
#: race's end each on a line of their own; a leg starts with ``leg_started``.
BREAKS = frozenset(
    {"leg_ended", "leg_scored", "leg_started", "race_ended", "pile_revealed", "game_over"}
)
OPENERS = {"leg_started": "leg"}


def describe(event: Event, names: Mapping[str, str]) -> list[Part]:
    """
    >>> describe({"type": "partnership_formed", "player": "p1", "with": "p2"}, {"p1": "Bo", "p2": "Sam"})
    [{'key': 'camelup.history.partner', 'params': {'p': 'Bo', 'other': 'Sam'}}]
    """
    if event.get("type") in SEAT_EVENTS:
        return describe_seat_event(event, names)
    line = _LINES.get(str(event.get("type")))
    if line is None:
        return [part("history.event", type=str(event.get("type")))]
    return line(event, _Words(event, names))


def sealed(action: Action, events: list[Event]) -> Value | None:
    """A face-down finish card's camel, in the table's colours (its events
    carry them, CU-17); a paper seat's card names none.

    >>> sealed({"type": "finish_bet", "pile": "winner", "camel": "blue"}, [])
    {'key': 'camelup.colour.blue', 'params': {}}
    >>> sealed({"type": "finish_bet", "pile": "winner", "camel": "blue"}, [{"colours": {"blue": "pink"}}])
    {'key': 'camelup.colour.pink', 'params': {}}
    """
    camel = action.get("camel")
    return None if camel is None else _Words(events[0] if events else {}, {}).camel(camel)
