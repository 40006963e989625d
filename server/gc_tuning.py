"""Garbage-collector settings for a process holding thousands of sockets.

Each connected phone keeps a few hundred long-lived objects alive. CPython's
full (generation 2) collection walks all of them, which with 5,000 phones
stalls every socket of the process for a few hundred milliseconds. Freezing
what exists after start-up (modules, the app) and collecting less often keeps
full collections rare; reference counting still frees almost everything at
once, the collector only finds cycles.

``pauses`` keeps the longest full collections seen (milliseconds), reported on
``/healthz`` as ``gc_max_pause_ms``; logging from inside a collection is unsafe.
"""

from __future__ import annotations

import gc
import os
import time

_started = [0.0]
pauses: list[float] = []


def _watch(phase: str, info: dict[str, int]) -> None:
    if info.get("generation") != 2:
        return
    if phase == "start":
        _started[0] = time.perf_counter()
    else:
        pauses.append((time.perf_counter() - _started[0]) * 1000)
        if len(pauses) > 100:
            del pauses[:50]


def max_pause_ms() -> float:
    return round(max(pauses, default=0.0), 1)


def tune() -> None:
    gc.collect()
    gc.freeze()
    gen0 = int(os.environ.get("TABLEMATE_GC_THRESHOLD", "50000"))
    gc.set_threshold(gen0, 50, 1000)
    gc.callbacks.append(_watch)
