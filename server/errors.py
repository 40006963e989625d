"""The one error type of the HTTP and WebSocket adapters."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error with a stable code, a human message and an HTTP status."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def envelope(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


def not_found() -> ApiError:
    return ApiError(404, "table_not_found", "This table does not exist or has expired.")


def bad_token() -> ApiError:
    return ApiError(401, "bad_token", "This seat's token is not valid for this table.")


def store_unavailable() -> ApiError:
    return ApiError(503, "store_unavailable", "The table store is unreachable; retrying shortly.")


def busy() -> ApiError:
    """The table stayed too contended to commit (``store.Conflict``): nothing was
    written, and the same request may simply be sent again."""
    return ApiError(503, "busy", "This table is busy right now; try again in a moment.",
                    headers={"Retry-After": "1"})


def rate_limited(wait: int, what: str = "requests") -> ApiError:
    """Over a limit (``Store.hit_many``): nothing was done; ``wait`` seconds on,
    the same request may be sent again."""
    return ApiError(429, "rate_limited", f"Too many {what}; retry in {wait} s.",
                    headers={"Retry-After": str(wait)})
