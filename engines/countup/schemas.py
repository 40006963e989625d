"""Action payload schemas (JSON Schema 2020-12), as published in the OpenAPI
document. Sheets are checked loosely here on purpose: the engine explains a
wrong sheet in words (``not_five``, ``out_of_range``, ``duplicate``, ...)."""

from __future__ import annotations

from typing import Any

from engines.base import SET_PAPER_SCHEMA

_SEAT = {"type": "string", "maxLength": 16}
_DIGITS = {
    "type": "array",
    "items": {"type": "integer", "minimum": 0, "maximum": 9},
    "minItems": 3,
    "maxItems": 3,
    "description": "The 3 digits printed on the restriction card, in printed order.",
}
_RANGE = {
    "type": "array",
    "items": {"type": "integer", "minimum": 1, "maximum": 999},
    "minItems": 2,
    "maxItems": 2,
    "description": "[lo, hi], inclusive.",
}


def _payload(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required or [],
        "additionalProperties": False,
    }


ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "numbers": _payload(
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
    "restriction": _payload({"digits": _DIGITS}, ["digits"]),
    "danger": _payload({"range": _RANGE}, ["range"]),
    "call": _payload(
        {
            "until": {
                "enum": ["end"],
                "description": "Omit to call one number; 'end' finishes the round at once.",
            }
        }
    ),
    "declare": _payload(
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
    "paper_declare": _payload(
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
    "bonus": _payload(
        {
            "points": {"type": "integer", "minimum": 0, "maximum": 999},
            "seat": {**_SEAT, "description": "Host only: enter for another seat."},
        },
        ["points"],
    ),
    "caller": _payload(
        {
            "seat": {
                "anyOf": [{"type": "null"}, _SEAT],
                "description": "The seat that may call the count besides the host; null: "
                "the host only.",
            }
        },
        ["seat"],
    ),
    "next_round": _payload(
        {
            "restriction": {**_DIGITS, "description": "Random outcome: the drawn card."},
            "danger": {**_RANGE, "description": "Random outcome: the drawn danger zone."},
        }
    ),
    # A seat without a phone (engines/base.py): the platform sends it.
    "set_paper": SET_PAPER_SCHEMA,
}

RANDOM_ACTION_FIELDS: dict[str, tuple[str, ...]] = {"next_round": ("restriction", "danger")}
