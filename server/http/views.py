"""HTTP adapter: each view parses, calls one service function, returns JSON."""

from __future__ import annotations

import hmac
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from engines.base import Engine
from server import wire
from server.client import client_address
from server.errors import ServiceError, store_unavailable
from server.http import qr
from server.model import TableDoc
from server.service import Tables, platform_actions, schemas
from server.service.history import HISTORY_PAGE, HISTORY_PAGE_MAX
from server.service.seats import CLAIM_TTL

if TYPE_CHECKING:  # server/__init__.py imports this module
    from server import Services

bp = Blueprint("api", __name__)


def services() -> Services:
    found: Services = current_app.extensions["tablemate"]
    return found


def tables() -> Tables:
    return services().tables


def _json() -> Any:
    """The body's JSON, parsed without trusting its depth (server/wire.py)."""
    if not request.is_json:
        raise ServiceError("invalid", "invalid_json", "The body must be a JSON object (Content-Type: application/json).")
    body = request.get_data(cache=False)
    if request.content_length is None and len(body) >= (current_app.config["MAX_CONTENT_LENGTH"] or len(body) + 1):
        # A chunked body (no Content-Length) is cut at the limit by werkzeug's
        # stream, not refused. What follows is read and dropped, up to a bound:
        # a socket closed with data unread is reset, and the reset loses the 413.
        left, raw = 1 << 20, request.environ["wsgi.input"]
        while left > 0 and (chunk := raw.read(min(left, 1 << 16))):
            left -= len(chunk)
        raise RequestEntityTooLarge()
    data = wire.parse(body)
    if data is None:
        raise ServiceError("invalid", "invalid_json", "The body must be a JSON object.")
    return data


