"""Per-action cost of the API's schema validation: the server's one validator
(jsonschema-rs, server/service/schemas.py) against jsonschema, the reference
implementation, on the same real moves with the validators built once. Prints
microseconds per action (the body, then its action's payload).

Run: .venv/bin/python bench/schemas.py [--n 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engines import registry  # noqa: E402
from server.service import platform_actions, schemas  # noqa: E402

#: What one action validates: the body, then its action's payload (real legal moves).
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("camelup", "pyramid", {}),
    ("camelup", "leg_bet", {"camel": "blue"}),
    ("camelup", "spectator", {"space": 7, "side": "cheer"}),
    ("kingup", "start", {}),
    ("countup", "undo", {}),
]


def per_action(n: int, check: Callable[[dict[str, Any], Any, str], None]) -> float:
    """Median of 5 runs, CPU µs per action (the body plus the payload)."""
    work = []
    for game, atype, payload in CASES:
        engine = registry.get(game)
        assert engine is not None
        schema = platform_actions.action_schema(engine, atype)
        assert schema is not None, (game, atype)
        body = {"action": {"type": atype, **payload}, "request_id": "r-0123456789", "version": 42}
        work.append((schema, payload, body, f"{game}:{atype}"))
    runs = []
    for _ in range(5):
        t = time.process_time()
        for i in range(n):
            schema, payload, body, key = work[i % len(work)]
            check(schemas.ACTION_BODY, body, "action-body")
            check(schema, payload, key)
        runs.append((time.process_time() - t) / n * 1e6)
    return sorted(runs)[2]


_REFERENCE: dict[str, Draft202012Validator] = {}


def reference(schema: dict[str, Any], value: Any, key: str) -> None:
    """jsonschema, its validator built once per schema (as the server did before)."""
    v = _REFERENCE.get(key)
    if v is None:
        v = _REFERENCE[key] = Draft202012Validator(schema)
    if not v.is_valid(value):
        raise ValueError(key)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    n = ap.parse_args().n
    slow = per_action(n, reference)
    fast = per_action(n, schemas.validate)
    print(f"load average: {os.getloadavg()[0]:.1f}")
    print(f"schema validation per action, jsonschema (validators built once): {slow:.1f} µs")
    print(f"schema validation per action, jsonschema-rs (the server's):       {fast:.1f} µs")
    print(f"speed-up: {slow / fast:.1f}×")


if __name__ == "__main__":
    main()
