"""The one schema validator (jsonschema-rs, server/service/schemas.py) judges
every request as the reference implementation (jsonschema) does, on every
schema the API has, and its refusals name where the problem is."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from engines import registry
from server.errors import ServiceError
from server.service import platform_actions, schemas

SCHEMAS: list[tuple[str, dict[str, Any]]] = [("body", schemas.ACTION_BODY), ("create", schemas.CREATE_BODY),
                                             ("join", schemas.JOIN_BODY)]
SCHEMAS += [(f"platform:{k}", v) for k, v in platform_actions.SCHEMAS.items()]
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
def test_it_judges_as_the_reference_validator(name: str, schema: dict[str, Any], value: Any) -> None:
    try:
        schemas.validate(schema, value, f"test:{name}")
        accepted = True
    except ServiceError:
        accepted = False
    assert accepted == Draft202012Validator(schema).is_valid(value), (name, value)


@pytest.mark.parametrize("schema,value", [
    ({"type": "integer", "minimum": 1}, True),  # a boolean is no integer, in JSON
    ({"enum": [1, "a"]}, True),
    ({"properties": {"n": {"const": 3}}}, {"n": 3.5}),
    ({"type": "array", "uniqueItems": True}, [1, 1.0]),
    ({"prefixItems": [{"type": "string"}]}, [3]),  # 2020-12 keywords
    ({"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "string"}}}, {"a": 1}),
    ({"properties": {"version": {"type": "integer", "maximum": 2**31}}}, {"version": 2**64}),
])
def test_the_edges(schema: dict[str, Any], value: Any) -> None:
    assert not Draft202012Validator(schema).is_valid(value)
    with pytest.raises(ServiceError) as exc:
        schemas.validate(schema, value, f"edge:{id(schema)}")
    assert exc.value.kind == "invalid" and exc.value.code == "invalid_payload"


def test_a_refusal_names_where() -> None:
    with pytest.raises(ServiceError) as exc:
        schemas.validate(schemas.ACTION_BODY, {"action": {"type": "x"}, "request_id": "r", "version": -1}, "body")
    assert exc.value.message.startswith("version: ")
    with pytest.raises(ServiceError) as exc:
        schemas.validate(schemas.ACTION_BODY, [], "body")
    assert exc.value.message.startswith("body: ")
