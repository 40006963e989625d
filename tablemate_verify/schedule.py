"""Each game's draw schedule (docs/fairness.md, "The draw schedule"): which
draws an outcome makes, and their public inputs, from the game's rules, its
start (players, options) and the results drawn before it. Nothing here is
taken from the proof's own ``items``: a server that reorders them, pads an
outcome with a draw or moves an outcome to another index is caught by
comparing the proof with what these rules give.

A schedule is a function ``(start, name, index, results, before) -> draws``:

- ``start``: the game's start record (``players``, ``options``) from the proof;
- ``name``: the scope's name less its table and game (``leg/2``, ``setup``);
- ``index``: the outcome's index in its scope;
- ``results``: this outcome's results as the proof gives them, in order (a
  draw may depend on an earlier one of the same outcome: the grey die's
  colour is drawn only when the grey die came out);
- ``before``: the results of the game's earlier outcomes (``Earlier``).

It returns the draws with their public inputs (no results), or raises
``ScheduleError`` for an outcome the rules cannot have drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: Camel Up, 2nd edition (engines/camelup/constants.py).
CU_RACING = ["blue", "green", "yellow", "red", "purple"]
CU_CRAZY = ["white", "black"]
CU_DICE = [*CU_RACING, "grey"]
CU_FACES = [1, 2, 3]
CU_ROLLS_PER_LEG = 5
#: King Up's virtual goal deck: cards 0..25 (engines/kingup/constants.py).
KU_DECK = 26
#: Count Up: from 8 players no restriction card (R23-R26).
CO_BIG_TABLE = 8


class ScheduleError(ValueError):
    """An outcome the game's rules cannot have drawn (at that index, or at all)."""


@dataclass(frozen=True)
class Earlier:
    """What the game drew before: per scope name (``.k`` scopes merged into
    theirs), index → the results of that outcome's draws."""

    by_scope: dict[str, dict[int, list[Any]]]

    def of(self, name: str) -> dict[int, list[Any]]:
        return self.by_scope.get(name, {})


Planned = list[dict[str, Any]]
Schedule = Callable[[dict[str, Any], str, int, Sequence[Any], Earlier], Planned]


def choice(items: Sequence[Any]) -> dict[str, Any]:
    return {"op": "choice", "items": list(items)}


def _at(results: Sequence[Any], i: int) -> Any:
    return results[i] if i < len(results) else None


def _contiguous(index: int, drawn: dict[int, list[Any]], what: str) -> None:
    """Outcome ``index`` comes after outcomes 0..index-1, all of them drawn:
    a roll moved to another index has a gap before it."""
    missing = [i for i in range(index) if i not in drawn]
    if missing:
        raise ScheduleError(f"{what} {index} has no {what} {missing[0]} before it")


# --- Camel Up ---------------------------------------------------------------


def camelup(start: dict[str, Any], name: str, index: int, results: Sequence[Any],
            before: Earlier) -> Planned:
    if name == "setup":
        return _camelup_setup(start, index)
    kind, _, n = name.partition("/")
    if kind != "leg" or not n.isdigit() or int(n) < 1:
        raise ScheduleError(f"Camel Up draws nothing in a scope {name!r}")
    if not 0 <= index < CU_ROLLS_PER_LEG:
        raise ScheduleError(f"a leg has rolls 0 to {CU_ROLLS_PER_LEG - 1}, not {index}")
    rolls = before.of(name)
    _contiguous(index, rolls, "roll")
    out_ = [rolls[i][0] for i in range(index)]
    # The pyramid's dice left, in the game's order (CU_DICE): the index is
    # the number of dice already out this leg.
    plan = [choice([d for d in CU_DICE if d not in out_])]
    if _at(results, 0) == "grey":
        plan.append(choice(CU_CRAZY))
    plan.append(choice(CU_FACES))
    return plan


def _camelup_setup(start: dict[str, Any], index: int) -> Planned:
    if index != 0:
        raise ScheduleError(f"the setup is outcome 0, not {index}")
    options = start.get("options") or {}
    # R6: each racing camel's die, in the game's order; CU-16: the order they
    # are stacked in; R7: the grey die twice, colour then value each time.
    plan = [choice(CU_FACES) for _ in CU_RACING]
    if options.get("setupStackOrder") == "random":
        plan.append({"op": "shuffle", "items": list(CU_RACING)})
    plan += [choice(CU_CRAZY), choice(CU_FACES), choice(CU_CRAZY), choice(CU_FACES)]
    return plan


