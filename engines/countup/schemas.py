"""Action payload schemas (JSON Schema 2020-12), as published in the OpenAPI
document. Sheets are checked loosely here on purpose: the engine explains a
wrong sheet in words (``not_five``, ``out_of_range``, ``duplicate``, ...)."""

from __future__ import annotations

from typing import Any

from engines.base import (
    SET_PAPER_SCHEMA,
    SET_PHONE_SCHEMA,
    SKIP_SCHEMA,
    int_list_schema,
    payload_schema,
)

_SEAT = {"type": "string", "maxLength": 16}
_DIGITS = int_list_schema(
    0, 9, 3, description="The 3 digits printed on the restriction card, in printed order."
)
_RANGE = int_list_schema(1, 999, 2, description="[lo, hi], inclusive.")




ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "numbers": payload_schema(
        {
            "numbers": {
                "type": "array",
                "items": {"type": "integer", "minimum": -9999, "maximum": 9999},
                "maxItems": 12,
                "description": "Your 5 secret numbers; validated, sorted and locked at once.",
            }
        },
        ["numbers"],
    ),
    "restriction": payload_schema({"digits": _DIGITS}, ["digits"]),
    "danger": payload_schema({"range": _RANGE}, ["range"]),
    "call": payload_schema(
        {
            "until": {
                "enum": ["end"],
                "description": "Omit to call one number; 'end' finishes the round at once.",
            }
        }
    ),
    "declare": payload_schema(
        {
            "players": {
                "type": "array",
                "items": _SEAT,
                "minItems": 1,
                "maxItems": 12,
                "description": "Paper mode: who declared the last called number.",
            }
        },
        ["players"],
    ),
    "paper_declare": payload_schema(
        {
            "number": {
                "type": "integer",
                "minimum": 1,
                "maximum": 999,
                "description": "The number just called, which this seat (writing on paper "
                "at a phone table) declared.",
            }
        },
        ["number"],
    ),
    "bonus": payload_schema(
        {
            "points": {"type": "integer", "minimum": 0, "maximum": 999},
            "seat": {**_SEAT, "description": "Host only: enter for another seat."},
        },
        ["points"],
    ),
    "caller": payload_schema(
        {
            "seat": {
                "anyOf": [{"type": "null"}, _SEAT],
                "description": "The seat that may call the count besides the host; null: "
                "the host only.",
            }
        },
        ["seat"],
    ),
    "next_round": payload_schema(
        {
            "restriction": {**_DIGITS, "description": "Random outcome: the drawn card."},
            "danger": {**_RANGE, "description": "Random outcome: the drawn danger zone."},
        }
    ),
    # A seat without a phone (engines/base.py): the platform sends it.
    "set_paper": SET_PAPER_SCHEMA,
    # The host hands a seat on paper its phone back, or starts the count without a
    # phone's sheet (engines/base.py, docs/rules/countup.md).
    "set_phone": SET_PHONE_SCHEMA,
    "skip": SKIP_SCHEMA,
}

RANDOM_ACTION_FIELDS: dict[str, tuple[str, ...]] = {"next_round": ("restriction", "danger")}
