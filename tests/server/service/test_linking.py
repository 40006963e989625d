"""A pending draw's links kept beside the document (issue 38, "What it
costs", ``server/service/linking.py``): one commit per draw, no version for
a link, and the races: a link with ``draw_now``, the last link made with
the draw already made, a link of an old draw, a retried request."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from engines import registry
from server.config import Limits
from server.errors import ServiceError
from server.service import Tables
from server.store import Store
from server.store.keys import links_key
from tests.server.service.test_draws import (
    Phone,
    act,
    anchor_all,
    refused,
    seated,
    tables_with,
    turn,
)


def announced(tables: Tables, n: int = 3) -> tuple[str, list[Phone], int]:
    tid, phones = seated(tables, n)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    out = act(tables, tid, turn(tables, tid, phones).token, "pyramid")
    return tid, phones, int(out["events"][0]["draw"])


def links_in(tables: Tables, tid: str, scope_end: str = "/leg/1", index: int = 0) -> list[str]:
    doc = tables.load(tid)
    scope = next(s for s in doc["fair"]["scopes"] if s["label"].endswith(scope_end))
    return [e["seat"] for e in scope["outcomes"][index]["links"]]


def while_links_read(store: Store, monkeypatch: pytest.MonkeyPatch,
                     *answers: Callable[[], dict[str, Any]]) -> list[dict[str, Any]]:
    """``answers`` run (once) right after the draw's first read of the links
    key, before its commit: the race the commit script must catch. Their
    results land in the list returned."""
    real, came = store.links, []

    def links(table_id: str) -> dict[str, Any]:
        got = real(table_id)
        if not came:
            came.extend(answer() for answer in answers)
        return got
    monkeypatch.setattr(store, "links", links)
    return came


def test_a_link_makes_no_version_and_the_draw_is_one_commit(store: Store) -> None:
    tables = tables_with(store, 3600.0)
    tid, phones, draw = announced(tables)
    commits, raw = store.commits, store.load_raw(tid)
    first = phones[0].answer(tables, tid, draw)
    # The draw's id is the version it will commit as: the table stays one below.
    assert first == {"version": draw - 1, "events": [{"type": "linked", "player": "p1", "draw": draw}]}
    phones[1].answer(tables, tid, draw)
    # Beside the document: the table is byte for byte as announced.
    assert store.load_raw(tid) == raw and store.commits == commits
    assert sorted(store.links(tid)) == ["_draw", "_frame", "_pending", "p1", "p2"]
    assert tables.snapshot(tables.load(tid), "p1")["fair"]["pending"]["waiting"] == ["p3"]
    done = phones[2].answer(tables, tid, draw)
    assert done["version"] == draw and store.commits == commits + 1
    assert not store.r.exists(links_key(tid)), "the draw's commit clears the links"
    assert links_in(tables, tid) == ["p1", "p2", "p3"]


def test_a_retried_link_gets_its_first_result_after_the_draw(store: Store) -> None:
    tables = tables_with(store, 3600.0)
    tid, phones, draw = announced(tables)

    def link(p: Phone, rid: str) -> dict[str, Any]:
        return dict(tables.act(tid, p.token, {"action": {"type": "link", "draw": draw, "link": p.chain[1]},
                                              "request_id": rid}))
    first = link(phones[0], "a")
    link(phones[1], "b")
    last = link(phones[2], "c")
    assert any(e["type"] == "die_rolled" for e in last["events"])
    assert link(phones[0], "a") == first and link(phones[2], "c") == last


def test_a_link_of_an_old_draw_or_a_second_one_changes_nothing(store: Store) -> None:
    tables = tables_with(store, 3600.0)
    tid, phones, draw = announced(tables)
    phones[0].answer(tables, tid, draw)
    before = store.links(tid)
    refused("draw_over", tables, tid, phones[1].token, "link", draw=draw - 1, link=phones[1].next_link())
    refused("link_given", tables, tid, phones[0].token, "link", draw=draw, link=phones[0].next_link())
    refused("link_mismatch", tables, tid, phones[1].token, "link", draw=draw, link=phones[1].chain[2])
    assert store.links(tid) == before


def test_a_link_that_comes_while_draw_now_reads_is_counted(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """draw_now read p1's link; p2's comes before its commit: the commit finds
    one field more, is built again, and the draw counts p2's link too."""
    tables = tables_with(store, 0.0)
    tid, phones, draw = announced(tables)
    phones[0].answer(tables, tid, draw)
    came = while_links_read(store, monkeypatch, lambda: phones[1].answer(tables, tid, draw))
    made = act(tables, tid, phones[0].token, "draw_now", draw=draw)
    assert came[0]["events"][0]["type"] == "linked" and came[0]["version"] == draw - 1
    assert made["version"] == draw
    assert links_in(tables, tid) == ["p1", "p2"]
    refused("draw_over", tables, tid, phones[2].token, "link", draw=draw, link=phones[2].next_link())


