"""Serves the static PWA from web/: the app shell for / and /t/<id>, every
file compressed (brotli or gzip, as the phone asks) and, under its versioned
URL, cacheable for good.

Compression is Flask-Compress, for the files and the JSON API alike. Not
WhiteNoise: it serves only files compressed beforehand by a build step, runs
as WSGI middleware outside Flask (so the security headers of
server/http/security.py would not reach the files), and leaves the API alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, current_app, g, request
from flask_compress import Compress

from server.http import security
from server.http.assets import Assets

# The PWA sits beside the server package in the repository and in the image.
WEB = Path(os.environ.get("TABLEMATE_WEB_DIR") or Path(__file__).resolve().parents[2] / "web")
# Its bundles (scripts/build-web.sh), used while they match it. The app's
# config "WEB_BUILD" (a path, or None for none) overrides this.
BUILD = Path(os.environ.get("TABLEMATE_BUILD_DIR") or WEB.parent / "build" / "web")
IMMUTABLE = "public, max-age=31536000, immutable"
# The socket's endpoint (server/live/route.py): a WebSocket is never compressed here.
_SOCKET_ENDPOINTS = {"table_socket"}


class _AssetCache:
    """Flask-Compress's cache of compressed bodies, for files only: their bytes
    are fixed for the life of the process, an API response's are not. A key is
    "<algorithm>;<asset key>", and an empty asset key means "don't cache"."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self.data.get(key)

    def set(self, key: str, value: bytes) -> None:
        if not key.endswith(";"):
            self.data[key] = value


def _asset_key(_request: Any) -> str:
    return str(g.get("asset_key", ""))


def assets() -> Assets:
    found: Assets = current_app.extensions["tablemate.assets"]
    return found


def _send(body: bytes, mimetype: str, etag: str, cache: str, status: int = 200) -> Response:
    resp = Response(body, status=status, mimetype=mimetype)
    resp.set_etag(etag)
    resp.headers["Cache-Control"] = cache
    if status != 200:
        return resp
    g.asset_key = f"{request.path}@{etag}"
    # For files left uncompressed (images); Flask-Compress does the same for
    # the rest, against the ETag it gives the compressed body.
    resp.make_conditional(request)
    return resp


def _index(game: str | None, status: int = 200) -> Response:
    a = assets()
    body = a.index_html(game)
    # Revalidated every visit: it names this deploy's versioned files.
    resp = _send(body, "text/html", f"{a.version}-{game or ''}", "no-cache", status)
    resp.headers["Content-Security-Policy"] = a.csp(security.csp(current_app.config["PUBLIC_URL"]))
    return resp


def init_app(app: Flask) -> None:
    from server.http.views import games_body

    # The engines are fixed for the life of the process, and so is their list.
    build = app.config.get("WEB_BUILD", BUILD)
    app.extensions["tablemate.assets"] = Assets(WEB, games_body(app.extensions["tablemate"].engines()),
                                                None if build is None else Path(build))
    for key, value in {
        "COMPRESS_ALGORITHM": ["br", "gzip"],
        "COMPRESS_MIN_SIZE": 500,  # below that, the headers cost more than they save
        "COMPRESS_CACHE_BACKEND": _AssetCache,
        "COMPRESS_CACHE_KEY": _asset_key,
        "COMPRESS_REGISTER": False,
    }.items():
        app.config.setdefault(key, value)
    compress = Compress(app)

    @app.after_request
    def compressed(resp: Response) -> Response:
        if request.endpoint in _SOCKET_ENDPOINTS or resp.status_code == 101:
            return resp
        return compress.after_request(resp)

    @app.get("/")
    def index() -> Any:
        return _index(None)

    @app.get("/t/<table_id>")
    def table_page(table_id: str) -> Any:
        tables = current_app.extensions["tablemate"].tables
        # An expired link still gets the app (which shows the expired page),
        # but with a 404 status so crawlers and checks see the truth.
        try:
            doc = tables.load(table_id)
        except Exception:
            return _index(None, 404)
        game = doc.get("game")
        return _index(game if isinstance(game, str) else None)

    @app.get("/<path:filename>")
    def static_file(filename: str) -> Any:
        if filename.startswith("api/") or ".." in filename:
            abort(404)
        a = assets()
        path = "/" + filename
        if path == "/index.html":
            return _index(None)
        if path == "/sw.js":
            # The browser compares sw.js byte for byte to find a new version.
            return _send(a.sw_body, "text/javascript", a.version, "no-cache")
        asset = a.files.get(path) or a.built.get(path)
        if asset is None:
            if "." not in path.rsplit("/", 1)[-1]:
                # A mistyped page address (/foo, /t/): the app's own not-found
                # page, in the phone's language, with a 404 status.
                return _index(None, 404)
            abort(404)
        # Only the URL naming this very content may be kept for good; an old
        # or missing ?v= gets the current file, revalidated.
        fresh = asset.named or (request.args.get("v") == asset.digest and a.is_app_file(path))
        security.mark_subresource()
        return _send(asset.body, asset.mimetype, asset.digest, IMMUTABLE if fresh else "no-cache")
