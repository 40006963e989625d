"""Pushes race (each is its own greenlet, and may wait on the store): the
announce's ``draw`` frame, which says only what changed since the version
before it, must not overtake that version's snapshot and make it stale. A
phone would answer the draw on a board without its own chain, and ask for the
draw to be made without its link (the e2e flake of a phone's link "not
counted" on a busy machine)."""

from __future__ import annotations

import json
import random
from typing import Any

import redis

from engines import registry
from server import live
from server.config import Limits
from server.service import Tables
from server.store import Store
from tablemate_verify.chain import make_chain


class Phone:
    """The parts of a socket ``Hub.push`` uses, recording what it is given."""

    def __init__(self, player: str, token: str, sent_version: int) -> None:
        self.player, self.token, self.seat_hash = player, token, None
        self.sent_version = sent_version
        self.got: list[tuple[str, dict[str, Any]]] = []

    def tell_encoded(self, data: bytes, version: int | None = None) -> None:
        self.got.append(("frame", json.loads(data)))

    def offer(self, version: int, data: bytes, force: bool = False, online: Any = None) -> None:
        self.got.append(("state", json.loads(data)))

    def kick(self, code: str, message: str) -> None:
        self.got.append(("kick", {"code": code}))


def act(tables: Tables, tid: str, token: str, atype: str, rid: str, **payload: Any) -> dict[str, Any]:
    return dict(tables.act(tid, token, {"action": {"type": atype, **payload}, "request_id": rid}))


def test_a_draw_frame_goes_only_to_a_socket_given_the_version_before(single_redis_url: str) -> None:
    store = Store(redis.Redis.from_url(single_redis_url, decode_responses=True), ttl=600)
    tables = Tables(store, registry.get, rng=random.Random(3), limits=Limits(draw_wait=3600.0))
    doc, host = tables.create({"game": "camelup", "name": "Host", "options": {}})
    tid = doc["id"]
    guests = [tables.join(tid, {"name": f"P{i}"})[1] for i in (2, 3)]
    act(tables, tid, host, "start", "r0")
    before = tables.load(tid)
    assert before is not None
    # p1's phone anchors its chain (the version its socket has not been sent yet), live.
    act(tables, tid, host, "anchor", "r1", anchor=make_chain(8, "01" * 32)[0], length=8)
    store.presence.touch(tid, "p1/s")
    anchored = tables.load(tid)
    assert anchored is not None
    turn = tables.snapshot(anchored, "p1")["view"]["waiting"][0]
    roller = [host, *guests][int(turn[1:]) - 1]
    out = act(tables, tid, roller, "pyramid", "r2")
    assert out["events"][0]["type"] == "draw_pending"
    announced = tables.load(tid)
    assert announced is not None and announced["version"] == anchored["version"] + 1

    hub = live.Hub(tables, store)
    behind = Phone("p1", host, before["version"])  # the anchor's snapshot still on its way
    level = Phone("p1", host, anchored["version"])
    hub.sockets.conns[tid] = [behind, level]  # type: ignore[list-item]
    hub.push(tid, doc=announced)

    [(kind, state)] = behind.got
    assert kind == "state" and state["version"] == announced["version"]
    assert "p1" in state["fair"]["chains"] and state["fair"]["pending"]["waiting"] == ["p1"]
    [(kind, frame)] = level.got
    assert kind == "frame" and frame["type"] == "draw" and frame["pending"]["waiting"] == ["p1"]
