"""Request schemas (JSON Schema 2020-12) and the one place that validates them.

The same schemas feed the OpenAPI document, so the docs cannot drift from what
the server accepts.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from engines.base import Engine, payload_schema
from server.errors import ServiceError

#: Names longer than NAME_LIMIT are accepted and trimmed (seats.clean_name);
#: the schema only bounds what is worth reading at all.
NAME_LIMIT = 24
NAME = {"type": "string", "minLength": 1, "maxLength": 200}
PLAYER_ID = {"type": "string", "pattern": "^p[0-9]{1,4}$"}

CREATE_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "game": {"type": "string", "maxLength": 32},
        "name": NAME,
        "options": {"type": "object"},
    },
    "required": ["game", "name"],
    "additionalProperties": False,
}

JOIN_BODY: dict[str, Any] = {
    "type": "object",
    # "phone": false (with the host's token) adds a seat without a phone.
    "properties": {"name": NAME, "phone": {"type": "boolean"}},
    "required": ["name"],
    "additionalProperties": False,
}

#: A rejoin code (``POST /api/tables/<id>/claim``): URL-safe base64 from ``seats.new_claim``.
CLAIM_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {"claim": {"type": "string", "pattern": "^[A-Za-z0-9_-]{16,64}$"}},
    "required": ["claim"],
    "additionalProperties": False,
}

ACTION_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {
            "type": "object",
            "properties": {"type": {"type": "string", "pattern": "^[a-z_]{1,32}$"}},
            "required": ["type"],
        },
        "request_id": {"type": "string", "minLength": 1, "maxLength": 64},
        # At most 2**31 (a table logs far fewer changes): a larger number is
        # no version any table has, and 2**64 would not fit the store's integers.
        "version": {"type": "integer", "minimum": 0, "maximum": 2**31},
        # A seat without a phone this (game) action is entered for.
        "as": PLAYER_ID,
    },
    "required": ["action", "request_id"],
    "additionalProperties": False,
}




#: Actions every table understands, handled by the platform, not the engine.
#: A seat's recovery PIN: 4 to 8 digits, typed on a phone's number pad.
PIN: dict[str, Any] = {"type": "string", "pattern": "^[0-9]{4,8}$"}

PLATFORM_ACTIONS: dict[str, dict[str, Any]] = {
    "start": payload_schema({}),
    "seats": payload_schema(
        {"order": {"type": "array", "items": PLAYER_ID, "minItems": 1, "maxItems": 64}}, ["order"]
    ),
    "rename": payload_schema({"player": PLAYER_ID, "name": NAME}, ["player", "name"]),
    "remove": payload_schema({"player": PLAYER_ID}, ["player"]),
    "host": payload_schema({"player": PLAYER_ID}, ["player"]),
    "undo": payload_schema({}),
    "play_again": payload_schema({}),
    "pin": payload_schema({"pin": PIN}, ["pin"]),
    "unlock": payload_schema({"pin": PIN}, ["pin"]),
    "phoneless": payload_schema({"player": PLAYER_ID}, ["player"]),
    "phone_back": payload_schema({"player": PLAYER_ID}, ["player"]),
    "resume": payload_schema({}),
    "proxies": payload_schema({"who": {"enum": ["host", "all"]}}, ["who"]),
    # A phone's hash chain for this table, and its links (docs/fairness.md, "Chains").
    "anchor": payload_schema({"anchor": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                              "length": {"type": "integer", "minimum": 1, "maximum": 4096}}, ["anchor", "length"]),
    "link": payload_schema({"draw": {"type": "integer", "minimum": 0},
                            "link": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}, ["draw", "link"]),
    "draw_now": payload_schema({"draw": {"type": "integer", "minimum": 0}}, ["draw"]),
    # The web offers off, 30, 60 and 120 s; any whole number up to 10 minutes is taken.
    "reminder": payload_schema({"seconds": {"type": "integer", "minimum": 0, "maximum": 600}}, ["seconds"]),
}


#: One validator per schema, built once: jsonschema-rs (Rust; draft 2020-12,
#: exact about JSON's types: ``true`` is no ``1``) validates an action's body
#: and payload in ~1.6 µs where jsonschema took ~39 (``bench/schemas.py``),
#: and writes the refusal's message too: there is no second validator.
_VALIDATORS: dict[tuple[str, int], Any] = {}


def _validator(key: str, schema: dict[str, Any]) -> Any:
    k = (key, id(schema))
    v = _VALIDATORS.get(k)
    if v is None:
        jsonschema_rs.meta.validate(schema)  # a broken schema fails here, at its first use
        v = _VALIDATORS[k] = jsonschema_rs.Draft202012Validator(schema)
    return v


def validate(schema: dict[str, Any], value: Any, key: str, code: str = "invalid_payload") -> None:
    """Raises ``ServiceError("invalid", code)`` naming the first problem."""
    validator = _validator(key, schema)
    if validator.is_valid(value):
        return
    err = next(iter(validator.iter_errors(value)))
    where = "/".join(str(p) for p in err.instance_path)
    raise ServiceError("invalid", code, f"{where or 'body'}: {err.message}"[:300])


def action_schema(engine: Engine, action_type: str) -> dict[str, Any] | None:
    return PLATFORM_ACTIONS.get(action_type) or engine.action_schemas.get(action_type)


def options_with_defaults(engine: Engine, options: dict[str, Any]) -> dict[str, Any]:
    """Validates ``options`` against the game's schema and fills every default."""
    schema = engine.options_schema
    validate(schema, options, f"options:{engine.name}", code="bad_options")
    filled = dict(options)
    for name, prop in schema.get("properties", {}).items():
        if name not in filled and "default" in prop:
            filled[name] = prop["default"]
    return filled
