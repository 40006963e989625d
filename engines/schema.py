"""The JSON Schemas engines publish: action payloads and table options (the
server validates against them and the OpenAPI document shows them), and the
payloads of the seat actions every game accepts (``engines.seats``)."""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any


def payload_schema(
    properties: dict[str, Any], required: Collection[str] = (), description: str | None = None
) -> dict[str, Any]:
    """The JSON Schema of an action payload (or any closed object): these
    properties, these required, nothing else."""
    schema: dict[str, Any] = {"type": "object"}
    if description is not None:
        schema["description"] = description
    schema.update(properties=properties, required=list(required), additionalProperties=False)
    return schema


def options_schema(properties: dict[str, Any], dialect: str | None = None) -> dict[str, Any]:
    """The JSON Schema of a game's table options: these properties (each with its
    ``default``), nothing else; ``dialect`` is its ``$schema`` when it names one."""
    head = {} if dialect is None else {"$schema": dialect}
    return {**head, "type": "object", "additionalProperties": False, "properties": properties}


def int_list_schema(lo: int, hi: int, length: int, **extra: Any) -> dict[str, Any]:
    """The JSON Schema of exactly ``length`` whole numbers from ``lo`` to ``hi``."""
    return {
        "type": "array",
        "items": {"type": "integer", "minimum": lo, "maximum": hi},
        "minItems": length,
        "maxItems": length,
        **extra,
    }


#: The payload schema of ``set_paper`` (every game's ``action_schemas`` lists it).
SET_PAPER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"seat": {"type": "string", "maxLength": 16}},
    "required": ["seat"],
    "additionalProperties": False,
}


#: The payload schemas of ``set_phone`` and ``skip`` (every game's ``action_schemas``
#: lists both; Camel Up's ``skip`` is refused, but a game's actions are one set).
SET_PHONE_SCHEMA: dict[str, Any] = copy.deepcopy(SET_PAPER_SCHEMA)
SKIP_SCHEMA: dict[str, Any] = copy.deepcopy(SET_PAPER_SCHEMA)
