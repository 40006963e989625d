"""Running work beside the caller: CPU-heavy, I/O-free work off the event
loop (``offload``), and a fan-out on a thread of its own (``start``).

Under gevent (the production serving model) every socket of the process shares
one OS thread; a 300 ms computation there would stall them all. A real thread
from gevent's pool lets the event loop keep running between the interpreter's
GIL switches (5 ms) and while NumPy releases the GIL.
"""

from __future__ import annotations

import threading
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
    thread runs), otherwise on a daemon thread. Under gevent a ``Thread``
    costs ~23 µs to make and start and a bare greenlet ~11 µs
    (``bench/spawn.py``); the hub starts one for every push its listener or
    its rounds start (a commit's own push runs on the committing greenlet),
    and one writer for a socket that cannot take its frames at once."""
    if _patched():
        import gevent

        gevent.spawn_raw(fn, *args)
        gevent.sleep(0)  # after the new greenlet, queued first, has run
    else:
        threading.Thread(target=fn, args=args, daemon=True).start()
