"""Table options (spec section 4, ambiguity table) and their parsed, frozen form."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from engines.base import EngineError, options_schema, refusal
from engines.kingup.constants import CHARACTERS, DECK_SIZE, MAX_PLAYERS, MIN_PLAYERS, NO_CARDS

RECORD = "record"
DEAL = "deal"
FULL = "full"
SCORE_ONLY = "score_only"
SURVIVORS = "survivors"
NO_TIE_BREAK = "none"
LAST = "last"

_NAME = {"type": "string", "minLength": 1, "maxLength": 24}

OPTIONS_SCHEMA: dict[str, Any] = options_schema(
    {
        "playMode": {
            "description": "full: placement, moves and votes through the app; score_only: "
            "enter the final board of each round for the sums.",
            "enum": [FULL, SCORE_ONLY],
            "default": FULL,
        },
        "goalCardMode": {
            "description": "KU-3. record: each player taps the 6 characters of the printed card "
            "they drew; deal: each player draws from the app's virtual (non-printed) deck.",
            "enum": [RECORD, DEAL],
            "default": RECORD,
        },
        "rounds": {
            "description": "KU-1. Number of rounds.",
            "type": "integer",
            "minimum": 1,
            "maximum": 10,
            "default": 3,
        },
        "noCardsPerPlayer": {
            "description": "KU-2 / R3. No cards each, by player count. Capped so that fewer "
            "than 13 characters can be eliminated and every round ends with a King (R18).",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                str(n): {"type": "integer", "minimum": 0, "maximum": NO_CARDS[n]}
                for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
            },
            "default": {str(n): k for n, k in NO_CARDS.items()},
        },
        "tieBreak": {
            "description": "KU-5 / R24. survivors: among tied players, most last-round goal "
            "characters still on the board wins, then a shared victory; none: shared victory.",
            "enum": [SURVIVORS, NO_TIE_BREAK],
            "default": SURVIVORS,
        },
        "tieBreakCountsLevel0": {
            "description": "KU-6. Whether characters on level 0 count as on the board in the "
            "tie-break (the throne always counts, eliminated never).",
            "type": "boolean",
            "default": True,
        },
        "zeroTo33Round": {
            "description": "KU-7 / KU-14 / R20. The round in which a score of 0 becomes 33: "
            "'last' or a round number.",
            "oneOf": [{"const": LAST}, {"type": "integer", "minimum": 1, "maximum": 10}],
            "default": LAST,
        },
        "first_seat": {
            "description": "KU-8. 1-based seat number, in the final seat order, of the player "
            "who starts round 1.",
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_PLAYERS,
            "default": 1,
        },
        "characterNames": {
            "description": "KU-15. Display names of the characters A-M, per language; "
            "the letter when not given.",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                c: {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"ko": _NAME, "en": _NAME},
                }
                for c in CHARACTERS
            },
            "default": {},
        },
    },
    dialect="https://json-schema.org/draft/2020-12/schema",
)

DEFAULTS: dict[str, Any] = {k: v["default"] for k, v in OPTIONS_SCHEMA["properties"].items()}


@dataclass(frozen=True)
class Config:
    """The options one table plays with, resolved and immutable."""

    play_mode: str = FULL
    goal_mode: str = RECORD
    rounds: int = 3
    #: No cards each for 3, 4, 5 and 6 players.
    no_cards: tuple[int, int, int, int] = (4, 3, 2, 2)
    tie_break: str = SURVIVORS
    tie_level0: bool = True
    #: The round of the 0 -> 33 rule, resolved from ``"last"``.
    zero33_round: int = 3
    first_seat: int = 1
    #: (ko, en) display name of each character, in CHARACTERS order.
    names: tuple[tuple[str, str], ...] = tuple((c, c) for c in CHARACTERS)

    def no_cards_for(self, players: int) -> int:
        return self.no_cards[players - MIN_PLAYERS]

    def max_players(self) -> int:
        # KU-13: dealt without replacement, so the deck must last the game.
        if self.goal_mode == DEAL:
            return min(MAX_PLAYERS, DECK_SIZE // self.rounds)
        return MAX_PLAYERS


def _bad(message: str) -> EngineError:
    return refusal("bad_options", message)


def _enum(options: dict[str, Any], key: str) -> str:
    value = options.get(key, DEFAULTS[key])
    allowed = OPTIONS_SCHEMA["properties"][key]["enum"]
    if value not in allowed:
        raise _bad(f"{key} must be one of {', '.join(allowed)}, not {value!r}.")
    return str(value)


def _int(value: Any, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(f"{key} must be a whole number from {low} to {high}, not {value!r}.")
    return value


def parse(options: dict[str, Any]) -> Config:
    """Checks ``options`` (missing keys take their defaults) and resolves them.

    >>> parse({}).zero33_round, parse({"rounds": 4}).zero33_round
    (3, 4)
    >>> parse({"noCardsPerPlayer": {"4": 2}}).no_cards
    (4, 2, 2, 2)
    """
    if not isinstance(options, dict):
        raise _bad("Options must be an object.")
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise _bad(f"Unknown option {unknown[0]!r}.")
    rounds = _int(options.get("rounds", 3), "rounds", 1, 10)
    goal_mode = _enum(options, "goalCardMode")
    if goal_mode == DEAL and rounds * MIN_PLAYERS > DECK_SIZE:
        raise _bad(
            f"The virtual deck has {DECK_SIZE} cards, too few for {rounds} rounds "
            f"of {MIN_PLAYERS} players; play at most {DECK_SIZE // MIN_PLAYERS} rounds."
        )
    no_cards_raw = options.get("noCardsPerPlayer", {})
    if not isinstance(no_cards_raw, dict) or set(no_cards_raw) - {"3", "4", "5", "6"}:
        raise _bad("noCardsPerPlayer maps the player counts '3'..'6' to a number of No cards.")
    no_cards = tuple(
        _int(no_cards_raw.get(str(n), k), f"noCardsPerPlayer[{n}]", 0, k)
        for n, k in NO_CARDS.items()
    )
    zero33 = options.get("zeroTo33Round", LAST)
    zero33_round = rounds if zero33 == LAST else _int(zero33, "zeroTo33Round", 1, rounds)
    tie_level0 = options.get("tieBreakCountsLevel0", True)
    if not isinstance(tie_level0, bool):
        raise _bad("tieBreakCountsLevel0 must be true or false.")
    return Config(
        play_mode=_enum(options, "playMode"),
        goal_mode=goal_mode,
        rounds=rounds,
        no_cards=(no_cards[0], no_cards[1], no_cards[2], no_cards[3]),
        tie_break=_enum(options, "tieBreak"),
        tie_level0=tie_level0,
        zero33_round=zero33_round,
        first_seat=_int(options.get("first_seat", 1), "first_seat", 1, MAX_PLAYERS),
        names=_names(options.get("characterNames", {})),
    )


def _names(raw: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, dict) or set(raw) - set(CHARACTERS):
        raise _bad("characterNames maps the letters A..M to {ko, en} display names.")
    names = []
    for c in CHARACTERS:
        entry = raw.get(c, {})
        if not isinstance(entry, dict) or set(entry) - {"ko", "en"}:
            raise _bad(f"characterNames[{c}] must be an object with 'ko' and/or 'en'.")
        pair = []
        for lang in ("ko", "en"):
            name = entry.get(lang, c)
            if not isinstance(name, str) or not 1 <= len(name.strip()) <= 24:
                raise _bad(f"characterNames[{c}].{lang} must be 1 to 24 characters.")
            pair.append(name.strip())
        names.append((pair[0], pair[1]))
    return tuple(names)


def normalize(options: dict[str, Any]) -> dict[str, Any]:
    """Options with every default filled in, after checking what the schema cannot."""
    parse(options)
    # A deep copy: the defaults live in the schema and must never be shared out.
    merged = copy.deepcopy({**DEFAULTS, **options})
    merged["noCardsPerPlayer"] = {**DEFAULTS["noCardsPerPlayer"], **merged["noCardsPerPlayer"]}
    return merged