def test_the_last_link_while_draw_now_reads_makes_the_draw_and_draw_now_is_over(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    tables = tables_with(store, 0.0)
    tid, phones, draw = announced(tables)
    phones[0].answer(tables, tid, draw)
    came = while_links_read(store, monkeypatch, lambda: phones[1].answer(tables, tid, draw),
                            lambda: phones[2].answer(tables, tid, draw))
    with pytest.raises(ServiceError) as exc:
        act(tables, tid, phones[0].token, "draw_now", draw=draw)
    assert exc.value.code == "draw_over"
    assert came[1]["version"] == draw == tables.load(tid)["version"]
    assert links_in(tables, tid) == ["p1", "p2", "p3"]


def test_two_last_links_at_once_make_one_draw_and_both_are_counted(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last link's script found nobody missing; before its commit, the
    draw was made by another request (here draw_now, as a second process's
    last link would): one draw, every link in it, and the late one answered
    as counted, the same again on a retry."""
    tables = tables_with(store, 0.0)
    tid, phones, draw = announced(tables)
    phones[0].answer(tables, tid, draw)
    phones[1].answer(tables, tid, draw)
    real = store.take_link

    def take_link(*a: Any, **k: Any) -> Any:
        taken = real(*a, **k)
        monkeypatch.setattr(store, "take_link", real)
        act(tables, tid, phones[0].token, "draw_now", draw=draw)  # the other request's commit
        return taken
    monkeypatch.setattr(store, "take_link", take_link)
    body = {"action": {"type": "link", "draw": draw, "link": phones[2].chain[1]}, "request_id": "late"}
    late = dict(tables.act(tid, phones[2].token, body))
    assert late == {"version": draw - 1, "events": [{"type": "linked", "player": "p3", "draw": draw}]}
    assert tables.load(tid)["version"] == draw
    assert links_in(tables, tid) == ["p1", "p2", "p3"]
    assert dict(tables.act(tid, phones[2].token, body)) == late


def test_after_a_start_drawn_with_links_the_next_roll_takes_each_chains_next_link(store: Store) -> None:
    """The start's draw moves every contributor's chain a step, as a roll's
    does: the first roll then takes c_2 (found by a phone in a browser: the
    start's commit had left the chains where they were)."""
    tables = tables_with(store, 3600.0)
    tid, phones = seated(tables)
    anchor_all(tables, tid, phones)
    draw = act(tables, tid, phones[0].token, "start")["events"][0]["draw"]
    for p in phones:
        p.answer(tables, tid, draw)
    assert {s: c["used"] for s, c in tables.snapshot(tables.load(tid), "p1")["fair"]["chains"].items()} == \
        {"p1": 1, "p2": 1, "p3": 1}
    out = act(tables, tid, turn(tables, tid, phones).token, "pyramid")
    draw = out["events"][0]["draw"]
    last: dict[str, Any] = {}
    for p in phones:
        last = p.answer(tables, tid, draw)
    assert any(e["type"] == "die_rolled" for e in last["events"])
    assert links_in(tables, tid) == ["p1", "p2", "p3"]


def test_a_link_sent_again_after_its_draw_was_made_with_it_is_answered_as_taken(store: Store) -> None:
    """A phone that sends its link again with a new request (a draw frame
    built before its link was in still listed it) after the draw was made
    with it: its part was counted, so not ``draw_over`` (which would make the
    phone say its part was left out and throw its chain away)."""
    tables = tables_with(store, 3600.0)
    tid, phones, draw = announced(tables)
    for p in phones:
        p.answer(tables, tid, draw)
    raw = store.load_raw(tid)
    again = act(tables, tid, phones[0].token, "link", draw=draw, link=phones[0].chain[1])
    assert again == {"version": draw, "events": [{"type": "linked", "player": "p1", "draw": draw}]}
    assert store.load_raw(tid) == raw
    # A link never counted is still refused.
    refused("draw_over", tables, tid, phones[1].token, "link", draw=draw, link=phones[1].chain[2])


def test_a_link_counted_draws_ago_sent_again_is_answered_as_taken(store: Store) -> None:
    """A second tab of the same seat that slept through draws wakes to their
    frames and sends a draw's link late: the link the other tab sent for it,
    counted draws ago. Taken, not ``draw_over`` (the phone would call its part
    lost and throw its chain away); the table is untouched. A link of the
    chain never counted is still refused."""
    tables = tables_with(store, 3600.0)
    tid, phones, first = announced(tables)
    for p in phones:
        p.answer(tables, tid, first)
    for _ in range(2):
        draw = int(act(tables, tid, turn(tables, tid, phones).token, "pyramid")["events"][0]["draw"])
        for p in phones:
            p.answer(tables, tid, draw)
    raw = store.load_raw(tid)
    late = act(tables, tid, phones[1].token, "link", draw=first, link=phones[1].chain[1])
    assert late["events"] == [{"type": "linked", "player": "p2", "draw": first}]
    assert store.load_raw(tid) == raw
    refused("draw_over", tables, tid, phones[1].token, "link", draw=first, link=phones[1].chain[4])
    # Another seat's counted link is not this seat's.
    refused("draw_over", tables, tid, phones[1].token, "link", draw=first, link=phones[0].chain[1])


def test_a_counted_link_sent_again_and_again_is_rate_limited(store: Store) -> None:
    """Each answer walks down the seat's chain (up to its length in hashes):
    it counts in the seat's actions like any refused request, so a client that
    repeats it is stopped like any flood."""
    tables = Tables(store, registry.get, rng=random.Random(3), limits=Limits(draw_wait=3600.0, seat_actions=8))
    tid, phones, draw = announced(tables)
    for p in phones:
        p.answer(tables, tid, draw)
    codes = []
    for _ in range(8):
        try:
            act(tables, tid, phones[0].token, "link", draw=draw, link=phones[0].chain[1])
            codes.append("taken")
        except ServiceError as exc:
            codes.append(exc.code)
    assert "taken" in codes and codes[-1] == "rate_limited"


def test_a_seat_anchoring_over_and_over_is_stopped_by_its_anchor_rate(store: Store) -> None:
    """Two tabs of an app from before their fix anchored over each other until
    the seat's action rate stopped them (~100 a minute, each a version pushed to
    every phone and a log line): a seat's anchors have a rate of their own."""
    tables = Tables(store, registry.get, rng=random.Random(3), limits=Limits(draw_wait=3600.0, anchor_rate=3))
    tid, phones = seated(tables, 2)
    for i in range(3):
        act(tables, tid, phones[0].token, "anchor", anchor=f"{i + 1:02x}" * 32, length=64)
    raw = store.load_raw(tid)
    refused("rate_limited", tables, tid, phones[0].token, "anchor", anchor="aa" * 32, length=64)
    assert store.load_raw(tid) == raw
    # The other seats anchor as before.
    act(tables, tid, phones[1].token, "anchor", anchor="bb" * 32, length=64)


def test_a_paused_or_sealed_seat_cannot_make_a_waiting_draw(store: Store) -> None:
    """``draw_now`` is an action like any: a seat off its phone (paused) or
    claimed by a rejoin code and not yet unlocked (sealed) may not make the
    draw the table waits for, however long it waited; the table stays as it was."""
    tables = tables_with(store, 0.0)  # draw_now in time at once
    tid, phones = seated(tables, 4)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones[:2])
    act(tables, tid, phones[2].token, "phoneless", player="p3")
    code = tables.rejoin(tid, phones[0].token, "p4")
    _pid, sealed = tables.claim(tid, {"claim": code})
    draw = int(act(tables, tid, turn(tables, tid, phones).token, "pyramid")["events"][0]["draw"])
    refused("seat_paused", tables, tid, phones[2].token, "draw_now", draw=draw)
    refused("seat_sealed", tables, tid, sealed, "draw_now", draw=draw)
    # A seat that may act makes it.
    assert act(tables, tid, phones[1].token, "draw_now", draw=draw)["version"] == draw
