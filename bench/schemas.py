"""Per-action cost of the API's schema validation: jsonschema alone (the
validators built once and cached, as before issue 16) against the compiled
checks in front of it (fastjsonschema, server/service/schema_fast.py). Prints microseconds per action.

Run: .venv/bin/python bench/schemas.py [--n 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engines import registry  # noqa: E402
from server.service import schemas  # noqa: E402

#: What one action validates: the body, then its action's payload (real legal moves).
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("camelup", "pyramid", {}),
    ("camelup", "leg_bet", {"camel": "blue"}),
    ("camelup", "spectator", {"space": 7, "side": "cheer"}),
    ("kingup", "start", {}),
    ("countup", "undo", {}),
]


def per_action(n: int, fast: bool) -> float:
    """Median of 5 runs, CPU µs per action (the body plus the payload)."""
    work = []
    for game, atype, payload in CASES:
        engine = registry.get(game)
        assert engine is not None
        schema = schemas.action_schema(engine, atype)
        assert schema is not None, (game, atype)
        body = {"action": {"type": atype, **payload}, "request_id": "r-0123456789", "version": 42}
        work.append((schema, payload, body, f"{game}:{atype}"))
    saved = dict(schemas._VALIDATORS)
    if not fast:  # the cached validators without their compiled checks
        for schema, _, _, key in work:
            validator, _check = schemas._validator(key, schema)
            schemas._VALIDATORS[(key, id(schema))] = (validator, None)
        validator, _check = schemas._validator("action-body", schemas.ACTION_BODY)
        schemas._VALIDATORS[("action-body", id(schemas.ACTION_BODY))] = (validator, None)
    runs = []
    try:
        for _ in range(5):
            t = time.process_time()
            for i in range(n):
                schema, payload, body, key = work[i % len(work)]
                schemas.validate(schemas.ACTION_BODY, body, "action-body")
                schemas.validate(schema, payload, key)
            runs.append((time.process_time() - t) / n * 1e6)
    finally:
        schemas._VALIDATORS.clear()
        schemas._VALIDATORS.update(saved)
    return sorted(runs)[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    n = ap.parse_args().n
    before = per_action(n, fast=False)
    after = per_action(n, fast=True)
    print(f"load average: {os.getloadavg()[0]:.1f}")
    print(f"schema validation per action, jsonschema (cached validators): {before:.1f} µs")
    print(f"schema validation per action, compiled checks first:          {after:.1f} µs")
    print(f"speed-up: {before / after:.1f}×")


if __name__ == "__main__":
    main()
