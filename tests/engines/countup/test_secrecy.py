"""A seat sees only its own numbers until they are called and declared; whole
sheets appear when the round ends."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engines.countup import ENGINE
from engines.countup.count import restricted, round_max
from engines.countup.state import State
from tests.engines.countup.playout import RandomTable


def other_secret(state: State, b: str, rng: random.Random) -> State | None:
    """``state`` with B's not-yet-called numbers replaced by other legal ones."""
    i = state.index(b)
    seat = state.seats[i]
    if not seat.numbers:
        return None  # no sheet yet, or none at all (skip: sitting out is public)
    called = [n for n in seat.numbers if n <= state.count]
    assert all(n in seat.declared for n in called)  # phone mode declares for you
    banned = restricted(state)
    pool = [n for n in range(state.count + 1, round_max(state))
            if n % 10 not in banned and n not in seat.numbers]
    need = 5 - len(called)
    if need == 0 or len(pool) < need:
        return None
    numbers = tuple(sorted(called + rng.sample(pool, need)))
    seats = state.seats[:i] + (replace(seat, numbers=numbers),) + state.seats[i + 1:]
    return replace(state, seats=seats)


def assert_same_for_others(a: State, b: State, secret_of: str) -> None:
    for p in (None, *a.players):
        if p == secret_of:
            continue
        assert ENGINE.view(a, p) == ENGINE.view(b, p), p
        assert ENGINE.legal_actions(a, p) == ENGINE.legal_actions(b, p)
    assert ENGINE.public_players(a) == ENGINE.public_players(b)
    assert ENGINE.status(a) == ENGINE.status(b)


def test_entry_secrecy(table):
    t = table()
    t.cards([2, 5, 7])
    t.act("numbers", "B", numbers=[1, 3, 4, 6, 8])
    other = table()
    other.cards([2, 5, 7])
    events = other.act("numbers", "B", numbers=[11, 13, 14, 16, 18])
    assert_same_for_others(t.state, other.state, "B")
    assert "11" not in json.dumps(events)
    assert t.view("B")["my_numbers"] == [1, 3, 4, 6, 8]
    assert t.view("A")["sheets"]["B"] == {
        "locked": True, "sat_out": False, "numbers": None, "declared": [], "marker": 0, "x_cells": []
    }
    assert t.view("A")["my_numbers"] is None


def test_count_reveals_only_declared_numbers(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets({"A": [3, 9, 14, 30, 41], "B": [6, 9, 21, 36, 48],
              "C": [1, 11, 19, 33, 44], "D": [4, 16, 29, 38, 46]})
    for _ in range(10):
        t.call()
    view = t.view("A")
    assert view["count"]["value"] == 10
    assert view["sheets"]["B"]["numbers"] is None
    assert view["sheets"]["B"]["declared"] == [6, 9]
    assert view["sheets"]["B"]["x_cells"] == [{"number": 9, "slot": 1, "voided": False,
                                                "bonus": 1}]
    assert view["my_numbers"] == [3, 9, 14, 30, 41]
    t.call("end")
    view = t.view(None)
    assert view["sheets"]["B"]["numbers"] == [6, 9, 21, 36, 48]
    assert view["rounds_played"][0]["players"]["B"]["numbers"] == [6, 9, 21, 36, 48]


@pytest.mark.parametrize("seed", range(16))
def test_views_never_hold_undeclared_numbers(seed):
    """Property: during entry and the count, changing B's undeclared numbers
    changes nothing anyone else can see."""
    rng = random.Random(seed)
    table = RandomTable(seed, options={"sheetMode": "phone",
                                       "restrictionSource": rng.choice(["deck", "manual"]),
                                       "dangerZoneEnabled": rng.random() < 0.5})
    checked = 0
    for _before, after, _action, events in table.steps():
        assert all("numbers" not in ev for ev in events)
        if after.phase not in ("entry", "count") or after.end is not None:
            continue
        b = rng.choice(after.players)
        alt = other_secret(after, b, rng)
        if alt is not None:
            assert_same_for_others(after, alt, b)
            assert ENGINE.view(after, b) != ENGINE.view(alt, b)
            checked += 1
    assert checked > 0


def test_paper_mode_has_no_numbers(table):
    t = table(sheetMode="paper")
    t.cards([2, 5, 7])
    assert t.state.phase == "count"
    t.call()
    view = t.view("A")
    assert view["my_numbers"] is None
    assert all(s["numbers"] is None for s in view["sheets"].values())
