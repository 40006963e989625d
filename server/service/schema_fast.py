"""Compiled schema checks in front of jsonschema, by fastjsonschema.

fastjsonschema turns a JSON Schema into Python code, so checking a valid
action costs a few microseconds instead of jsonschema's ~100 (``bench/schemas.py``).
It knows drafts 4 to 7, not 2020-12, and it is looser in one place (it takes
``True`` for the enum value ``1``); so it is used only as a fast "certainly
valid": anything it refuses, and any schema with a keyword whose meaning
changed after draft 7, goes to jsonschema, which stays the authority and
writes every error message. ``tests/server/service/test_schema_fast.py`` checks with
random values that the fast path never accepts what jsonschema refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import fastjsonschema

Check = Callable[[Any], bool]

#: Keywords added or changed in 2019-09/2020-12: draft 7 would ignore them.
_NEWER = {"prefixItems", "$defs", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
          "unevaluatedItems", "$dynamicRef", "$dynamicAnchor", "$anchor", "minContains", "maxContains",
          "$ref", "$id"}


def _keywords(schema: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(schema, dict):
        out |= set(schema)
        for k, v in schema.items():
            if k in ("properties", "patternProperties"):
                for sub in v.values():
                    out |= _keywords(sub)
            elif k in ("enum", "const", "default", "examples"):
                continue
            else:
                out |= _keywords(v)
    elif isinstance(schema, list):
        for sub in schema:
            out |= _keywords(sub)
    return out


def _enum_has_int(schema: Any) -> bool:
    """An enum or const holding an integer: fastjsonschema would take True for 1."""
    if isinstance(schema, dict):
        for k, v in schema.items():
            if k in ("enum", "const"):
                values = v if k == "enum" and isinstance(v, list) else [v]
                if any(type(x) in (int, float) for x in values):
                    return True
            elif k not in ("default", "examples") and _enum_has_int(v):
                return True
    elif isinstance(schema, list):
        return any(_enum_has_int(sub) for sub in schema)
    return False


def compile_schema(schema: Any) -> Check | None:
    """A check that is True only for valid values; None where jsonschema alone judges."""
    if not isinstance(schema, dict) or _keywords(schema) & _NEWER or _enum_has_int(schema):
        return None
    body = {k: v for k, v in schema.items() if k != "$schema"}
    # use_default=False: a check must not fill defaults into the value it checks.
    validate = fastjsonschema.compile({"$schema": "http://json-schema.org/draft-07/schema#", **body},
                                      use_default=False, use_formats=False)

    def check(value: Any) -> bool:
        try:
            validate(value)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return check