def _token() -> str | None:
    """The bearer token, None when no Authorization header was sent."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        # A malformed header is a bad token, never a silent fall-back to spectator.
        return "\x00invalid"
    return token.strip()


def _limit(bucket: str, config_key: str) -> None:
    tables().limit(bucket, client_address(), current_app.config[config_key])


def base_url() -> str:
    return (current_app.config["PUBLIC_URL"] or request.host_url).rstrip("/")


def join_url(table_id: str) -> str:
    return f"{base_url()}/t/{table_id}"


@bp.post("/api/tables")
def create_table() -> Any:
    _limit("create", "RATE_CREATE")
    doc, token = tables().create(_json())
    tid = doc["id"]
    return jsonify({
        "table": tid, "code": doc["code"], "join_url": join_url(tid),
        "qr_svg": f"{base_url()}/api/tables/{tid}/qr.svg",
        "player": {"id": "p1", "token": token},
    }), 201


@bp.get("/api/codes/<code>")
def lookup_code(code: str) -> Any:
    _limit("code", "RATE_CODE")
    table, status = tables().table_for_code(code)
    return jsonify({"table": table, "status": status})


@bp.post("/api/tables/<table_id>/players")
def join(table_id: str) -> Any:
    _limit("join", "RATE_JOIN")
    body = _json()
    if isinstance(body, dict) and "phone" in body:
        # The host adds a seat without a phone: it gets no token.
        return jsonify({"player": {"id": tables().add_phoneless(table_id, _token(), body)}}), 201
    pid, token = tables().join(table_id, body)
    return jsonify({"player": {"id": pid, "token": token}}), 201


def _reader(table_id: str) -> tuple[Tables, TableDoc, str | None]:
    """The table, and who reads it (a seat id, None for a spectator) by the one token check."""
    t = tables()
    doc = t.load(table_id)
    seat = t.authenticate(doc, _token())
    return t, doc, seat["id"] if seat else None


@bp.get("/api/tables/<table_id>")
def get_table(table_id: str) -> Any:
    t, doc, reader = _reader(table_id)
    return jsonify(t.snapshot(doc, reader))


@bp.post("/api/tables/<table_id>/actions")
def act(table_id: str) -> Any:
    return jsonify(tables().act(table_id, _token() or None, _json()))


@bp.post("/api/tables/<table_id>/players/<player>/rejoin")
def rejoin(table_id: str, player: str) -> Any:
    t = tables()
    t.load(table_id)
    code = t.rejoin(table_id, _token(), player)
    url = f"{join_url(table_id)}#claim={code}"
    return jsonify({"player": {"id": player}, "claim": code, "expires_in": CLAIM_TTL,
                    "rejoin_url": url, "qr_svg": qr.svg(url)})


@bp.post("/api/tables/<table_id>/claim")
def claim(table_id: str) -> Any:
    # Counted with joins: a code is as hard to guess as a token, but every
    # guess costs a store round trip.
    _limit("join", "RATE_JOIN")
    pid, token = tables().claim(table_id, _json())
    return jsonify({"player": {"id": pid, "token": token}}), 201


def _int_arg(name: str, default: int | None, lo: int, hi: int) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return default
    # ASCII digits only ("²" is a digit to str.isdigit) and short enough for int().
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 10) or not lo <= int(raw) <= hi:
        raise ServiceError("invalid", "bad_query", f"{name} must be a whole number from {lo} to {hi}, not {raw[:20]!r}.")
    return int(raw)


@bp.get("/api/tables/<table_id>/history")
def history(table_id: str) -> Any:
    # ``lang`` is no longer read: the phone words the lines itself.
    t, _, _ = _reader(table_id)
    before = _int_arg("before", None, 1, 2**31)
    limit = _int_arg("limit", HISTORY_PAGE, 1, HISTORY_PAGE_MAX)
    assert limit is not None
    return jsonify(t.history(table_id, before, limit))


@bp.get("/api/tables/<table_id>/analysis")
def analysis(table_id: str) -> Any:
    t, doc, reader = _reader(table_id)
    return jsonify(t.analysis(doc, reader))


@bp.get("/api/tables/<table_id>/result")
def result(table_id: str) -> Any:
    t, doc, _ = _reader(table_id)
    # The phone's UTC offset in minutes (east positive), for BG Stats' local date.
    tz = request.args.get("tz", "0")
    # ASCII digits only: str.isdigit() also accepts "³" or "٣", which int() refuses.
    offset = int(tz) if re.fullmatch(r"-?[0-9]{1,4}", tz) else 0
    return jsonify(t.result(doc, max(-840, min(840, offset))))


@bp.get("/api/tables/<table_id>/proof")
def proof(table_id: str) -> Any:
    # Public like the history: a spectator (or the standalone checker) reads it too.
    t, _, _ = _reader(table_id)
    return jsonify(t.proof(table_id))


@bp.get("/api/tables/<table_id>/qr.svg")
def table_qr(table_id: str) -> Any:
    tables().load(table_id)
    return Response(qr.svg(join_url(table_id)), mimetype="image/svg+xml")


@bp.get("/api/tables/<table_id>/qr.png")
def table_qr_png(table_id: str) -> Any:
    tables().load(table_id)
    return Response(qr.png(join_url(table_id)), mimetype="image/png")


def game_info(engine: Engine) -> dict[str, Any]:
    defaults = schemas.options_with_defaults(engine, {})
    lo, hi = engine.player_limits(defaults)
    return {
        "name": engine.name, "title": engine.title, "min_players": lo, "max_players": hi,
        "options_schema": engine.options_schema, "actions": sorted(engine.action_schemas),
        "random_options": list(engine.random_option_fields), "host_actions": list(engine.host_actions),
        # The same for every game; here so a client needs no copy of the list.
        "platform_actions": list(platform_actions.SCHEMAS),
    }


def games_body(engines: Iterable[Engine]) -> dict[str, Any]:
    """What GET /api/games answers (and every page carries: server/http/static.py)."""
    return {"games": [game_info(e) for e in engines]}


@bp.get("/api/games")
def games() -> Any:
    return jsonify(games_body(services().engines()))


@bp.get("/api/openapi.json")
def openapi() -> Any:
    from server.http.openapi import document

    return jsonify(document(services().engines()))


@bp.get("/healthz")
def healthz() -> Any:
    """Whether this instance can reach its store and hear its tables'
    changes (503 ``store_unavailable`` when it cannot). The process's own figures
    (live sockets, the longest collector pause, what its listener heard from
    Redis and how many changes it committed) are for the operator only
    (``TABLEMATE_STATS_TOKEN`` as a bearer token): how busy a server is
    tells an attacker when a flood is working."""
    from server.runtime import max_pause_ms

    # Reaching the store is not enough: an instance whose listener cannot
    # hear its tables serves phones that never see another player's move.
    if not tables().ping() or services().hub.deaf() is not None:
        raise store_unavailable()
    body: dict[str, Any] = {"ok": True}
    secret = current_app.config.get("STATS_TOKEN")
    token = _token()
    if secret and token and hmac.compare_digest(token.encode(), secret.encode()):
        body.update(sockets=services().hub.count(), gc_max_pause_ms=max_pause_ms(),
                    redis=tables().stats())
    return jsonify(body)
