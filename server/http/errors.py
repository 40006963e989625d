"""Every error the HTTP adapter answers, as the one JSON envelope: a
``ServiceError`` with the status its kind maps to (and ``Retry-After`` when
it says when to retry), the store's outage, werkzeug's own refusals (an
unknown route, a body over the limit) and anything unforeseen."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from server.errors import ErrorKind, ServiceError, StoreDown, envelope, store_unavailable

#: The HTTP status of each kind of refusal.
STATUS: dict[ErrorKind, int] = {
    "invalid": 400, "unauthorized": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
    "rate_limited": 429, "unavailable": 503,
}


def answer(exc: ServiceError) -> tuple[Any, int, dict[str, str]]:
    """The response to a refusal: its envelope, its status and headers."""
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else {}
    return jsonify(exc.envelope()), STATUS[exc.kind], headers


def init_app(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def refused(exc: ServiceError) -> Any:
        return answer(exc)

    def store_down(exc: Exception) -> Any:
        app.logger.warning("store error: %s: %s", type(exc).__name__, exc)
        return answer(store_unavailable())

    for kind in StoreDown:
        app.register_error_handler(kind, store_down)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        codes = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
        code = codes.get(exc.code or 500, "http_error")
        return jsonify(envelope(code, exc.description or exc.name)), exc.code

    @app.errorhandler(Exception)
    def crash(exc: Exception) -> Any:
        app.logger.exception("unhandled error")
        return jsonify(envelope("internal", "Something went wrong on the server.")), 500
