"""Per-table channels (issue 32): an instance hears the changes of the tables
its phones are on, and only those, on a single Redis and on a cluster."""

from __future__ import annotations

import time
from typing import Any

from tests.server.livehelpers import LivePhone, http, open_live_table

STATS = {"TABLEMATE_STATS_TOKEN": "ops", "TABLEMATE_FIXED_RANDOM": "1"}


def heard(base: str) -> dict[str, Any]:
    status, body = http(base, "GET", "/healthz", token="ops")
    assert status == 200, body
    return dict(body["redis"])


def settle(base: str, want: int, key: str = "channels") -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while (got := heard(base))[key] != want:
        assert time.monotonic() < deadline, got
        time.sleep(0.05)
    return got


def test_an_instance_hears_only_the_tables_its_phones_are_on(app_server_factory) -> None:
    one, two = app_server_factory(STATS), app_server_factory(STATS)
    mine = open_live_table(one.url, joiners=1)
    theirs = open_live_table(two.url, joiners=1)
    for p in mine:
        p.connect(one.url)
    for p in theirs:
        p.connect(two.url)
    assert mine[0].act_http("start")[0] == 200
    assert theirs[0].act_http("start")[0] == 200
    settle(one.url, 1)
    before = settle(two.url, 1)
    # Twenty changes of one's table, made through two: only one hears them
    # (two has no phone there), and each phone of it gets every version.
    for i in range(20):
        status, body = LivePhone(two.url, mine[0].table, mine[0].id, mine[0].token).act_http(
            "note", text=f"n{i}")
        assert status == 200, body
    for p in mine:
        p.wait_version(body["version"])
    after = heard(two.url)
    assert after["messages"] == before["messages"], "two heard none of one's table"
    assert heard(one.url)["messages"] >= 20
    assert after["foreign"] == 0
    # The last phone of a table leaves: its instance stops hearing it.
    for p in theirs:
        p.close()
    gone = settle(two.url, 0)
    status, _ = theirs[0].act_http("note", text="nobody here")
    assert status == 200
    time.sleep(0.3)
    assert heard(two.url)["messages"] == gone["messages"]
    for p in mine:
        p.close()


def test_a_phone_on_another_instance_hears_a_change_at_once(app_server_factory) -> None:
    """The change is published on its table's channel; the instance with the
    phone is subscribed before the phone's first snapshot is read."""
    one, two = app_server_factory(STATS), app_server_factory(STATS)
    host, guest = open_live_table(one.url, joiners=1)
    guest.connect(two.url)
    status, body = host.act_http("rename", player=host.id, name="Changed")
    assert status == 200
    snap = guest.wait_version(body["version"])
    assert snap["players"][0]["name"] == "Changed"
    guest.close()
    assert http(one.url, "GET", "/healthz")[1] == {"ok": True}, "figures for the operator only"


def test_an_instance_hears_new_tables_after_letting_one_go(app_server_factory) -> None:
    """The last phone of a table on an instance leaves (the instance unwatches
    its channel) while the listener is reading: the instance takes that phone
    off the table's presence at once (not by expiry, as a dead instance's) and
    still hears a table opened after it. With redis-py 8.2's per-node I/O lock,
    a cluster instance hung in that unwatch and went deaf: the phone stayed
    present, and new sockets never got their first state."""
    one, two = app_server_factory(), app_server_factory()
    for _ in range(2):
        host, guest = open_live_table(one.url, joiners=1)
        host.connect(one.url)
        guest.connect(two.url)
        time.sleep(1.5)  # the listener's reader is inside a read, and has read before
        guest.close()
        deadline = time.monotonic() + 5
        while True:
            status, body = http(one.url, "GET", f"/api/tables/{host.table}", None, host.token)
            assert status == 200, body
            if [p["id"] for p in body["players"] if p["connected"]] == ["p1"]:
                break
            assert time.monotonic() < deadline, "the closed socket was never taken off the presence"
            time.sleep(0.05)
        host.close()
        fresh = open_live_table(two.url, joiners=0)[0]
        assert fresh.connect(two.url)["version"] >= 1, "a new table's socket got its first state"
        fresh.close()
