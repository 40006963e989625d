"""The one error type of the service and both adapters: ``ServiceError``.

A refusal says what kind of refusal it is (``ErrorKind``), never an HTTP status:
the HTTP adapter maps the kind to a status (``server/http/errors.py``), the
socket adapter sends the same envelope in an ``error`` frame. It sits below
every layer because the wire's parser (``server/wire.py``) refuses with it
too, and the service's own modules, the adapters and the tests all name it.
"""

from __future__ import annotations

from typing import Any, Literal

import redis

#: What went wrong, as a client can act on it (HTTP status in brackets):
#: ``invalid`` (400) the request itself, ``unauthorized`` (401) the token,
#: ``forbidden`` (403) who sends it, ``not_found`` (404) what it names,
#: ``conflict`` (409) the table's state, ``rate_limited`` (429) too many of
#: them, ``unavailable`` (503) the server, for now.
ErrorKind = Literal["invalid", "unauthorized", "forbidden", "not_found", "conflict", "rate_limited", "unavailable"]

#: What the store raises when Redis cannot be reached or fails: redis-py's
#: error, which the store's own client raises too, and its cluster client's
#: "no node answers at all" (``RedisClusterUnreachableError``, which is no
#: ``RedisError``: with every master down a request was a 500 and the presence
#: refresh logged a traceback a tick). A tuple, for ``except`` and ``isinstance``:
#: the adapters tell their clients ``store_unavailable`` and never need the
#: store's library.
StoreDown: tuple[type[Exception], ...] = (redis.RedisError, redis.exceptions.RedisClusterUnreachableError)
#: The same, or the socket under it (a listener's feed, the routing beat).
StoreOrSocketDown: tuple[type[Exception], ...] = (*StoreDown, OSError)


class ServiceError(Exception):
    """A refusal with a stable snake_case ``code``, a message a person reads,
    and its ``kind``; ``retry_after``: seconds after which the same request
    may be sent again (HTTP's ``Retry-After``), when that is known."""

    def __init__(self, kind: ErrorKind, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def envelope(self) -> dict[str, Any]:
        return envelope(self.code, self.message)


def envelope(code: str, message: str) -> dict[str, Any]:
    """The error envelope every client reads, over HTTP and in a socket's frames."""
    return {"error": {"code": code, "message": message}}


def not_found() -> ServiceError:
    return ServiceError("not_found", "table_not_found", "This table does not exist or has expired.")


def bad_token() -> ServiceError:
    return ServiceError("unauthorized", "bad_token", "This seat's token is not valid for this table.")


def store_unavailable() -> ServiceError:
    return ServiceError("unavailable", "store_unavailable", "The table store is unreachable; retrying shortly.")


def busy() -> ServiceError:
    """The table stayed too contended to commit (``store.Conflict``): nothing was
    written, and the same request may simply be sent again."""
    return ServiceError("unavailable", "busy", "This table is busy right now; try again in a moment.",
                        retry_after=1)


def rate_limited(wait: int, what: str = "requests") -> ServiceError:
    """Over a limit (``Rates.hit_many``): nothing was done; ``wait`` seconds on,
    the same request may be sent again."""
    return ServiceError("rate_limited", "rate_limited", f"Too many {what}; retry in {wait} s.", retry_after=wait)


#: A refusal or the store down: what a background round (``Liveness``) lets
#: pass and tries again at its next turn.
RefusedOrDown: tuple[type[Exception], ...] = (ServiceError, *StoreDown)
