"""Serves the static PWA from web/: the app shell for / and /t/<id>."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask, abort, current_app, send_from_directory

# The PWA sits beside the server package in the repository and in the image.
WEB = Path(os.environ.get("TABLEMATE_WEB_DIR") or Path(__file__).resolve().parent.parent / "web")


def _send(path: str, status: int = 200) -> Any:
    resp = send_from_directory(WEB, path, max_age=0)
    resp.status_code = status
    # Revalidate every time: the service worker keeps the versioned shell.
    resp.headers["Cache-Control"] = "no-cache"
    return resp


def init_app(app: Flask) -> None:
    @app.get("/")
    def index() -> Any:
        return _send("index.html")

    @app.get("/t/<table_id>")
    def table_page(table_id: str) -> Any:
        tables = current_app.extensions["tablemate"].tables
        # An expired link still gets the app (which shows the expired page),
        # but with a 404 status so crawlers and checks see the truth.
        try:
            tables.load(table_id)
            return _send("index.html")
        except Exception:
            return _send("index.html", 404)

    @app.get("/<path:filename>")
    def static_file(filename: str) -> Any:
        if filename.startswith("api/") or ".." in filename:
            abort(404)
        return _send(filename)
