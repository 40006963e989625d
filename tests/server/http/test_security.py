"""Headers, size limits, rate limits across instances, tokens kept out of logs."""

from __future__ import annotations

import json
import logging

import pytest
import websocket

from server import create_app
from server.http.security import RedactTokens
from tests.server.livehelpers import open_live_table
from tests.toy_engine import TOY


def test_security_headers_and_csp(client) -> None:
    r = client.get("/healthz")
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert client.get("/api/games").headers["Cache-Control"] == "no-store"


def test_healthz_shows_the_process_figures_to_the_operator_only(redis_url: str) -> None:
    """How many sockets a server holds tells an attacker whether a flood works."""
    app = create_app({"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY], "STATS_TOKEN": "operator-secret"})
    client = app.test_client()
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Bearer operator-secre"}):
        assert client.get("/healthz", headers=headers).json == {"ok": True}
    stats = client.get("/healthz", headers={"Authorization": "Bearer operator-secret"}).json
    assert stats["ok"] is True and stats["sockets"] == 0 and "gc_max_pause_ms" in stats
    unset = create_app({"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY]}).test_client()
    assert unset.get("/healthz", headers={"Authorization": "Bearer "}).json == {"ok": True}


DOCUMENT_ONLY = ("Content-Security-Policy", "X-Frame-Options", "Permissions-Policy", "Cross-Origin-Opener-Policy")


@pytest.mark.parametrize("path", ["/", "/sw.js", "/t/NOPE12", "/nowhere", "/api/games"])
def test_pages_workers_and_the_api_carry_every_header(client, path) -> None:
    r = client.get(path)
    for name in (*DOCUMENT_ONLY, "X-Content-Type-Options", "Referrer-Policy"):
        assert name in r.headers, (path, name)


@pytest.mark.parametrize("path", ["/app.js", "/style.css", "/i18n/en.json", "/icons/icon-48.png", "/manifest.webmanifest"])
def test_app_files_carry_only_the_headers_that_act_on_a_file(client, path) -> None:
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert not [name for name in DOCUMENT_ONLY if name in r.headers], path


def test_app_files_keep_hsts_behind_https(app) -> None:
    before = app.config["PUBLIC_URL"]
    app.config["PUBLIC_URL"] = "https://t.example"
    try:
        r = app.test_client().get("/app.js")
    finally:
        app.config["PUBLIC_URL"] = before
    assert r.headers["Strict-Transport-Security"].startswith("max-age=")


def test_request_size_is_limited(client) -> None:
    r = client.post("/api/tables", data=json.dumps({"game": "toy", "name": "x" * 100_000}),
                    content_type="application/json")
    assert r.status_code == 413 and r.json["error"]["code"] == "too_large"


def test_rate_limits_hold_across_instances(redis_url) -> None:
    cfg = {"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY], "RATE_CREATE": 3, "RATE_CODE": 2, "RATE_JOIN": 2}
    a, b = create_app(cfg).test_client(), create_app(cfg).test_client()
    codes = [c.post("/api/tables", json={"game": "toy", "name": "x"}).status_code for c in (a, b, a)]
    assert codes == [201, 201, 201]
    r = b.post("/api/tables", json={"game": "toy", "name": "x"})
    assert r.status_code == 429 and r.json["error"]["code"] == "rate_limited"
    assert 1 <= int(r.headers["Retry-After"]) <= 61
    assert [c.get("/api/codes/AAAAAA").status_code for c in (a, b)] == [404, 404]
    r = a.get("/api/codes/AAAAAA")
    assert r.status_code == 429 and "Retry-After" in r.headers, "code guessing is slowed down"
    other = a.get("/api/codes/AAAAAA", environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 404, "limits are per client address"


def test_log_filter_redacts_tokens() -> None:
    record = logging.LogRecord("werkzeug", logging.INFO, __file__, 1,
                               '%s - "%s" %s', ("127.0.0.1", "GET /api/tables/x/ws?token=SeCrEt_123-x HTTP/1.1", "101"),
                               None)
    RedactTokens().filter(record)
    assert "SeCrEt" not in record.getMessage() and "token=***" in record.getMessage()


def test_tokens_never_reach_server_logs(app_server_factory) -> None:
    server = app_server_factory()
    host, a = open_live_table(server.url, joiners=1)
    host.connect()
    a.connect()
    host.close()
    a.close()
    logs = server.logs()
    assert host.token not in logs and a.token not in logs


@pytest.fixture
def live(app_server_factory):
    return app_server_factory()


def test_huge_frame_closes_only_that_socket(live) -> None:
    host, a = open_live_table(live.url, joiners=1)
    host.connect()
    a.connect()
    host.ws.send("x" * 100_000)
    with pytest.raises((websocket.WebSocketConnectionClosedException, ConnectionError, OSError)):
        for _ in range(5):
            host.recv(timeout=5)
    a.send({"type": "ping"})
    assert a.recv()["type"] == "pong", "the server and other sockets are unaffected"


def test_message_flood_is_rate_limited_then_closed(live) -> None:
    host, a = open_live_table(live.url, joiners=1)
    host.connect()
    a.connect()
    limited = 0
    closed = False
    # Lockstep: each ping's answer is read before the next is sent, still far
    # faster than the bucket refills. The server then closes a socket it has
    # read to the end: a close with a flood still unread would be a reset,
    # which throws away answers the client had not read yet (a loaded machine).
    try:
        for _ in range(400):
            host.ws.send(json.dumps({"type": "ping"}))
            msg = host.recv(timeout=5)
            if msg.get("type") == "error" and msg["error"]["code"] == "rate_limited":
                limited += 1
    except (websocket.WebSocketException, ConnectionError, OSError, TimeoutError):
        closed = True
    assert limited > 0 and closed
    a.send({"type": "ping"})
    assert a.recv()["type"] == "pong"
