"""Seeded random play-outs: whole games across 3-12 players and all option
combinations, with the invariants checked along the way."""

from __future__ import annotations

import pytest

from tests.engines.countup.playout import (
    RandomTable,
    check_result,
    check_round_against_reference,
    check_state,
)


def play(seed: int, check_every: int = 1) -> RandomTable:
    """One game; the full invariant check runs on every ``check_every``-th
    action (0: never), the R9 reference check on every phone round."""
    table = RandomTable(seed)
    for i, (before, after, action, events) in enumerate(table.steps(guard=check_every > 0)):
        if check_every and i % check_every == 0:
            check_state(before, after, action, events)
            table.try_bad_sheet()
        check_round_against_reference(before, after)
    check_result(table.state)
    return table


@pytest.mark.parametrize("block", range(4))
def test_random_games_checked(block):
    for seed in range(block * 12, block * 12 + 12):
        play(seed, check_every=3)


def test_random_games_many():
    rounds = sum(play(seed, check_every=0).rounds_played for seed in range(1000, 1200))
    assert rounds >= 500


@pytest.mark.slow
def test_five_thousand_rounds():
    """Issue 5: at least 5,000 rounds; each phone round against a plain R9."""
    rounds, seed = 0, 10_000
    while rounds < 5_000:
        rounds += play(seed, check_every=0 if seed % 20 else 7).rounds_played
        seed += 1
