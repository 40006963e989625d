"""Table routing (server/http/routing.py): every request and socket of a table
to the instance that owns it, by Fly's fly-replay answer."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections import Counter

import pytest
import websocket

from bench import replay_proxy
from conftest import free_port
from server.http.routing import Router, owner
from tests.server.livehelpers import LivePhone, http, open_live_table, socket_protocols

ROUTED = {"TABLEMATE_ROUTE": "fly"}
STATS = "routing-test-stats"


def test_every_instance_gets_a_share_and_a_leaving_one_moves_only_its_own() -> None:
    tables = [f"t{i}" for i in range(2000)]
    four = ["m1", "m2", "m3", "m4"]
    shares = Counter(owner(t, four) for t in tables)
    assert set(shares) == set(four) and min(shares.values()) > 2000 / 4 * 0.8, shares
    three = ["m1", "m2", "m4"]
    moved = [t for t in tables if owner(t, four) != owner(t, three)]
    assert moved and all(owner(t, four) == "m3" for t in moved)


def test_a_router_keeps_its_members_while_the_store_is_down() -> None:
    answers: list[list[str] | Exception] = [["m1", "m2"], ConnectionError("down"), ["m1"]]

    def beat(me: str) -> list[str]:
        got = answers.pop(0)
        if isinstance(got, Exception):
            raise got
        return got

    router = Router("m1", beat)
    router.refresh()
    table = next(t for t in (f"t{i}" for i in range(100)) if owner(t, ["m1", "m2"]) == "m2")
    assert router.elsewhere(table) == "m2"
    router.refresh()  # the store is down: the last members stand
    assert router.elsewhere(table) == "m2"
    router.refresh()
    assert router.elsewhere(table) is None


def routed_pair(app_server_factory, env: dict[str, str] | None = None):
    one = app_server_factory({**ROUTED, **(env or {}), "FLY_MACHINE_ID": "m1"})
    two = app_server_factory({**ROUTED, **(env or {}), "FLY_MACHINE_ID": "m2"})
    # Each knows the other once both have beaten: a table's request is routed
    # from then on (until then an instance serves what it gets, as before).
    probe = next(f"x{i}" for i in range(100) if owner(f"x{i}", ["m1", "m2"]) == "m2")
    deadline = time.monotonic() + 15
    while http(one.url, "GET", f"/api/tables/{probe}")[0] != 409:
        assert time.monotonic() < deadline, "m1 never learned of m2"
        time.sleep(0.2)
    return {"m1": one, "m2": two}


def test_a_table_request_at_the_wrong_instance_is_replayed_to_its_owner(app_server_factory) -> None:
    servers = routed_pair(app_server_factory)
    status, body = http(servers["m1"].url, "POST", "/api/tables", {"game": "toy", "name": "Host"})
    assert status == 201, body  # creating is served anywhere
    table = body["table"]
    mine = owner(table, ["m1", "m2"])
    assert mine is not None
    other = "m2" if mine == "m1" else "m1"
    right, wrong = servers[mine].url, servers[other].url
    # Joining is a table's request: at the wrong instance it is refused, at the owner served.
    status, refused = http(wrong, "POST", f"/api/tables/{table}/players", {"name": "P2"})
    assert status == 409 and refused["error"]["code"] == "wrong_instance", refused
    status, joined = http(right, "POST", f"/api/tables/{table}/players", {"name": "P2"})
    assert status == 201, joined
    host = LivePhone(right, table, "p1", body["player"]["token"])
    guest = LivePhone(right, table, joined["player"]["id"], joined["player"]["token"])
    status, body = http(right, "GET", f"/api/tables/{host.table}", None, host.token)
    assert status == 200, body
    version = body["version"]
    # At the other instance an action is not applied: the answer names the owner for Fly's proxy.
    host.base = wrong
    status, body = host.act_http("start")
    assert status == 409 and body["error"]["code"] == "wrong_instance", body
    status, body = http(right, "GET", f"/api/tables/{host.table}", None, host.token)
    assert body["version"] == version, "the refused request changed nothing"
    # The header itself, as Fly's proxy reads it.
    req = urllib.request.Request(f"{wrong}/api/tables/{host.table}", method="GET")
    try:
        urllib.request.urlopen(req, timeout=5)
        pytest.fail("served at the wrong instance")
    except urllib.error.HTTPError as e:
        assert e.headers["fly-replay"] == f"prefer_instance={mine}"
    # A socket's upgrade too: refused before the upgrade, with the same header.
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(wrong.replace("http", "ws", 1) + f"/api/tables/{host.table}/ws",
                                    timeout=5, subprotocols=socket_protocols(guest.token))
    assert refused.value.status_code == 409
    assert refused.value.resp_headers["fly-replay"] == f"prefer_instance={mine}"
    # Fly's replay (fly-replay-src) is served wherever it lands: never bounced twice.
    req = urllib.request.Request(f"{wrong}/api/tables/{host.table}",
                                 headers={"Fly-Replay-Src": f"instance={other}"}, method="GET")
    with urllib.request.urlopen(req, timeout=5) as r:
        assert r.status == 200
    # At its owner everything works: the phones, the action, the socket.
    host.base = right
    phone = LivePhone(right, host.table, guest.id, guest.token)
    phone.connect()
    assert host.act_http("start")[0] == 200
    phone.wait_version(version + 1)


def test_requests_without_a_table_are_served_anywhere(app_server_factory) -> None:
    servers = routed_pair(app_server_factory)
    for server in servers.values():
        assert http(server.url, "GET", "/api/games")[0] == 200
        status, body = http(server.url, "POST", "/api/tables", {"game": "toy", "name": "Host"})
        assert status == 201, body


def test_phones_through_a_replaying_proxy_are_served_by_the_tables_owner(app_server_factory) -> None:
    """As deployed: every request through Fly's proxy (bench/replay_proxy.py
    plays it, as bench/load.py --route fly does), which lands each on either
    instance and replays a table's to its owner, a socket's upgrade included.
    The phones never see a 409, and each table is heard only at its owner."""
    servers = routed_pair(app_server_factory, {"TABLEMATE_STATS_TOKEN": STATS})
    proxy = replay_proxy.start({name: s.url for name, s in servers.items()}, free_port())
    try:
        tables = [open_live_table(proxy.base, joiners=1) for _ in range(4)]
        for host, guest in tables:
            guest.connect()
            status, body = host.act_http("start")
            assert status == 200, body
            guest.wait_version(body["version"])
        owned = Counter(owner(host.table, ["m1", "m2"]) for host, _ in tables)
        for name, server in servers.items():
            # Each socket is at its table's owner: an instance watches its own tables' channels only.
            _, health = http(server.url, "GET", "/healthz", None, STATS)
            assert health["redis"]["channels"] == owned[name], (name, health, owned)
        for _, guest in tables:
            guest.close()
    finally:
        counts = proxy.stop()
    # Creations, joins, starts and sockets dealt to both instances in turn:
    # some landed on the wrong one and were replayed; every socket upgraded.
    assert counts["replays"] >= 1 and counts["upgrades"] == 4 and counts["refused"] == 0, counts
