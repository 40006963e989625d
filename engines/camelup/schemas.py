"""JSON Schemas of the action payloads (without type, player, host)."""

from __future__ import annotations

from typing import Any

from engines.base import SET_PAPER_SCHEMA, SET_PHONE_SCHEMA, SKIP_SCHEMA, payload_schema
from engines.camelup.constants import CAMELS, CRAZY, DICE, PILES, RACING, SIDES, SPACES

_SPACE = {"type": "integer", "minimum": 1, "maximum": SPACES}
_VALUE = {"type": "integer", "minimum": 1, "maximum": 3}
_ROLL = {"die": {"enum": list(DICE)}, "value": _VALUE, "color": {"enum": list(CRAZY)}}

ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    # A1
    "leg_bet": payload_schema({"camel": {"enum": list(RACING)}}, ("camel",)),
    # A2
    "spectator": payload_schema({"space": _SPACE, "side": {"enum": list(SIDES)}}, ("space", "side")),
    # A3: die, value and color are the random outcome, filled in by draw().
    "pyramid": payload_schema(dict(_ROLL)),
    # A3 with diceSource=manual: the table rolled a physical die.
    "pyramid_manual": payload_schema(dict(_ROLL), ("die", "value")),
    # A4
    "finish_bet": payload_schema(
        # camel: every seat with a phone names it; a seat without a phone
        # places its card face down (the pile alone, docs/rules/camelup.md).
        {"pile": {"enum": list(PILES)}, "camel": {"enum": list(RACING)}}, ("pile",)
    ),
    # The race is over: the host records, in pile order, the camel of each
    # card placed face down by a seat without a phone.
    "paper_cards": payload_schema(
        {p: {"type": "array", "items": {"enum": list(RACING)}, "maxItems": 64} for p in PILES}, PILES
    ),
    # A5
    "partner": payload_schema({"with": {"type": "string", "minLength": 1, "maxLength": 64}}, ("with",)),
    # partnershipCopy=ask: which partner ticket to copy at leg scoring.
    "copy_choice": payload_schema(
        {
            "choice": {"enum": ["best", "none", "pyramid", "bet"]},
            "camel": {"enum": list(RACING)},
            "value": {"type": "integer", "minimum": 1, "maximum": 5},
        },
        ("choice",),
    ),
    # Pyramid-only mode: put the dice back and start the next leg.
    "next_leg": payload_schema({}),
    "next_round": payload_schema({}),
    # Host correction: the physical camels on a space, bottom -> top.
    "set_stack": payload_schema(
        {
            "space": _SPACE,
            "camels": {
                "type": "array",
                "items": {"enum": list(CAMELS)},
                "uniqueItems": True,
                "maxItems": len(CAMELS),
            },
        },
        ("space", "camels"),
    ),
    # A seat without a phone (engines/base.py): the platform sends it.
    "set_paper": SET_PAPER_SCHEMA,
    # The host hands a seat on paper its phone back; skip is always refused (no
    # passing, R9) (engines/base.py, docs/rules/camelup.md).
    "set_phone": SET_PHONE_SCHEMA,
    "skip": SKIP_SCHEMA,
}

RANDOM_ACTION_FIELDS: dict[str, tuple[str, ...]] = {"pyramid": ("die", "value", "color")}
