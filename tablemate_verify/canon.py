"""Canonical JSON: the one byte string a value hashes to, in Python and in
``web/fairness.js`` alike.

Keys sorted by code point, no whitespace, UTF-8 without escapes beyond what
JSON needs. Only values both languages write the same way are allowed: null,
booleans, whole numbers within JavaScript's safe range, strings, lists and
objects with string keys. A float is refused (``1.0`` is ``1`` in JavaScript),
and so is a lone surrogate (it has no UTF-8 form).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

#: Number.MAX_SAFE_INTEGER: a larger whole number is not exact in JavaScript.
MAX_SAFE = 2**53 - 1


class CanonError(ValueError):
    """A value that has no canonical JSON form here; says where (``path``)."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path


def plain(value: Any, path: str = "$") -> Any:
    """``value`` as plain JSON data (tuples become lists, a ``StrEnum`` its
    string), checked to have a canonical form.

    >>> plain(("red", 3, [True, None]))
    ['red', 3, [True, None]]
    >>> plain({"a": 1.5})
    Traceback (most recent call last):
    tablemate_verify.canon.CanonError: $.a: a float has no canonical form (use whole numbers)
    """
    kind = type(value)
    # Exact types first: the draws of every roll pass through here, and the
    # isinstance checks against the ABCs below cost several times more.
    if kind is str:
        return _string(value, path)
    if kind is int:
        return _whole(value, path)
    if kind is list or kind is tuple:
        # Plain scalars as they are (a draw's items, a roll's fields): no path
        # is written for them, which was most of a roll's share of this.
        return [v if _simple(v) else plain(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if kind is dict:
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise CanonError(path, f"the key {k!r} is not a string")
            out[_string(k, path)] = v if _simple(v) else plain(v, f"{path}.{k}")
        return out
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _whole(value, path)
    if isinstance(value, float):
        raise CanonError(path, "a float has no canonical form (use whole numbers)")
    if isinstance(value, str):
        return _string(value, path)
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise CanonError(path, f"the key {k!r} is not a string")
            out[str(plain(k, path))] = plain(v, f"{path}.{k}")
        return out
    if isinstance(value, Sequence):
        return [plain(v, f"{path}[{i}]") for i, v in enumerate(value)]
    raise CanonError(path, f"{type(value).__name__} is not JSON")


def _simple(v: Any) -> bool:
    """An ASCII string, a safe whole number (not a bool) or null: already plain."""
    kind = type(v)
    return (kind is str and v.isascii()) or (kind is int and -MAX_SAFE <= v <= MAX_SAFE) or v is None


def _whole(value: int, path: str) -> int:
    if -MAX_SAFE <= value <= MAX_SAFE:
        return int(value)
    raise CanonError(path, f"{value} is beyond JavaScript's safe integers")


def _string(value: str, path: str) -> str:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise CanonError(path, "a string with a lone surrogate has no UTF-8 form") from e
    return str(value)


def dumps(value: Any) -> str:
    """The canonical JSON text of ``value``.

    >>> dumps({"b": [1, "가"], "a": None})
    '{"a":null,"b":[1,"가"]}'
    """
    # sort_keys compares str by code point, as web/fairness.js's canonical() does.
    return json.dumps(plain(value), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def encode(value: Any) -> bytes:
    """``dumps(value)`` as UTF-8: what is hashed."""
    return dumps(value).encode("utf-8")


def same(a: Any, b: Any) -> bool:
    """Whether two values are the same JSON (``True`` is not ``1`` here).

    >>> same([1, "x"], (1, "x")), same(True, 1), same(["a", [2]], ["a", [3]])
    (True, False, False)
    """
    quick = _same_plain(a, b)
    if quick is not None:
        return quick
    try:
        return dumps(a) == dumps(b)
    except CanonError:
        return False


_SCALARS = (str, int, bool, type(None))


def _same_plain(a: Any, b: Any) -> bool | None:
    """``same`` for ASCII strings, safe whole numbers, booleans, null and lists
    of them, without writing JSON (every roll compares its draws' results
    with the logged fields so); None: ``dumps`` must tell."""
    ka, kb = type(a), type(b)
    if ka is str and kb is str and a.isascii() and b.isascii():
        return bool(a == b)
    if ka is int and kb is int and -MAX_SAFE <= a <= MAX_SAFE and -MAX_SAFE <= b <= MAX_SAFE:
        return bool(a == b)
    if ka is bool and kb is bool:
        return bool(a is b)
    if ka in _SCALARS and kb in _SCALARS and ka is not kb:
        return False  # a string is never a number, true never 1
    if a is None and b is None:
        return True
    if (ka is list or ka is tuple) and (kb is list or kb is tuple):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            r = _same_plain(x, y)
            if r is not True:
                return r
        return True
    return None
