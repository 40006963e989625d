"""Headers, origin checks, client addresses and log redaction."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, request

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self' ws: wss:; manifest-src 'self'; worker-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"
)

_TOKEN_RE = re.compile(r"(token=|rejoin=|Bearer\s+)[A-Za-z0-9_\-]+")


def redact(text: str) -> str:
    """Removes tokens from a log line.

    >>> redact('GET /api/tables/x/ws?token=abcDEF_12-3 HTTP/1.1')
    'GET /api/tables/x/ws?token=*** HTTP/1.1'
    """
    return _TOKEN_RE.sub(r"\1***", text)


class RedactTokens(logging.Filter):
    """Werkzeug's access log prints query strings; tokens must never reach a log."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        record.msg = redact(str(record.msg))
        return True


def client_address() -> str:
    if current_app.config["TRUST_PROXY"]:
        fly = request.headers.get("Fly-Client-IP")
        if fly:
            return fly
        fwd = request.headers.get("X-Forwarded-For")
        if fwd:
            return fwd.split(",")[0].strip()
    return request.remote_addr or "unknown"


def origin_ok() -> bool:
    """A browser's WebSocket must come from a page of this site."""
    origin = request.headers.get("Origin")
    if not origin:
        return True  # not a browser; the token still decides
    return urlsplit(origin).netloc == request.host


def set_headers(resp: Response) -> Response:
    h: Any = resp.headers
    h.setdefault("Content-Security-Policy", CSP)
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("Referrer-Policy", "no-referrer")
    h.setdefault("X-Frame-Options", "DENY")
    h.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=(), accelerometer=(self), gyroscope=(self)")
    h.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    if request.path.startswith("/api/"):
        h.setdefault("Cache-Control", "no-store")
    return resp


def init_app(app: Flask) -> None:
    app.after_request(set_headers)
    for name in ("werkzeug", "gunicorn.access", "gunicorn.error"):
        logging.getLogger(name).addFilter(RedactTokens())
