"""Undo of a draw (issue 38, item 5): what the undo took back is drawn again by
the very next action, and nothing else is legal until then, through the API.
Before, a seat that saw an undone roll could act on it first (take the leg bet
on the die it knew came next)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import Phone, open_table
from tests.verify.games import client


@pytest.fixture
def phones(redis_url: str) -> list[Phone]:
    _, c = client(redis_url)
    table = open_table(c, joiners=2, game="camelup")
    assert table[0].act("start").status_code == 200
    return table


def turn(phones: list[Phone]) -> Phone:
    waiting = phones[0].get().json["view"]["waiting"]
    return next(p for p in phones if p.id == waiting[0])


def rolled(r: Any) -> list[dict[str, Any]]:
    assert r.status_code == 200, r.json
    return [e for e in r.json["events"] if e["type"] == "die_rolled"]


def refused(r: Any) -> None:
    assert r.status_code == 409 and r.json["error"]["code"] == "redraw_first", r.json


def test_an_undone_roll_is_rolled_again_before_anything_else(phones: list[Phone]) -> None:
    host = phones[0]
    roller = turn(phones)
    first = rolled(roller.act("pyramid"))
    assert host.act("undo").status_code == 200
    # The roller saw the die: the leg bet on it, a tile, anything but the roll is refused.
    refused(roller.act("leg_bet", camel=first[0]["camel"] if first[0]["die"] != "grey" else "blue"))
    legal = [t["type"] for t in roller.get().json["legal"]]
    assert set(legal) == {"pyramid"}, legal
    # The others may do nothing meanwhile either (only the host's undo is left).
    for p in phones:
        if p is not roller:
            assert {t["type"] for t in p.get().json["legal"]} <= {"pyramid", "undo"}
    assert rolled(roller.act("pyramid")) == first
    # Drawn again: the game goes on as usual.
    assert any(t["type"] == "leg_bet" for t in turn(phones).get().json["legal"])


def test_every_roll_an_undo_reached_comes_back_in_order_first(phones: list[Phone]) -> None:
    host = phones[0]
    rolls = []
    for _ in range(2):
        p = turn(phones)
        rolls.append((p, rolled(p.act("pyramid"))))
    assert host.act("undo").status_code == 200
    assert host.act("undo").status_code == 200
    for p, seen in rolls:
        refused(p.act("leg_bet", camel="blue"))
        assert turn(phones) is p
        assert rolled(p.act("pyramid")) == seen


def test_an_undone_action_that_drew_nothing_leaves_every_action_legal(phones: list[Phone]) -> None:
    host = phones[0]
    p = turn(phones)
    assert p.act("leg_bet", camel="blue").status_code == 200
    assert host.act("undo").status_code == 200
    assert p.act("leg_bet", camel="green").status_code == 200


def tickets(phone: Phone) -> dict[str, int]:
    return {p["id"]: p["pyramid_tickets"] for p in phone.get().json["view"]["players"]}


def test_anyone_seated_may_roll_the_returned_die_and_takes_its_ticket(phones: list[Phone]) -> None:
    """Issue 38's undo rule: the returned die is anyone's to roll; the turn order
    stays the turn seat's."""
    host = phones[0]
    roller = turn(phones)
    first = rolled(roller.act("pyramid"))
    assert host.act("undo").status_code == 200
    other = next(p for p in phones if p is not roller)
    # Every seat is offered the roll, and only the roll.
    for p in phones:
        assert [t["type"] for t in p.get().json["legal"] if t["type"] != "undo"] == ["pyramid"]
    # A phone cannot claim a returned roll for itself (the server alone marks one).
    assert other.act("pyramid", returned=True).status_code == 400
    assert rolled(other.act("pyramid")) == [{**first[0], "player": other.id}]
    assert tickets(host)[other.id] == 1 and tickets(host)[roller.id] == 0
    ids = [p.id for p in phones]
    assert turn(phones).id == ids[(ids.index(roller.id) + 1) % len(ids)]
    # Nothing kept any more: off-turn rolls are the turn's seat's again.
    off = next(p for p in phones if p is not turn(phones))
    assert off.act("pyramid").json["error"]["code"] == "not_your_turn"