# --- King Up ----------------------------------------------------------------


def kingup(start: dict[str, Any], name: str, index: int, results: Sequence[Any],
           before: Earlier) -> Planned:
    parts = name.split("/")
    if len(parts) != 3 or parts[0] != "round" or parts[2] != "goals" or not parts[1].isdigit():
        raise ScheduleError(f"King Up draws nothing in a scope {name!r}")
    # The index counts the cards dealt this game, every round's: one deck.
    dealt: dict[int, list[Any]] = {}
    for scope, outcomes in before.by_scope.items():
        if scope.endswith("/goals"):
            dealt.update(outcomes)
    if not 0 <= index < KU_DECK:
        raise ScheduleError(f"the deck has {KU_DECK} cards, so no card {index}")
    _contiguous(index, dealt, "card")
    used = {dealt[i][0] for i in range(index)}
    return [choice([k for k in range(KU_DECK) if k not in used])]


# --- Count Up ---------------------------------------------------------------


def _remaining(deck: Sequence[Any], used: Sequence[Any]) -> list[Any]:
    """The cards still face down; a spent deck is reshuffled whole (flow.remaining)."""
    left = [list(c) for i, c in enumerate(deck) if i not in used]
    return left or [list(c) for c in deck]


def _take(deck: Sequence[Any], used: list[int], card: Any) -> list[int]:
    left = [i for i in range(len(deck)) if i not in used] or list(range(len(deck)))
    if len(left) == len(deck):
        used = []
    for i in left:
        if list(deck[i]) == card:
            return [*used, i]
    raise ScheduleError(f"the card {card!r} was not left in its deck")


def countup(start: dict[str, Any], name: str, index: int, results: Sequence[Any],
            before: Earlier) -> Planned:
    options = start.get("options") or {}
    players = start.get("players")
    n = players if isinstance(players, int) else len(players or [])
    digits = (options.get("restrictedDigitsByPlayers") or {}).get(str(n), 0)
    restriction = n < CO_BIG_TABLE and digits > 0
    danger = bool(options.get("dangerZoneEnabled"))
    r_deck, d_deck = options.get("restrictionDeck") or [], options.get("dangerZones") or []
    r_used: list[int]
    d_used: list[int]
    if index != 0:
        raise ScheduleError(f"a round's cards are outcome 0, not {index}")
    if name == "setup":
        # Round 1's cards from the full decks (a card the lobby gave makes
        # the whole setup a fixed outcome, which no check passes).
        r_used, d_used = [], []
    else:
        r_used, d_used = _used(name, options, restriction, danger, before)
    plan = []
    if restriction:
        plan.append(choice(_remaining(r_deck, r_used)))
    if danger:
        plan.append(choice(_remaining(d_deck, d_used)))
    return plan


def _used(name: str, options: dict[str, Any], restriction: bool, danger: bool,
          before: Earlier) -> tuple[list[int], list[int]]:
    """The deck positions spent before round ``name`` opens (flow.take)."""
    r_deck, d_deck = options.get("restrictionDeck") or [], options.get("dangerZones") or []
    kind, _, r = name.partition("/")
    if kind != "round" or not r.isdigit() or int(r) < 2:
        raise ScheduleError(f"Count Up draws nothing in a scope {name!r}")
    r_used: list[int] = []
    d_used: list[int] = []
    # Every round before this one, from the first (its cards are in the start's options).
    shown = [(options.get("firstRestrictionCard"), options.get("firstDangerCard"))]
    for k in range(2, int(r)):
        drawn = before.of(f"round/{k}").get(0)
        if drawn is None:
            raise ScheduleError(f"round {r}'s cards, but round {k}'s are not in the proof")
        shown.append((drawn[0] if restriction else None, drawn[-1] if danger else None))
    for card, zone in shown:
        if restriction:
            r_used = _take(r_deck, r_used, card)
        if danger:
            d_used = _take(d_deck, d_used, zone)
    return r_used, d_used


SCHEDULES: dict[str, Schedule] = {"camelup": camelup, "kingup": kingup, "countup": countup}
