"""What a worker runs beside its requests: CPU-heavy, I/O-free work off the
event loop (``offload``), a push on a greenlet of its own (``start``), and the
garbage collector's settings (``tune``).

Under gevent (the production serving model) every socket of the process shares
one OS thread; a 300 ms computation there would stall them all. A real thread
from gevent's pool lets the event loop keep running between the interpreter's
GIL switches (5 ms) and while NumPy releases the GIL.

Each connected phone keeps a few hundred long-lived objects alive. CPython's
full (generation 2) collection walks all of them, which with 5,000 phones
stalls every socket of the process for a few hundred milliseconds. Freezing
what exists after start-up (modules, the app) and collecting less often keeps
full collections rare; reference counting still frees almost everything at
once, the collector only finds cycles. ``pauses`` keeps the longest full
collections seen (milliseconds), reported on ``/healthz`` as
``gc_max_pause_ms``; logging from inside a collection is unsafe.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def offload(fn: Callable[[], T]) -> T:
    try:
        from gevent import monkey
    except ImportError:  # gevent is a dependency, but the engines work without it
        return fn()
    if not monkey.is_module_patched("threading"):
        return fn()  # werkzeug or tests: a plain call on this thread
    import gevent

    result: T = gevent.get_hub().threadpool.apply(fn)  # gevent is untyped: its Any stops here
    return result


#: Whether gevent has patched threading, once it has (a worker patches it
#: before it serves, and nothing unpatches it).
_gevent = False


def _patched() -> bool:
    global _gevent
    if not _gevent:
        try:
            from gevent import monkey
        except ImportError:
            return False
        _gevent = bool(monkey.is_module_patched("threading"))
    return _gevent


def start(fn: Callable[..., Any], *args: Any) -> None:
    """Runs ``fn(*args)`` beside the caller and lets it run first, until it
    waits or ends: under gevent on a greenlet of its own (the caller goes on
    once it blocks, as after ``Thread.start``, which waits until the new
    thread runs), otherwise on a daemon thread. Under gevent a bare greenlet
    starts in about half a ``Thread``'s time (the ``runtime.start`` row of
    docs/performance.md, "Why each fast path exists"); the hub starts one for every push its listener or
    its rounds start (a commit's own push runs on the committing greenlet),
    and one writer for a socket that cannot take its frames at once."""
    if _patched():
        import gevent

        gevent.spawn_raw(fn, *args)
        gevent.sleep(0)  # after the new greenlet, queued first, has run
    else:
        threading.Thread(target=fn, args=args, daemon=True).start()


def semaphore(n: int) -> Any:
    """A bounded semaphore of ``n``, gevent's own under gevent. The patched
    ``threading.BoundedSemaphore`` is Python over a ``Condition``, and every
    release tests ownership with a non-blocking acquire that fails, after
    which gevent's lock yields to the hub (its aid to spin locks): a greenlet
    switch on every release. The store's pool takes one per Redis call (the
    ``runtime.semaphore`` row of docs/performance.md, "Why each fast path
    exists")."""
    if _patched():
        from gevent.lock import BoundedSemaphore

        return BoundedSemaphore(n)
    return threading.BoundedSemaphore(n)


# -- the garbage collector --------------------------------------------------

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
