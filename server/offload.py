"""Running CPU-heavy, I/O-free work off the event loop.

Under gevent (the production serving model) every socket of the process shares
one OS thread; a 300 ms computation there would stall them all. A real thread
from gevent's pool lets the event loop keep running between the interpreter's
GIL switches (5 ms) and while NumPy releases the GIL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

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
