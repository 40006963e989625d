"""JSON Schemas of the action payloads (without ``type``, ``player``, ``host``)."""

from __future__ import annotations

from typing import Any

from engines.base import SET_PAPER_SCHEMA, SET_PHONE_SCHEMA, SKIP_SCHEMA, payload_schema
from engines.kingup.constants import CHARACTERS, DECK_SIZE, TOP_LEVEL, VOTES
from engines.kingup.state import SEALED

_CHAR: dict[str, Any] = {"enum": list(CHARACTERS), "description": "A character ID, A..M."}
_SIX: dict[str, Any] = {
    "type": "array",
    "items": {"enum": list(CHARACTERS)},
    "minItems": 6,
    "maxItems": 6,
    "uniqueItems": True,
    "description": "The 6 distinct characters of a goal card, in any order.",
}
_POSITION: dict[str, Any] = {
    "oneOf": [
        {"type": "integer", "minimum": 0, "maximum": TOP_LEVEL},
        {"enum": ["throne", "eliminated"]},
    ]
}
#: 32 bytes as 64 lowercase hex digits (docs/fairness.md: uppercase is another string).
_HEX32 = "^[0-9a-f]{64}$"




ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "goal": payload_schema(
        {"characters": _SIX},
        ["characters"],
        "Record mode: record the 6 characters of the printed goal card you drew, once per "
        "round, any time before the round is scored.",
    ),
    "draw_goal": payload_schema(
        {
            "card": {
                "type": "integer",
                "minimum": 0,
                "maximum": DECK_SIZE - 1,
                "description": "Random outcome: the virtual-deck card drawn (fixed random only).",
            }
        },
        [],
        "Deal mode: draw your goal card for this round from the app's virtual deck.",
    ),
    "place": payload_schema(
        {
            "char": _CHAR,
            "level": {
                "type": "integer",
                "minimum": 0,
                "maximum": TOP_LEVEL,
                "description": "Placement is legal on levels 1..4 only (R6).",
            },
        },
        ["char", "level"],
        "Placement phase, on your turn: put an unplaced character on a level 1..4 "
        "holding fewer than 4.",
    ),
    "move": payload_schema(
        {"char": _CHAR},
        ["char"],
        "Movement phase, on your turn: move a character on levels 0..5 up one level "
        "(from level 5 to the throne, which starts an election).",
    ),
    "vote": payload_schema(
        {
            "vote": {"enum": [*VOTES, SEALED]},
            "hash": {
                "type": "string",
                "pattern": _HEX32,
                "description": "With vote 'sealed': SHA-256 of "
                "[\"tablemate-seal/1\", label, salt, {\"vote\": yes|no}] (docs/fairness.md).",
            },
            "label": {
                "type": "string",
                "maxLength": 120,
                "description": "With vote 'sealed': the label the snapshot's fair.to_seal gives this seat.",
            },
        },
        ["vote"],
        "During an election: your final, secret vote. The app sends 'sealed' with the hash "
        "(value and salt stay on the phone until every vote is in); yes or no sent as is "
        "is refused (seal_required) unless it is the last vote with no seal shut, which "
        "reveals the election at once. No needs a No card left; with none left, only yes.",
    ),
    "open_vote": payload_schema(
        {"vote": {"enum": list(VOTES)}, "salt": {"type": "string", "pattern": _HEX32}},
        ["vote", "salt"],
        "Once every vote is in: open your sealed vote (refused, opening_mismatch, unless "
        "it hashes to the seal).",
    ),
    "next_round": payload_schema({}, [], "Host only, after a scored round: start the next round."),
    "score_round": payload_schema(
        {
            "board": {
                "type": "object",
                "description": "Where each of the 13 characters ended: level 0..5, "
                "'throne' or 'eliminated'.",
                "additionalProperties": False,
                "properties": {c: _POSITION for c in CHARACTERS},
                "required": list(CHARACTERS),
            },
            "goals": {
                "type": "object",
                "description": "Player id -> that player's 6 characters, for every seat "
                "without a recorded or drawn goal card.",
                "additionalProperties": _SIX,
                "default": {},
            },
        },
        ["board"],
        "Score-only mode: enter the final board of the round (and missing goal cards).",
    ),
    # A seat without a phone (engines/base.py): the platform sends it.
    "set_paper": SET_PAPER_SCHEMA,
    # The host hands a seat on paper its phone back, or lets an election go on
    # without a seat's vote (engines/base.py, docs/rules/kingup.md).
    "set_phone": SET_PHONE_SCHEMA,
    "skip": SKIP_SCHEMA,
}

RANDOM_ACTION_FIELDS: dict[str, tuple[str, ...]] = {"draw_goal": ("card",)}
