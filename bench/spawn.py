"""CPU to start one fan-out beside the caller under gevent, as the hub does
for every push (``server/runtime.start``), against a patched ``threading.Thread``:

    .venv/bin/python bench/spawn.py [--n 20000] [--rounds 3]

Each start runs an empty target and lets it run before the caller goes on
(``Thread.start`` waits for the thread to run; ``start`` yields once).
Prints µs of process CPU per start, per round, in turn.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.runtime import start  # noqa: E402


def nothing() -> None:
    pass


def per_start(how: Callable[[], None], n: int) -> float:
    t = time.process_time()
    for _ in range(n):
        how()
    return (time.process_time() - t) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    ways: dict[str, Callable[[], None]] = {
        "threading.Thread(...).start()": lambda: threading.Thread(target=nothing, daemon=True).start(),
        "offload.start (a bare greenlet)": lambda: start(nothing),
    }
    for r in range(args.rounds):
        for name, how in ways.items():
            print(f"round {r + 1}: {name}: {per_start(how, args.n):.1f} µs a start")


if __name__ == "__main__":
    main()
