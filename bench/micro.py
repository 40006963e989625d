"""What the micro-benchmarks (``spawn.py``, ``seal.py``) share: the same two
flags and the same clock, so their figures read alike (µs of process CPU per
call, the mean of ``--n`` calls, ``--rounds`` times in turn)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable


def micro_args(doc: str | None, n: int = 20000, rounds: int = 3) -> argparse.ArgumentParser:
    """A parser with ``--n`` (calls per figure) and ``--rounds``; ``doc``: the
    script's docstring, whose first paragraph describes it."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--n", type=int, default=n)
    ap.add_argument("--rounds", type=int, default=rounds)
    return ap


def us_per_call(fn: Callable[[], object], n: int) -> float:
    """µs of process CPU per call of ``fn``, over ``n`` calls."""
    t = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t) / n * 1e6
