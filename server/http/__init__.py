"""The HTTP adapter: the /api views (``views.py``), the errors they answer
(``errors.py``), the static PWA (``static.py``, ``assets.py``), security
headers (``security.py``), the OpenAPI document and QR codes."""

from __future__ import annotations

from flask import Flask

from server.http import errors, security, static, views


def init_app(app: Flask) -> None:
    security.init_app(app)
    app.register_blueprint(views.bp)
    errors.init_app(app)
    static.init_app(app)
