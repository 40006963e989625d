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

import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.micro import micro_args, us_per_call  # noqa: E402
from server.runtime import start  # noqa: E402


def nothing() -> None:
    pass


def main() -> None:
    args = micro_args(__doc__).parse_args()
    ways: dict[str, Callable[[], None]] = {
        "threading.Thread(...).start()": lambda: threading.Thread(target=nothing, daemon=True).start(),
        "offload.start (a bare greenlet)": lambda: start(nothing),
    }
    for r in range(args.rounds):
        for name, how in ways.items():
            print(f"round {r + 1}: {name}: {us_per_call(how, args.n):.1f} µs a start")


if __name__ == "__main__":
    main()
