"""A draw's announce is no commit (issue 38, "What it costs"): it writes the
pending draw into the links key only (``links.ANNOUNCE``), and the store
itself refuses every other change while that draw waits, but the few that
pass it (``draws.DURING``), which carry it in their document."""

from __future__ import annotations

import json
import time
from contextlib import closing
from typing import Any

import pytest

from server.errors import ServiceError
from server.service import Tables
from server.store import Store
from server.store.keys import channel_key, log_key
from tablemate_verify import OutcomeRng, check
from tablemate_verify.rules import verify
from tests.server.service.test_draws import (
    Phone,
    act,
    anchor_all,
    refused,
    roll,
    seated,
    snap,
    tables_with,
    turn,
)
from tests.server.service.test_fair_table import tamper


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
    hub looks (``Store.draw_frame``; live/drawwatch.py), as the
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
def _frame(sub: Any, tid: str) -> dict[str, Any]:
    """The next ``draw`` frame the table's channel carried."""
    for _ in range(20):
        msg = sub.get_sharded_message(timeout=2.0)
        if msg is not None and msg["type"] == "smessage":
            body = json.loads(msg["data"])
            if body["t"] == tid and body["f"].get("type") == "draw":
                return dict(body["f"])
    raise AssertionError("no draw frame was published")


def _without_the_open_leg(doc: dict[str, Any]) -> None:
    """A table stored before its scopes were opened ahead: leg 1's is not open."""
    doc["fair"]["scopes"] = [s for s in doc["fair"]["scopes"] if not s["label"].endswith("/leg/1")]


@pytest.mark.parametrize(("rolls", "label"), [(0, "leg/1"), (5, "leg/1.2")],
                         ids=["no_open_scope", "undone_outcome_drawn_anew"])
def test_a_scope_the_announce_opens_is_committed_before_any_link_and_the_draw_comes_from_it(
        store: Store, rolls: int, label: str) -> None:
    """Every scope a game names is opened ahead (``fairness.settle``), and an
    undone outcome comes back as it was, so no table this server writes gets
    here: the document is changed to what one would hold (a table stored
    before its scopes were opened ahead; a kept roll that no longer applies).
    The scope the announce opens is public (its commitment in the pending
    draw and its ``draw`` frame) before any link, and the draw made after the
    last link is derived from that scope's secret, never a newer one."""
    tables = tables_with(store, 3600.0)
    tid, phones = started(tables)
    rolled_before = [roll(tables, tid, phones) for _ in range(rolls)]
    dice = [r["die"] for r in rolled_before]
    if rolls:
        act(tables, tid, phones[0].token, "undo")
        # The kept die made one the rules no longer allow: out of the pyramid already.
        tamper(store, tid, lambda doc: doc["stash"][0].update(fields={"die": dice[0], "value": 1}))
    else:
        tamper(store, tid, _without_the_open_leg)
    before = store.load_raw(tid)
    with closing(store.r.pubsub()) as sub:
        sub.ssubscribe(channel_key(tid))
        out = act(tables, tid, turn(tables, tid, phones).token, "pyramid")
        frame = _frame(sub, tid)
    draw = out["events"][0]["draw"]
    (opened,) = store.links(tid)["_pending"]["opened"]
    assert opened["label"] == f"t/{tid}/g1/{label}" and not opened["outcomes"]
    public = [{"scope": opened["label"], "commitment": opened["commitment"]}]
    assert frame["pending"]["draw"] == draw and frame["pending"]["opened"] == public
    assert snap(tables, tid, "p2")["fair"]["pending"]["opened"] == public
    assert store.load_raw(tid) == before, "the announce writes no document"
    links = [(p.seat, p.next_link()) for p in phones]
    for p in phones:
        done = p.answer(tables, tid, draw)
    rolled = next(e for e in done["events"] if e["type"] == "die_rolled")
    left = [d for d in ["blue", "green", "yellow", "red", "purple", "grey"] if d not in dice[:-1]]
    for _ in range(4 - len(dice[:-1])):
        roll(tables, tid, phones)  # to leg 1's end: its scope revealed
    proof = tables.proof(tid)
    scope = next(s for s in proof["scopes"] if s["label"] == opened["label"])
    assert scope["commitment"] == opened["commitment"] and scope["secret"] == opened["secret"]
    assert scope["outcomes"][0]["index"] == max(rolls - 1, 0)
    assert scope["outcomes"][0]["links"] == [{"seat": s, "link": k, "anchor": phones[i].chain[0]}
                                             for i, (s, k) in enumerate(links)]
    rng = OutcomeRng.of(scope["secret"], scope["label"], [], scope["outcomes"][0]["index"], links)
    assert rng.choice(left) == rolled["die"]
    report = check(proof)
    assert report.ok, report.first_mismatch
    # The rules' checker holds the log to them: an undone roll comes back the
    # same at its index, so one drawn anew is flagged if it differs, and nothing else is.
    wrong = [(x.code, x.where) for x in verify(proof).lines if x.status == "mismatch"]
    differs = rolls and any(rolled_before[-1][k] != rolled[k] for k in ("die", "value", "color"))
    assert wrong == ([("index_mismatch", {"scope": opened["label"], "index": 4})] if differs else [])


