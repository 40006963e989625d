"""The compiled schema checks (fastjsonschema) never accept what jsonschema refuses, and accept
the moves the games offer (so the fast path is the one taken)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from engines import registry
from server.service import schemas
from server.service.schema_fast import compile_schema

SCHEMAS: list[tuple[str, dict[str, Any]]] = [("body", schemas.ACTION_BODY), ("create", schemas.CREATE_BODY),
                                             ("join", schemas.JOIN_BODY)]
SCHEMAS += [(f"platform:{k}", v) for k, v in schemas.PLATFORM_ACTIONS.items()]
for _game in registry.names():
    _engine = registry.get(_game)
    assert _engine is not None
    SCHEMAS += [(f"{_game}:{k}", v) for k, v in _engine.action_schemas.items()]
    SCHEMAS.append((f"{_game}:options", _engine.options_schema))

scalars = (st.none() | st.booleans() | st.integers(-3, 20) | st.floats(-3, 20, allow_nan=False)
           | st.sampled_from(["", "blue", "grey", "cheer", "A", "p1", "p12", "1234", "x" * 70, "winner"])
           | st.text(max_size=5))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=7)
                      | st.dictionaries(st.sampled_from(["type", "camel", "space", "side", "n", "die", "value",
                                                         "action", "request_id", "version", "player", "pin",
                                                         "characters", "seat", "order", "name", "x"]),
                                        inner, max_size=4), max_leaves=12)


@pytest.mark.parametrize("name,schema", SCHEMAS, ids=[n for n, _ in SCHEMAS])
@settings(max_examples=40, deadline=None)
@given(value=values)
def test_never_looser_than_jsonschema(name: str, schema: dict[str, Any], value: Any) -> None:
    fast = compile_schema(schema)
    if fast is not None and fast(value):
        assert Draft202012Validator(schema).is_valid(value), (name, value)


def test_the_edges_jsonschema_judges() -> None:
    def same(schema: dict[str, Any], value: Any) -> bool:
        check = compile_schema(schema)
        return check is None or not check(value) or Draft202012Validator(schema).is_valid(value)

    check = compile_schema({"type": "integer", "minimum": 1})
    assert check is not None
    assert check(3) and not check(True) and not check(0)
    assert all(same({"type": "integer", "minimum": 1}, v) for v in (1.0, 1.5, True, "1"))
    assert all(same({"type": "array", "uniqueItems": True}, v) for v in (["a", "a"], [1, 1.0], [True, 1]))
    # fastjsonschema takes True for 1 in an enum: such schemas are jsonschema's alone.
    assert compile_schema({"enum": [1, "a"]}) is None
    assert compile_schema({"properties": {"n": {"const": 3}}}) is None
    # Keywords draft 7 does not know: jsonschema's alone.
    assert compile_schema({"prefixItems": [{"type": "string"}]}) is None
    assert compile_schema({"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}}) is None


def test_the_games_moves_take_the_fast_path() -> None:
    for game in registry.names():
        engine = registry.get(game)
        assert engine is not None
        for atype, schema in engine.action_schemas.items():
            example = {k: v for k, v in {"camel": "blue", "space": 5, "side": "boo", "die": "red"}.items()
                       if k in schema.get("properties", {})}
            check = compile_schema(schema)
            if check is not None and set(schema.get("required", [])) <= set(example):
                assert check(example) == Draft202012Validator(schema).is_valid(example), (game, atype)
    body = {"action": {"type": "leg_bet", "camel": "blue"}, "request_id": "r-1", "version": 3}
    body_check = compile_schema(schemas.ACTION_BODY)
    assert body_check is not None and body_check(body)
