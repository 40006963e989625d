"""Redis going away mid-game: clear 503s, phones told, the same tables continue."""

from __future__ import annotations

import subprocess
import tempfile

import pytest
import redis

from conftest import RedisServer, wait_for
from tests.server.livehelpers import http, open_live_table


@pytest.fixture
def persistent_redis():
    # Persistence on, as docs/deploy.md recommends, so a restart keeps tables.
    d = tempfile.mkdtemp(prefix="tm-redis-aof-")
    server = RedisServer(persist_dir=d)
    server.stop()
    args = [a if a != "no" else "yes" for a in server.args]  # --appendonly yes
    server.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: redis.Redis(port=server.port).ping(), what="redis with AOF")
    server.args = args
    yield server
    server.stop()


def test_redis_restart_mid_game(persistent_redis, app_server_factory) -> None:
    app = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"}, redis=persistent_redis.url)
    host, a = open_live_table(app.url, joiners=1)
    host.connect()
    a.connect()
    status, body = host.act_http("start")
    host.act_http("add", n=2)
    v = a.wait_version(body["version"] + 1)["version"]

    persistent_redis.stop()
    for method, path, payload, token in (
        ("GET", f"/api/tables/{host.table}", None, host.token),
        ("POST", f"/api/tables/{host.table}/actions", {"action": {"type": "note", "text": "x"}, "request_id": "x"}, a.token),
        ("POST", "/api/tables", {"game": "toy", "name": "x"}, None),
        ("GET", "/healthz", None, None),
    ):
        s, b = http(app.url, method, path, payload, token)
        assert s == 503 and b["error"]["code"] == "store_unavailable", (path, s, b)
    # Sockets tell the phone (the page shows "reconnecting"), and stay open.
    assert a.wait_message("error", timeout=15)["error"]["code"] == "store_unavailable"
    a.send({"type": "action", "action": {"type": "note", "text": "y"}, "request_id": "y"})
    assert a.wait_message("error", timeout=15)["error"]["code"] == "store_unavailable"

    persistent_redis.proc = subprocess.Popen(persistent_redis.args, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL)
    wait_for(lambda: redis.Redis(port=persistent_redis.port).ping(), what="redis back")
    wait_for(lambda: http(app.url, "GET", "/healthz")[0] == 200, what="health back")
    s, snap = http(app.url, "GET", f"/api/tables/{host.table}", None, host.token)
    assert s == 200 and snap["version"] == v and snap["status"] == "playing"
    # The phones get a fresh snapshot after the listener reconnects, then play goes on.
    a.version = 0
    a.wait_state(lambda m: m["version"] == v, timeout=20)
    s, body = a.act_http("add", n=1)
    assert s == 200 and body["version"] == v + 1
    assert host.wait_version(v + 1)["view"]["scores"]["p2"] >= 1
