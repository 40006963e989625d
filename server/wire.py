"""What both adapters and the store share about JSON on the wire: the one
encoder and parser (``dumps``, ``loads``: orjson), and a client's JSON (HTTP
body or socket frame) parsed without trusting its shape (``parse``).

Python's parser recurses once per nesting level: 5,000 ``[`` overflow the stack
(``RecursionError``), and a merely deep value still costs the schema validator
a recursion per level. No Tablemate message nests deeper than a few levels, so
anything deeper than ``MAX_DEPTH`` is refused before it reaches a validator.

>>> parse('{"action": {"type": "roll"}}')
{'action': {'type': 'roll'}}
>>> try:
...     parse("[" * 5000)
... except ServiceError as e:
...     print(e.kind, e.code)
invalid too_deep
"""

from __future__ import annotations

from typing import Any

import orjson

from server.errors import ServiceError

MAX_DEPTH = 16


def dumps(value: Any) -> bytes:
    """JSON for Redis and the sockets. orjson: the table document is encoded
    and parsed on every action, and the stdlib's encoder was a tenth of the
    worker's CPU under load. A dict with a key that is not a string (Python's
    json wrote ``{1: x}`` as ``{"1": x}``) is encoded again with orjson's option
    for it, which is not the first try: it made every encode slower (the
    frames row of docs/performance.md, "Why each fast path exists")."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


loads = orjson.loads


def _too_deep() -> ServiceError:
    return ServiceError("invalid", "too_deep", f"JSON nested deeper than {MAX_DEPTH} levels is refused.")


def _depth_ok(raw: str) -> bool:
    """Brackets outside strings never nest deeper than ``MAX_DEPTH`` (a linear
    scan, so a hostile body is refused before the parser recurses into it)."""
    if raw.count("[") + raw.count("{") <= MAX_DEPTH:  # every real message: no scan
        return True
    depth = 0
    in_string = escaped = False
    for c in raw:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif c in "]}":
            depth -= 1
    return True


def parse(raw: str | bytes) -> Any:
    """The JSON value of ``raw``; ``ServiceError`` 400 ``invalid_json`` or ``too_deep``."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise ServiceError("invalid", "invalid_json", "The body must be UTF-8 JSON.") from None
    if not _depth_ok(text):
        raise _too_deep()
    try:
        # orjson, as for everything else the server parses: strict RFC 8259
        # (NaN, Infinity and a lone surrogate are refused here; an integer past
        # 64 bits reads as a float, which no action's schema takes).
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ServiceError("invalid", "invalid_json", "The body is not valid JSON.") from None
