"""Table options: schema, checks, a frozen copy, and the rules they parameterise.

Option names and defaults follow the spec's ambiguity table (UP-1 ... UP-18),
plus ``sheetMode`` (issue 5: phone or paper sheets), ``restrictionDeck`` (the
virtual deck of UP-2, editable), ``countIntervalMs`` (R22) and the two random
setup fields ``firstRestrictionCard`` / ``firstDangerCard`` (round 1's cards,
drawn by ``draw_setup``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.base import EngineError, int_list_schema, options_schema, refusal

ROUNDS = 4
SLOTS = 5
BASE_MAX = 50
BIG_TABLE = 8  # 8 or more players: the 8+ rules (R23-R26)
MIN_PLAYERS = 3
MAX_PLAYERS = 12

PHONE = "phone"
PAPER = "paper"
DECK = "deck"
MANUAL = "manual"

DEFAULT_DECK: list[list[int]] = [
    [1, 2, 3], [4, 5, 6], [7, 8, 9],
    [1, 4, 7], [2, 5, 8], [3, 6, 9],
    [1, 5, 9], [2, 6, 7], [3, 4, 8],
]
DEFAULT_BONUS: list[list[int]] = [[1] * SLOTS, [2] * SLOTS, [2] * SLOTS, [3] * SLOTS]
DEFAULT_DANGER: list[list[int]] = [[1, 10], [11, 20], [21, 30], [31, 40], [41, 50]]
DEFAULT_DIGITS: dict[str, int] = {"3": 4, "4": 3, "5": 2, "6": 1, "7": 1}

_CARD = int_list_schema(0, 9, 3, uniqueItems=True)
_RANGE = int_list_schema(1, 999, 2)

OPTIONS_SCHEMA: dict[str, Any] = options_schema(
    {
        "sheetMode": {
            "enum": [PHONE, PAPER],
            "default": PHONE,
            "description": "phone: every player enters 5 secret numbers on their phone and the "
            "app resolves the count. paper: players write on printed sheets, the app calls the "
            "count, the host taps who declared (declare) and each player enters their bonus.",
        },
        "bonus": {
            "type": "array",
            "items": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0, "maximum": 99},
                "minItems": SLOTS,
                "maxItems": SLOTS,
            },
            "minItems": ROUNDS,
            "maxItems": ROUNDS,
            "default": DEFAULT_BONUS,
            "description": "UP-1 (invented): bonus[round][slot] printed on the sheet, 4 rounds x "
            "5 slots (slot 1 holds the smallest number). Edit it to match a printed sheet.",
        },
        "restrictionSource": {
            "enum": [DECK, MANUAL],
            "default": DECK,
            "description": "UP-2: deck: the app draws a restriction card each round from "
            "restrictionDeck. manual: the host types the revealed physical card (restriction).",
        },
        "restrictionDeck": {
            "type": "array",
            "items": _CARD,
            "minItems": 1,
            "maxItems": 30,
            "default": DEFAULT_DECK,
            "description": "UP-2 (invented): the virtual deck, 3 printed digits per card. Drawn "
            "without replacement; reshuffled only if it runs out.",
        },
        "restrictedDigitsByPlayers": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                k: {"type": "integer", "minimum": 0, "maximum": 4} for k in DEFAULT_DIGITS
            },
            "default": DEFAULT_DIGITS,
            "description": "UP-3: restricted digits per player count (3-7). 1-3: the first "
            "printed digits of the card (the cover card hides the rest); 4: the card's 3 "
            "digits plus the cover card's 0; 0: no restriction. 8+ players: none (R24).",
        },
        "dangerZoneEnabled": {
            "type": "boolean",
            "default": False,
            "description": "UP-4: the optional danger-zone rule (R15).",
        },
        "dangerZones": {
            "type": "array",
            "items": _RANGE,
            "minItems": 1,
            "maxItems": 30,
            "default": DEFAULT_DANGER,
            "description": "UP-4 (invented): the danger-zone cards, [lo, hi] inclusive.",
        },
        "finalCountDeclarations": {
            "type": "boolean",
            "default": False,
            "description": "UP-12: true: on the count where a marker reaches 20, collisions "
            "are still marked X before the round ends.",
        },
        "collisionRule": {
            "enum": ["xBonus"],
            "default": "xBonus",
            "description": "UP-14: colliding players mark X and score the cell's bonus "
            "(Gemblo). The Showhouse rule is not implemented.",
        },
        "endAtMarker20": {
            "type": "boolean",
            "default": True,
            "description": "UP-16: the round also ends when a marker reaches 20. false: only "
            "at MAX (markers still stop at 20).",
        },
        "countIntervalMs": {
            "type": "integer",
            "minimum": 100,
            "maximum": 10000,
            "default": 800,
            "description": "R22 (invented): the caller's pace. UI only, no effect on scoring.",
        },
        "firstRestrictionCard": {
            "anyOf": [{"type": "null"}, _CARD],
            "default": None,
            "description": "Random outcome: round 1's restriction card (deck mode). Filled in "
            "by the server.",
        },
        "firstDangerCard": {
            "anyOf": [{"type": "null"}, _RANGE],
            "default": None,
            "description": "Random outcome: round 1's danger-zone card (deck mode, danger "
            "zones on). Filled in by the server.",
        },
    },
)

DEFAULTS: dict[str, Any] = {
    key: prop["default"] for key, prop in OPTIONS_SCHEMA["properties"].items()
}
RANDOM_OPTION_FIELDS = ("firstRestrictionCard", "firstDangerCard")


@dataclass(frozen=True)
class Options:
    """The options a game was started with, as an immutable value."""

    sheet_mode: str
    bonus: tuple[tuple[int, ...], ...]
    restriction_source: str
    restriction_deck: tuple[tuple[int, ...], ...]
    #: (player count, digit count) pairs for 3..7 players.
    restricted_digits: tuple[tuple[int, int], ...]
    danger_enabled: bool
    danger_zones: tuple[tuple[int, int], ...]
    final_count_declarations: bool
    collision_rule: str
    end_at_marker20: bool
    count_interval_ms: int

    def digits_for(self, players: int) -> int:
        """How many digits the restriction card bans at this player count."""
        return dict(self.restricted_digits).get(players, 0)


def _bad(message: str) -> EngineError:
    return refusal("bad_options", message)


def _card(value: Any, what: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 3
        or not all(type(d) is int and 0 <= d <= 9 for d in value)
        or len(set(value)) != 3
    ):
        raise _bad(f"{what} must be 3 different digits 0-9, not {value!r}.")
    return tuple(value)


def _range(value: Any, what: str) -> tuple[int, int]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(type(n) is int for n in value)
        or not 1 <= value[0] <= value[1]
    ):
        raise _bad(f"{what} must be [lo, hi] with 1 <= lo <= hi, not {value!r}.")
    return (value[0], value[1])


def normalize(options: dict[str, Any]) -> dict[str, Any]:
    """Fills defaults (also inside restrictedDigitsByPlayers) and checks what the
    schema cannot: ranges, card shapes, and fixed-random cards against the deck."""
    out = {**DEFAULTS, **options}
    unknown = set(out) - set(DEFAULTS)
    if unknown:
        raise _bad(f"Unknown option(s): {', '.join(sorted(unknown))}.")
    if out["sheetMode"] not in (PHONE, PAPER):
        raise _bad("sheetMode must be 'phone' or 'paper'.")
    if out["restrictionSource"] not in (DECK, MANUAL):
        raise _bad("restrictionSource must be 'deck' or 'manual'.")
    if out["collisionRule"] != "xBonus":
        raise _bad("collisionRule: only 'xBonus' (UP-14) is implemented.")
    bonus = out["bonus"]
    if (
        not isinstance(bonus, list | tuple)
        or len(bonus) != ROUNDS
        or not all(
            isinstance(row, list | tuple)
            and len(row) == SLOTS
            and all(type(v) is int and v >= 0 for v in row)
            for row in bonus
        )
    ):
        raise _bad("bonus must be 4 rows (rounds) of 5 non-negative integers (slots).")
    deck = out["restrictionDeck"]
    if not isinstance(deck, list | tuple) or not deck:
        raise _bad("restrictionDeck needs at least one card.")
    cards = [_card(c, "Each restrictionDeck card") for c in deck]
    zones = out["dangerZones"]
    if not isinstance(zones, list | tuple) or not zones:
        raise _bad("dangerZones needs at least one card.")
    ranges = [_range(z, "Each dangerZones card") for z in zones]
    digits = {**DEFAULT_DIGITS, **(out["restrictedDigitsByPlayers"] or {})}
    if set(digits) != set(DEFAULT_DIGITS) or not all(
        type(v) is int and 0 <= v <= 4 for v in digits.values()
    ):
        raise _bad("restrictedDigitsByPlayers maps '3'..'7' to 0-4.")
    out["restrictedDigitsByPlayers"] = digits
    for key in ("dangerZoneEnabled", "finalCountDeclarations", "endAtMarker20"):
        if type(out[key]) is not bool:
            raise _bad(f"{key} must be true or false.")
    if type(out["countIntervalMs"]) is not int or out["countIntervalMs"] < 1:
        raise _bad("countIntervalMs must be a positive integer.")
    first = out["firstRestrictionCard"]
    if first is not None:
        if out["restrictionSource"] == MANUAL:
            raise _bad("firstRestrictionCard is drawn only with restrictionSource=deck.")
        if _card(first, "firstRestrictionCard") not in cards:
            raise _bad(f"firstRestrictionCard {first} is not in restrictionDeck.")
    first_zone = out["firstDangerCard"]
    if first_zone is not None:
        if out["restrictionSource"] == MANUAL or not out["dangerZoneEnabled"]:
            raise _bad("firstDangerCard is drawn only in deck mode with danger zones on.")
        if _range(first_zone, "firstDangerCard") not in ranges:
            raise _bad(f"firstDangerCard {first_zone} is not in dangerZones.")
    return out


def freeze(options: dict[str, Any]) -> Options:
    """The frozen copy of normalized options."""
    o = normalize(options)
    return Options(
        sheet_mode=o["sheetMode"],
        bonus=tuple(tuple(row) for row in o["bonus"]),
        restriction_source=o["restrictionSource"],
        restriction_deck=tuple(tuple(card) for card in o["restrictionDeck"]),
        restricted_digits=tuple(
            sorted((int(k), v) for k, v in o["restrictedDigitsByPlayers"].items())
        ),
        danger_enabled=o["dangerZoneEnabled"],
        danger_zones=tuple((z[0], z[1]) for z in o["dangerZones"]),
        final_count_declarations=o["finalCountDeclarations"],
        collision_rule=o["collisionRule"],
        end_at_marker20=o["endAtMarker20"],
        count_interval_ms=o["countIntervalMs"],
    )


def max_count(players: int) -> int:
    """MAX, the last number called (R9, R25).

    >>> [max_count(n) for n in (3, 7, 8, 9, 11)]
    [50, 50, 55, 60, 70]
    """
    return BASE_MAX + 5 * max(0, players - 7)


def restricted_set(card: tuple[int, ...] | None, count: int) -> frozenset[int]:
    """D from the card's printed digits (UP-3): the first ``count`` digits, or all
    three plus the cover card's 0 when ``count`` is 4.

    >>> sorted(restricted_set((2, 5, 7), 4)), sorted(restricted_set((2, 5, 7), 2))
    ([0, 2, 5, 7], [2, 5])
    >>> restricted_set(None, 3)
    frozenset()
    """
    if card is None or count <= 0:
        return frozenset()
    if count >= 4:
        return frozenset(card) | {0}
    return frozenset(card[:count])


def needs_restriction(options: Options, players: int) -> bool:
    """Whether a round reveals a restriction card (R3, R24)."""
    return players < BIG_TABLE and options.digits_for(players) > 0
