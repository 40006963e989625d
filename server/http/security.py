"""Security headers (CSP, HSTS, ...) and log redaction; who sent a request
(address, Origin) is ``server/client.py``'s, as both adapters ask."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, g, request

_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src {connect}; manifest-src 'self'; worker-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"
)
HSTS = "max-age=31536000; includeSubDomains"


def csp(public_url: str | None) -> str:
    """The page may talk to its own origin only. ``'self'`` covers the same
    host's ws:/wss: in CSP 3; the public origin's socket scheme is listed too
    for browsers that predate that (Safari before 15.4).

    >>> "connect-src 'self' wss://t.example;" in csp("https://t.example")
    True
    >>> "connect-src 'self';" in csp(None)
    True
    """
    connect = "'self'"
    if public_url:
        parts = urlsplit(public_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        connect += f" {scheme}://{parts.netloc}"
    return _CSP.format(connect=connect)

_TOKEN_RE = re.compile(r"(token=|rejoin=|Bearer\s+)[A-Za-z0-9_\-]+")


def redact(text: str) -> str:
    """Removes tokens from a log line.

    >>> redact('GET /api/tables/x/ws?token=abcDEF_12-3 HTTP/1.1')
    'GET /api/tables/x/ws?token=*** HTTP/1.1'
    """
    return _TOKEN_RE.sub(r"\1***", text)


class RedactTokens(logging.Filter):
    """Access logs print query strings; tokens must never reach a log.

    Werkzeug passes the line's parts as a tuple, gunicorn's access log as a
    mapping of atoms (``%(r)s``, ``%(U)s``...): both are redacted in place and
    the record is always kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, Mapping):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in args.items()}
        elif args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
        record.msg = redact(str(record.msg))
        return True


def mark_subresource() -> None:
    """This response is a script, stylesheet, image or data file of the app
    (never a page or a worker): the headers that govern a document (what it
    may load, who may frame it, which devices it may use, its window group)
    do nothing on it, and over HTTP/1.1 they cost ~0.7 KB on each of a
    screen's dozens of files. Those that matter for a file stay: nosniff,
    the referrer policy (a stylesheet's own requests follow it) and HSTS."""
    g.subresource = True


def set_headers(resp: Response) -> Response:
    h: Any = resp.headers
    public = current_app.config["PUBLIC_URL"]
    document = not g.get("subresource", False)
    if document:
        h.setdefault("Content-Security-Policy", csp(public))
    if request.is_secure or (public or "").startswith("https://"):
        h.setdefault("Strict-Transport-Security", HSTS)
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("Referrer-Policy", "no-referrer")
    if document:
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
