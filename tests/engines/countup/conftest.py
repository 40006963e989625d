"""Builders for Count Up tests: tables with typed-in cards and known sheets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from engines.base import Event
from engines.countup import ENGINE
from engines.countup.state import State
from tests.engines import driver

#: Example 7's three sheets (docs/rules), played every round.
EXAMPLE7 = {"A": [1, 12, 24, 34, 41], "B": [3, 15, 32, 35, 43], "C": [11, 21, 33, 36, 46]}


class Table(driver.Table):
    """A started game plus shorthands; ``state`` moves on with every action.
    The first player is the host, and acts when no player is named."""

    def __init__(
        self,
        players: Sequence[str] = ("A", "B", "C", "D"),
        round_no: int = 1,
        **options: Any,
    ) -> None:
        opts = {"restrictionSource": "manual", **options}
        super().__init__(ENGINE, players, opts, host=players[0])
        self.host: str
        self.state: State
        if round_no != 1:
            # The examples play a single round of a later row (its bonus).
            self.state = replace(self.state, round=round_no)

    def act(self, type_: str, player: str | None = None, host: bool | None = None,
            **payload: Any) -> list[Event]:
        return self.play(type_, player or self.host, host, **payload)

    def cards(self, digits: Sequence[int] | None = None,
              danger: Sequence[int] | None = None) -> None:
        if digits is not None:
            self.act("restriction", digits=list(digits))
        if danger is not None:
            self.act("danger", range=list(danger))

    def sheets(self, sheets: Mapping[str, Sequence[int]]) -> None:
        for p, numbers in sheets.items():
            self.act("numbers", p, numbers=list(numbers))

    def call(self, until: str | None = None) -> list[Event]:
        return self.act("call", until=until) if until else self.act("call")

    def seat(self, p: str) -> Any:
        return self.state.seats[self.state.index(p)]

    def markers(self) -> dict[str, int]:
        return {p: s.marker for p, s in zip(self.state.players, self.state.seats, strict=True)}

    def play_example7(self, until_round: int = 4) -> None:
        """Example 7's sheets (cards 7 8 9), counted to the end, round after round;
        a finished round is followed by next_round while rounds remain."""
        for r in range(1, until_round + 1):
            self.cards([7, 8, 9])
            self.sheets(EXAMPLE7)
            self.call("end")
            if r < 4:
                assert self.state.phase == "scored"
                self.act("next_round")

    def scores(self, round_no: int = -1) -> dict[str, int]:
        rec = self.state.rounds[round_no]
        return {p: s.score for p, s in zip(self.state.players, rec.seats, strict=True)}



@pytest.fixture
def table() -> type[Table]:
    return Table
