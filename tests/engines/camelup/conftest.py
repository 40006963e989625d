"""Builders for Camel Up scenario tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from engines.camelup import ENGINE
from engines.camelup.board import track_from
from engines.camelup.state import State
from tests.engines import driver

#: A legal setup (R6, R7) for tests that then set the board they need.
SETUP = {
    "racing": [["green", 1], ["purple", 1], ["red", 2], ["blue", 2], ["yellow", 3]],
    "crazy": [["black", 14], ["white", 16]],
}

Builder = Callable[..., State]


def build(
    players: Sequence[str] = ("p1", "p2", "p3"),
    board: Mapping[int, Sequence[str]] | None = None,
    options: Mapping[str, Any] | None = None,
    **changes: Any,
) -> State:
    """A started table with ``board`` as {space: [bottom..top]} and any State
    fields replaced. Seats may be changed with ``seats={"p1": {"money": 5}}``."""
    opts = {"setup": SETUP, **(options or {})}
    state = ENGINE.setup(list(players), ENGINE.normalize_options(opts))
    if board is not None:
        state = replace(state, track=track_from(board))
    seat_changes = changes.pop("seats", {})
    if seat_changes:
        seats = tuple(replace(s, **seat_changes.get(s.id, {})) for s in state.seats)
        state = replace(state, seats=seats)
    return replace(state, **changes)


def act(
    state: State, kind: str, player: str, host: bool = False, **payload: Any
) -> tuple[State, list[dict[str, Any]]]:
    return driver.step(ENGINE, state, kind, player, host, **payload)


@pytest.fixture
def mk() -> Builder:
    return build


@pytest.fixture
def do() -> Callable[..., tuple[State, list[dict[str, Any]]]]:
    return act
