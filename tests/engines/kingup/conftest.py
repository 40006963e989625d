"""Shared helpers for the King Up! tests: a table driven by actions, and board builders."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from engines.kingup import ENGINE
from engines.kingup.constants import CHARACTERS, ELIMINATED, INDEX, THRONE
from engines.kingup.state import MOVEMENT, VOTE, Election, State
from tests.engines import driver


class Table(driver.Table):
    """A King Up! game driven through draw + apply, seats p1..pn, no default host."""

    def __init__(self, n: int = 4, seed: int = 0, **options: Any) -> None:
        super().__init__(ENGINE, [f"p{i}" for i in range(1, n + 1)], options, seed)
        self.state: State

    def act(self, player: str, kind: str, host: bool = False, **payload: Any) -> list[dict]:
        return self.play(kind, player, host, **payload)

    def refused(self, code: str, player: str, kind: str, host: bool = False, **payload: Any) -> str:
        return self.refuse(code, kind, player, host, **payload)

    def goals(self, goals: dict[str, str]) -> None:
        for p, letters in goals.items():
            self.act(p, "goal", characters=list(letters))

    def board(self, layout: dict[Any, str], **changes: Any) -> None:
        """Puts the state in the movement phase with ``layout`` (position -> letters)."""
        self.state = with_board(self.state, layout, **changes)


def with_board(state: State, layout: dict[Any, str], **changes: Any) -> State:
    positions = [0] * len(CHARACTERS)
    seen = set()
    for where, letters in layout.items():
        pos = {"throne": THRONE, "eliminated": ELIMINATED}.get(where, where)
        for c in letters:
            positions[INDEX[c]] = pos
            seen.add(c)
    assert seen == set(CHARACTERS), "every character needs a place"
    fields: dict[str, Any] = {"positions": tuple(positions), "phase": MOVEMENT, **changes}
    if fields["phase"] == VOTE and "election" not in fields:
        candidate = next(c for c in CHARACTERS if positions[INDEX[c]] == THRONE)
        fields["election"] = Election(candidate, (None,) * state.n)
        fields["turn"] = None
    return replace(state, **fields)


@pytest.fixture
def table() -> type[Table]:
    return Table


def random_states(seed: int, n: int, **options: Any) -> list[State]:
    """Every state of one random full-tracking game (random goals, moves and votes)."""
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(1, n + 1)]
    state = ENGINE.setup(players, ENGINE.normalize_options(options))
    states = [state]
    while not ENGINE.status(state)["over"]:
        choices = [(p, a) for p in players for a in ENGINE.legal_actions(state, p)]
        player, action = rng.choice(choices)
        if action["type"] == "goal":
            action = {**action, "characters": rng.sample(CHARACTERS, 6)}
        action = ENGINE.draw(state, {**action, "player": player, "host": True}, rng)
        state, _ = ENGINE.apply(state, action)
        states.append(state)
    return states


@pytest.fixture
def walk() -> Any:
    return random_states
