"""The host whose phone dies, on real sockets across two instances (issue 41,
item 0): once the host's seat has had no live socket for ``HOST_AWAY`` s, every
phone is told a stand-in holds host powers, the stand-in can use them, and
the host takes them back when its phone reconnects."""

from __future__ import annotations

from tests.server.livehelpers import history_entries, http, open_live_table


def test_host_powers_pass_on_and_come_back(app_server_factory) -> None:
    env = {"TABLEMATE_HOST_AWAY": "1"}
    one, two = app_server_factory(env), app_server_factory(env)
    host, a, b = open_live_table(one.url)
    host.connect(one.url)
    a.connect(two.url)
    b.connect(one.url)
    status, body = a.act_http("start")
    assert status == 403 and body["error"]["code"] == "not_host"

    host.close()  # the battery dies
    for phone in (a, b):
        snap = phone.wait_state(lambda s: s.get("host_away") == "p1", timeout=30)
        assert snap["host"] == "p2"
        assert [p["id"] for p in snap["players"] if p["host"]] == ["p2"]
    texts = [e["text"] for e in history_entries(two.url, host.table, a.token)]
    assert "Host's phone has been away for a while: P2 holds host powers until Host is back." in texts
    # The stand-in may do what the host did: here it brings the host's seat
    # back on another phone, sealed, and starts the game.
    status, body = http(two.url, "POST", f"/api/tables/{host.table}/players/p1/rejoin", {}, a.token)
    assert status == 200, body
    status, body = a.act_http("start")
    assert status == 200, body
    a.wait_state(lambda s: s["status"] == "playing")

    snap = host.connect(one.url)  # the host's phone is charged again
    if "host_away" in snap:
        snap = host.wait_state(lambda s: "host_away" not in s, timeout=30)
    assert snap["host"] == "p1"
    a.wait_state(lambda s: "host_away" not in s and s["host"] == "p1", timeout=30)
    status, body = a.act_http("undo")
    assert status == 403 and body["error"]["code"] == "not_host"
    texts = [e["text"] for e in history_entries(one.url, host.table, host.token)]
    assert texts[-1] == "Host is back and is the host again."
