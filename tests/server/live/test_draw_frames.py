"""A roll with the phones' hash chains (issue 38, "What it costs"): the
announce reaches the phones as one small ``draw`` frame, not a snapshot per
seat, and a draw that still waits tells them whom it waits for as its links
come (each instance looks at it: a link publishes nothing); a link makes no
version; the draw is one commit, one snapshot. Across two instances, so the
announce crosses the table's channel and both instances look at the links
(on a single Redis and on a cluster: the links key shares the table's slot)."""

from __future__ import annotations

from typing import Any

from tablemate_verify.chain import make_chain
from tests.server.livehelpers import LivePhone, open_live_table


def told(phone: LivePhone) -> dict[str, Any]:
    """The next message but the heartbeat's."""
    while (msg := phone.recv())["type"] == "pong":
        pass
    return msg


def until_state(phone: LivePhone, above: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every message up to the first snapshot above version ``above``."""
    seen: list[dict[str, Any]] = []
    while True:
        msg = told(phone)
        if msg["type"] == "state" and msg["version"] > above:
            return seen, msg
        seen.append(msg)


def roll_announced(app_server_factory: Any) -> tuple[list[LivePhone], list[list[str]], LivePhone, int, int]:
    """Three phones on two instances, each with a chain anchored, and a roll
    announced: the phones, their chains, the roller, the draw's id and the
    version the table had at the announce."""
    one, two = app_server_factory(), app_server_factory()
    phones = open_live_table(one.url, joiners=2, game="camelup")
    for p, base in zip(phones, (one.url, two.url, one.url), strict=True):
        p.connect(base)
    status, body = phones[0].act_http("start")
    assert status == 200, body
    chains = [make_chain(8, f"{i + 1:02x}" * 32) for i in range(3)]
    for p, c in zip(phones, chains, strict=True):
        status, body = p.act_http("anchor", anchor=c[0], length=8)
        assert status == 200, body
    anchored = body["version"]
    snaps = [p.wait_version(anchored) for p in phones]
    roller = next(p for p in phones if p.id == snaps[0]["view"]["waiting"][0])
    status, body = roller.act_http("pyramid")
    assert status == 200, body
    draw = body["events"][0]["draw"]
    assert body["events"][0]["type"] == "draw_pending" and draw == anchored + 1
    return phones, chains, roller, draw, anchored


def test_links_go_out_as_draw_frames_and_the_draw_is_one_snapshot(app_server_factory) -> None:
    phones, chains, roller, draw, anchored = roll_announced(app_server_factory)
    # The announce: one draw frame each, waiting for every phone; no snapshot.
    for p in phones:
        msg = told(p)
        assert msg["type"] == "draw" and msg["pending"]["draw"] == draw, msg
        assert msg["pending"]["waiting"] == ["p1", "p2", "p3"]
    # The roller again: its decision (the document shows no draw) lets it through; the store does not.
    status, body = roller.act_http("pyramid")
    assert status == 409 and body["error"]["code"] == "draw_pending", body
    # Two links: kept beside the document, no version; each phone hears whom the draw still waits for
    # (the links come slower than a roll's: each instance's look at the waiting draw tells its phones).
    for i in range(2):
        status, body = phones[i].act_http("link", draw=draw, link=chains[i][1])
        assert status == 200, body
        assert body == {"version": draw - 1, "events": [{"type": "linked", "player": phones[i].id, "draw": draw}]}
        for p in phones:
            msg = told(p)
            assert msg["type"] == "draw" and msg["version"] == draw - 1, msg
            assert msg["pending"]["waiting"] == [q.id for q in phones[i + 1:]]
    status, body = phones[2].act_http("link", draw=draw, link=chains[2][1])
    assert status == 200, body
    assert body["version"] == draw and any(e["type"] == "die_rolled" for e in body["events"])
    for p in phones:
        before, snap = until_state(p, anchored)
        # The draw is the one commit after the announce: one snapshot, no other.
        assert snap["version"] == draw and "pending" not in snap["fair"]
        assert all(m["type"] == "draw" for m in before), before
    for p in phones:
        p.close()


def test_a_rename_while_a_draw_waits_does_not_end_its_watch(app_server_factory) -> None:
    """A change that passes the waiting draw (a rename) goes out as a snapshot
    showing the draw still waiting; the links after it still reach every phone
    as draw frames (the hubs' watch of the draw went on past the rename's
    version; it used to end there, and the phones kept the rename's waiting
    list until the draw was made)."""
    phones, chains, _, draw, anchored = roll_announced(app_server_factory)
    for p in phones:
        assert told(p)["type"] == "draw"
    status, body = phones[2].act_http("rename", player=phones[2].id, name="Zed")
    assert status == 200, body
    for p in phones:
        _, snap = until_state(p, anchored)
        assert snap["fair"]["pending"]["draw"] == draw and snap["fair"]["pending"]["waiting"] == ["p1", "p2", "p3"]
    for i in range(2):
        status, body = phones[i].act_http("link", draw=draw, link=chains[i][1])
        assert status == 200, body
        for p in phones:
            msg = told(p)
            assert msg["type"] == "draw" and msg["pending"]["waiting"] == [q.id for q in phones[i + 1:]], msg
    status, body = phones[2].act_http("link", draw=draw, link=chains[2][1])
    assert status == 200 and any(e["type"] == "die_rolled" for e in body["events"]), body
    for p in phones:
        _, snap = until_state(p, anchored + 1)
        assert "pending" not in snap["fair"] and snap["version"] == body["version"]
        p.close()
