"""A draw's announce is no commit (issue 38, "What it costs"): it writes the
pending draw into the links key only (``links.ANNOUNCE``), and the store
itself refuses every other change while that draw waits, but the few that
pass it (``draws.DURING``), which carry it in their document."""

from __future__ import annotations

import json

from server.errors import ServiceError
from server.service import Tables
from server.store import Store
from server.store.keys import channel_key, log_key
from tests.server.service.test_draws import (
    Phone,
    anchor_all,
    refused,
    seated,
    snap,
    tables_with,
    turn,
)


def started(tables: Tables) -> tuple[str, list[Phone]]:
    tid, phones = seated(tables, 3)
    tables.act(tid, phones[0].token, {"action": {"type": "start"}, "request_id": "s"})
    anchor_all(tables, tid, phones)
    return tid, phones


def test_the_announce_bumps_no_version_writes_no_log_line_and_a_retry_gets_its_first_answer(store: Store) -> None:
    tables = tables_with(store, 3600.0)
    tid, phones = started(tables)
    raw, commits, lines = store.load_raw(tid), store.commits, store.r.llen(log_key(tid))
    roller = turn(tables, tid, phones)
    body = {"action": {"type": "pyramid"}, "request_id": "roll-1"}
    out = dict(tables.act(tid, roller.token, body))
    base = tables.load(tid)["version"]
    assert out["version"] == base and out["events"][0]["type"] == "draw_pending"
    assert out["events"][0]["draw"] == base + 1, "the id: the version the draw will commit as"
    assert store.load_raw(tid) == raw and store.commits == commits and store.r.llen(log_key(tid)) == lines
    # The same request again: its first answer, no second draw.
    assert dict(tables.act(tid, roller.token, body)) == out
    assert store.links(tid)["_pending"]["rid"] == "roll-1"
    # The draw's commit is the roll's one version and one log line.
    for p in phones:
        last = p.answer(tables, tid, out["events"][0]["draw"])
    assert last["version"] == base + 1 and store.r.llen(log_key(tid)) == lines + 1
    assert store.log(tid)[-1]["action"]["type"] == "pyramid"


def test_a_reload_while_a_draw_waits_shows_it(store: Store) -> None:
    tables = tables_with(store, 3600.0)
    tid, phones = started(tables)
    out = dict(tables.act(tid, turn(tables, tid, phones).token, {"action": {"type": "pyramid"}, "request_id": "r"}))
    draw = out["events"][0]["draw"]
    phones[1].answer(tables, tid, draw)
    # HTTP GET and a socket's first snapshot read the document with the links key.
    for doc in (tables.load(tid), tables.find(tid)):
        assert doc is not None
        pending = tables.snapshot(doc, "p3")["fair"]["pending"]
        assert pending["draw"] == draw and pending["waiting"] == ["p1", "p3"]
    assert not any(a["type"] == "pyramid" for a in snap(tables, tid, "p3")["legal"])


def test_a_change_during_a_draw_is_refused_by_the_store_though_its_decision_did_not_see_the_draw(
        store: Store) -> None:
    """The document never shows the draw (it is the links key's), so these
    decisions all let the change through: the commit script refuses it."""
    tables = tables_with(store, 3600.0)
    tid, phones = started(tables)
    roller = turn(tables, tid, phones)
    out = dict(tables.act(tid, roller.token, {"action": {"type": "pyramid"}, "request_id": "r"}))
    draw = out["events"][0]["draw"]
    assert "pending" not in tables.store.load(tid)["fair"]  # type: ignore[index]
    refused("draw_pending", tables, tid, roller.token, "pyramid")
    before = store.load_raw(tid)
    try:
        tables.join(tid, {"name": "Late"})
    except ServiceError as exc:
        assert exc.code in ("draw_pending", "game_started")
    assert store.load_raw(tid) == before
    # A table change that passes a draw carries it: its fan-out still shows the draw waiting.
    renamed = dict(tables.act(tid, phones[0].token, {"action": {"type": "rename", "player": "p2", "name": "Bo"},
                                                     "request_id": "n"}))
    stored = store.load(tid)
    assert stored is not None and stored["fair"]["pending"]["draw"] == draw  # type: ignore[typeddict-item]
    assert renamed["version"] == draw
    for p in phones:
        last = p.answer(tables, tid, draw)
    assert last["version"] == draw + 1 and "pending" not in store.load(tid)["fair"]  # type: ignore[index]
    assert any(e["type"] == "die_rolled" for e in last["events"])


def test_only_the_announce_is_published_and_the_waiting_draw_is_read_when_asked(store: Store) -> None:
    """A roll's links publish nothing (they come within milliseconds, and the
    draw's snapshot follows): the table's channel carries the announce and
    the draw's change only. Whom a slow draw still waits for is read when a
    hub looks (``Store.draw_frame``; live/hub.py ``_watch_draw``), as the
    announce's frame with the links taken since."""
    tables = tables_with(store, 3600.0)
    tid, phones = started(tables)
    heard = store.r.pubsub(ignore_subscribe_messages=True)
    heard.ssubscribe(channel_key(tid))
    assert store.draw_frame(tid) is None
    version = tables.load(tid)["version"]
    out = dict(tables.act(tid, turn(tables, tid, phones).token, {"action": {"type": "pyramid"}, "request_id": "r"}))
    draw = out["events"][0]["draw"]
    frame = store.draw_frame(tid)
    assert frame is not None and (frame.draw, frame.version, frame.waiting) == (draw, version, ["p1", "p2", "p3"])
    for i, p in enumerate(phones[:2]):
        p.answer(tables, tid, draw)
        frame = store.draw_frame(tid)
        assert frame is not None and frame.waiting == [q.seat for q in phones[i + 1:]]
        sent = json.loads(frame.frame)
        assert sent["type"] == "draw" and sent["version"] == version
        assert sent["pending"]["draw"] == draw and sent["pending"]["waiting"] == frame.waiting
    phones[2].answer(tables, tid, draw)
    assert store.draw_frame(tid) is None
    messages = []
    for _ in range(6):  # until a quiet half second after the subscription's confirmation
        m = heard.get_sharded_message(timeout=0.5)
        if m is not None:
            messages.append(json.loads(m["data"].split(',"f":')[0].split(',"d":')[0] + "}"))
        elif messages:
            break
    heard.close()
    assert [("w" in m, m.get("v")) for m in messages] == [(True, None), (False, draw)], messages
