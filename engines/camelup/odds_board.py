"""Input checking and the compact position the odds solvers share.

The solvers never see colour names: camel ``j`` is column ``j`` of
``CAMELS`` (the five racing camels, then white and black), die ``j < 5``
moves racing camel ``j`` and die 5 is the grey die. A camel's place is one
small integer, ``space * 8 + height`` (height 0 = bottom), so "above camel
``c`` on its space" is just "same ``>> 3`` and a larger number"; progress 0
and 17 (a crossed unit, R30) fit the same scheme.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import factorial
from typing import Any

from engines.camelup.constants import CAMELS, DICE, RACING, SPACES
from engines.camelup.constants import TICKET_STACK as FULL_STACK

GREY_DIE = 5
WHITE, BLACK = 5, 6
CHEER, BOO = 1, 2
SIDE_NAMES: dict[str, int] = {"cheer": CHEER, "boo": BOO}
#: A side's word again, as the board and the what-ifs name it.
SIDE_WORDS: dict[int, str] = {side: word for word, side in SIDE_NAMES.items()}
#: Height slots per space; 7 camels never need more than 0..6.
SLOT = 8
FORWARD_PROGRESS = SPACES + 1


@dataclass(frozen=True)
class Position:
    """A checked board in solver form."""

    #: ``space * 8 + height`` per camel column.
    places: tuple[int, ...]
    #: Dice still in the pyramid, as die indices, sorted.
    dice: tuple[int, ...]
    #: space -> (CHEER | BOO, owner)
    tiles: Mapping[int, tuple[int, str]]
    #: CU-1, ``crazyLoneCrossingEndsGame``.
    lone_crossing_ends: bool = True

    @property
    def rolls(self) -> int:
        """Dice still to be rolled this leg: all but one (R27, CU-9)."""
        return len(self.dice) - 1

    @property
    def denominator(self) -> int:
        """Equally likely leg outcomes, counting every die as 6 faces.

        >>> Position((0,) * 7, tuple(range(6)), {}).denominator
        5598720
        """
        n = len(self.dice)
        # int ** int is typed as Any (a negative exponent gives a float); n >= 1 here.
        return factorial(n) * int(6 ** (n - 1))

    def multiplier(self, rolled: int) -> int:
        """Leg outcomes that share a path ending the race after ``rolled`` dice.

        >>> Position((0,) * 7, tuple(range(6)), {}).multiplier(5)
        1
        """
        left = len(self.dice) - rolled
        # rolled <= rolls = len(dice) - 1, so left >= 1 and the power is whole.
        return factorial(left) * int(6 ** (left - 1))

    def stacks(self) -> dict[int, list[int]]:
        """space -> camel columns bottom->top."""
        out: dict[int, list[int]] = {}
        for camel in sorted(range(len(CAMELS)), key=lambda c: self.places[c]):
            out.setdefault(self.places[camel] // SLOT, []).append(camel)
        return out


def _space(key: Any) -> int:
    try:
        space = int(key)
    except (TypeError, ValueError):
        raise ValueError(f"space {key!r} is not a number") from None
    if not 1 <= space <= SPACES:
        raise ValueError(f"space {space} is off the track (1-{SPACES})")
    return space


def parse_board(board: Mapping[str, Any], lone_crossing_ends: bool = True) -> Position:
    """Checks ``board`` (see ``engines.camelup.odds``) and packs it.

    >>> p = parse_board({"track": {"1": ["blue", "green"], 2: ["red", "yellow"],
    ...     3: ["purple"], 14: ["black"], 15: ["white"]}, "pyramid": list(DICE)})
    >>> p.places[:2], p.dice
    ((8, 9), (0, 1, 2, 3, 4, 5))
    """
    places: dict[str, int] = {}
    for key, stack in dict(board.get("track") or {}).items():
        space = _space(key)
        for height, camel in enumerate(stack or ()):
            if camel not in CAMELS:
                raise ValueError(f"unknown camel {camel!r} on space {space}")
            if camel in places:
                raise ValueError(f"camel {camel} stands on the track twice")
            places[camel] = space * SLOT + height
    missing = [c for c in CAMELS if c not in places]
    if missing:
        raise ValueError(f"camels missing from the track: {', '.join(missing)}")
    pyramid = list(board.get("pyramid") or ())
    for die in pyramid:
        if die not in DICE:
            raise ValueError(f"unknown die {die!r} in the pyramid")
    if len(set(pyramid)) != len(pyramid):
        raise ValueError("a die is listed twice in the pyramid")
    if not pyramid:
        raise ValueError("the pyramid is empty: a leg always leaves one die inside")
    tiles: dict[int, tuple[int, str]] = {}
    for key, tile in dict(board.get("tiles") or {}).items():
        space = _space(key)
        owner, side = tile
        if side not in SIDE_NAMES:
            raise ValueError(f"tile side {side!r} on space {space} is not cheer or boo")
        tiles[space] = (SIDE_NAMES[side], str(owner))
    return Position(
        places=tuple(places[c] for c in CAMELS),
        dice=tuple(sorted(DICE.index(d) for d in pyramid)),
        tiles=tiles,
        lone_crossing_ends=lone_crossing_ends,
    )


def ticket_tops(board: Mapping[str, Any]) -> dict[str, int]:
    """The value on top of each non-empty betting-ticket stack (R3, A1);
    all stacks full when the board gives none.

    >>> ticket_tops({"tickets": {"red": [2], "blue": []}})["red"], "blue" in ticket_tops({"tickets": {"blue": []}})
    (2, False)
    """
    given = board.get("tickets")
    out: dict[str, int] = {}
    for colour in RACING:
        stack = FULL_STACK if given is None else tuple(given.get(colour, FULL_STACK))
        if stack:
            out[colour] = int(stack[0])
    return out


def by_colour(table: Any) -> dict[str, tuple[int, ...]]:
    """A solver's table of counts by camel index and place, keyed by colour."""
    return {c: tuple(int(round(x)) for x in table[i]) for i, c in enumerate(RACING)}


def from_rankings(rankings: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
    """``by_colour`` of ``odds_py``'s counts by ranking (a string of camel indexes)."""
    table = [[0] * len(RACING) for _ in RACING]
    for key, count in rankings.items():
        for place, camel in enumerate(key):
            table[int(camel)][place] += count
    return by_colour(table)


def position(board: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Position:
    """Checks ``board`` and packs it for the solvers; raises ValueError."""
    lone = bool((options or {}).get("crazyLoneCrossingEndsGame", True))
    return parse_board(board, lone_crossing_ends=lone)