def _passed_draw(store: Store) -> tuple[Tables, str, list[Phone], Phone, int]:
    """A roll waiting for its links, and a change that passed it (which copies
    the pending draw into the document): the tables, the table, its phones,
    the roller and the draw's id."""
    tables = tables_with(store, 3600.0)
    tid, phones = started(tables)
    roller = turn(tables, tid, phones)
    out = dict(tables.act(tid, roller.token, {"action": {"type": "pyramid"}, "request_id": "r"}))
    tables.act(tid, phones[0].token, {"action": {"type": "rename", "player": "p2", "name": "Bo"},
                                      "request_id": "n"})
    return tables, tid, phones, roller, int(out["events"][0]["draw"])


def test_a_document_that_names_a_draw_the_links_key_does_not_is_not_stuck(store: Store) -> None:
    """The links key is the truth of a waiting draw. A document that still
    carries one it does not name (a build from before the links key kept its
    pending draw in the document; a links key lost on its own) refused every
    game action with ``draw_pending`` and every link with ``draw_over``, for
    the rest of the table's life: the decision now asks the links key."""
    from server.store.keys import links_key

    tables, tid, phones, roller, draw = _passed_draw(store)
    assert store.load(tid)["fair"]["pending"]["draw"] == draw  # type: ignore[index, typeddict-item]
    # ...and then the links key is gone.
    store.r.delete(links_key(tid))
    store.latest.drop(tid)
    assert "pending" not in tables.load(tid)["fair"]  # type: ignore[index]
    again = dict(tables.act(tid, roller.token, {"action": {"type": "pyramid"}, "request_id": "r2"}))
    assert again["events"][0]["type"] == "draw_pending" and again["events"][0]["draw"] > draw
    for p in phones:
        last = p.answer(tables, tid, again["events"][0]["draw"])
    assert any(e["type"] == "die_rolled" for e in last["events"])
    assert "pending" not in store.load(tid)["fair"]  # type: ignore[index]


def test_a_store_writer_who_drops_a_draw_after_seeing_links_cannot_redraw_with_them(store: Store) -> None:
    """The operator's try at a re-roll through the healing above: the links
    key deleted once a phone's link is in (the document still names the
    draw). The roll is drawn again, but the phone whose link was seen is not
    asked for it again: its next link does not follow the chain the key
    expects (``link_mismatch``), so the new draw is made without it, which
    that phone and every checker see (docs/fairness.md, the server's row:
    a link received and left out). An honest phone never sends a spent link
    again (web/screens/fair-chain.js throws the chain away on a refusal)."""
    from server.store.keys import links_key

    tables, tid, phones, roller, draw = _passed_draw(store)
    seen = phones[1]
    seen.answer(tables, tid, draw)  # its link is now in the store
    store.r.delete(links_key(tid))
    store.latest.drop(tid)
    quick = tables_with(store, 0.05)  # the redraw waits a moment for the phones, not an hour
    again = dict(quick.act(tid, roller.token, {"action": {"type": "pyramid"}, "request_id": "r2"}))
    redraw = again["events"][0]["draw"]
    assert again["events"][0]["type"] == "draw_pending" and redraw > draw
    for p in phones:
        if p is not seen:
            p.answer(quick, tid, redraw)
    # The link it gave is spent: the one after it is not what the chain expects.
    with pytest.raises(ServiceError) as refused_link:
        seen.answer(tables, tid, redraw)
    assert refused_link.value.code == "link_mismatch"
    # Made without it once the wait is over: the phone's link is missing from every
    # outcome of the proof, and its export says so (own_link_missing).
    time.sleep(0.1)
    outcome = dict(quick.act(tid, roller.token, {"action": {"type": "draw_now", "draw": redraw},
                                                  "request_id": "now"}))
    assert any(e["type"] == "die_rolled" for e in outcome["events"])
    kept = [o for s in tables.proof(tid)["scopes"] for o in s["outcomes"]]
    assert all(link["seat"] != seen.seat for o in kept for link in o.get("links", []))
