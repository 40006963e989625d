"""Compiled checks for the simple JSON Schemas the API validates on every action.

``compile_schema`` turns a schema of the common keywords (type, properties,
required, additionalProperties, enum, const, bounds, pattern, items) into a
plain function. The function answers True only when the value is certainly
valid; anything else, and any schema it does not understand (None), goes to
jsonschema, which stays the authority and writes the error message. So the
compiled check may be stricter than the schema, never looser: a bool is not
an integer here, and neither is 1.0 (jsonschema decides those).
Per action this is a few microseconds instead of ~100 (``bench/schemas.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

#: Keywords that assert nothing (``format`` too: the validators are built
#: without a format checker, so jsonschema does not assert it either).
_ANNOTATIONS = {"description", "title", "default", "examples", "$comment", "deprecated",
                "readOnly", "writeOnly", "format", "$schema"}
_KNOWN = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "enum", "const",
                         "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                         "minLength", "maxLength", "pattern", "items", "minItems", "maxItems",
                         "uniqueItems", "anyOf"}
_TYPES: dict[str, Check] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}
_SCALARS = (str, int, float, bool, type(None))


def _number(v: Any) -> bool:
    return type(v) in (int, float)


def _one_of_values(allowed: list[Any]) -> Check:
    # Keyed by type as well: jsonschema tells True from 1 (and 1 from 1.0 here
    # only counts as "not sure", which jsonschema then judges).
    pairs = {(type(a), a) for a in allowed}
    return lambda v: type(v) in _SCALARS and (type(v), v) in pairs


def compile_schema(schema: Any) -> Check | None:
    """A check that is True only for valid values; None for a schema it cannot compile."""
    if schema is True or schema == {}:
        return lambda v: True
    if not isinstance(schema, dict) or not set(schema) <= _KNOWN:
        return None
    checks: list[Check] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not all(n in _TYPES for n in names):
            return None
        tests = [_TYPES[n] for n in names]
        checks.append(tests[0] if len(tests) == 1 else lambda v: any(t(v) for t in tests))
    for word in ("enum", "const"):
        if word in schema:
            allowed = schema["enum"] if word == "enum" else [schema["const"]]
            if not all(type(a) in _SCALARS for a in allowed):
                return None  # deep equality of containers is jsonschema's to judge
            checks.append(_one_of_values(allowed))
    bounds = [(w, schema[w]) for w in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
              if w in schema]
    if bounds:
        ops: dict[str, Callable[[Any, Any], bool]] = {
            "minimum": lambda v, b: v >= b, "maximum": lambda v, b: v <= b,
            "exclusiveMinimum": lambda v, b: v > b, "exclusiveMaximum": lambda v, b: v < b}
        checks.append(lambda v: not _number(v) or all(ops[w](v, b) for w, b in bounds))
    lo, hi = schema.get("minLength", 0), schema.get("maxLength")
    if "minLength" in schema or hi is not None:
        checks.append(lambda v: type(v) is not str or (lo <= len(v) and (hi is None or len(v) <= hi)))
    if "pattern" in schema:
        search = re.compile(schema["pattern"]).search
        checks.append(lambda v: type(v) is not str or search(v) is not None)
    if "anyOf" in schema:
        subs = [compile_schema(sub) for sub in schema["anyOf"]]
        if any(sub is None for sub in subs):
            return None
        checks.append(lambda v: any(sub(v) for sub in subs if sub is not None))
    if not _object_checks(schema, checks) or not _array_checks(schema, checks):
        return None
    return _all(checks)


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]

    def every(v: Any) -> bool:
        for check in checks:
            if not check(v):
                return False
        return True

    return every


def _object_checks(schema: dict[str, Any], checks: list[Check]) -> bool:
    props: dict[str, Check] = {}
    for name, sub in schema.get("properties", {}).items():
        check = compile_schema(sub)
        if check is None:
            return False
        props[name] = check
    required = list(schema.get("required", []))
    extra = schema.get("additionalProperties", True)
    rest = None if extra is False else compile_schema(extra)
    if extra is not False and rest is None:
        return False

    def obj(v: Any) -> bool:
        if type(v) is not dict:
            return True
        for k, x in v.items():
            check = props.get(k, rest)
            if check is None or not check(x):
                return False
        for r in required:
            if r not in v:
                return False
        return True

    if props or required or extra is not True:
        checks.append(obj)
    return True


def _array_checks(schema: dict[str, Any], checks: list[Check]) -> bool:
    if "items" in schema:
        item = compile_schema(schema["items"])
        if item is None:
            return False
        checks.append(lambda v: type(v) is not list or all(item(x) for x in v))
    lo, hi = schema.get("minItems", 0), schema.get("maxItems")
    if "minItems" in schema or hi is not None:
        checks.append(lambda v: type(v) is not list or (lo <= len(v) and (hi is None or len(v) <= hi)))
    if schema.get("uniqueItems"):
        # Only strings are judged here: jsonschema counts 1 and 1.0 as equal.
        checks.append(lambda v: type(v) is not list
                      or (all(type(x) is str for x in v) and len(set(v)) == len(v)))
    return True
