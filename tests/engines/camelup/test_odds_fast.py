"""The fast analysis paths (issue 16) against the plain ones they replace,
on random positions: the one-pass what-ifs against one solve per placement,
the lean race simulator against ``odds_np.simulate`` (same seed, same
races), and ``analyse`` against its parts computed one by one."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from engines.camelup import odds, odds_np, odds_sim, odds_tiles, odds_whatif
from engines.camelup.constants import DICE
from tests.engines.camelup import golden
from tests.engines.camelup.test_odds import random_board

PLAYERS = (None, "p1", "p2")


def _case(seed: int, dice: int) -> tuple[dict, dict, str | None]:
    rng = random.Random(seed)
    board = random_board(rng, dice)
    options = {
        "crazyLoneCrossingEndsGame": rng.random() < 0.7,
        "spectatorFlipInPlace": rng.random() < 0.3,
    }
    return board, options, rng.choice(PLAYERS)


@pytest.mark.parametrize("seed", range(120))
def test_one_pass_what_ifs_equal_one_solve_each(seed: int) -> None:
    board, options, player = _case(seed, [2, 3, 4, 4, 5][seed % 5])
    pos = odds.position(board, options)
    others = {s: t for s, t in pos.tiles.items() if player is None or t[1] != player}
    targets = odds.tile_targets(pos, player, options["spectatorFlipInPlace"])
    fast = odds_whatif.landings(replace(pos, tiles=others), targets)
    for backend in ("numpy", "python"):
        assert fast == odds_tiles._landings_each(pos, others, targets, backend)
    by_python = odds.tile_what_ifs(board, player, options, backend="python")
    assert odds.tile_what_ifs(board, player, options) == by_python


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_one_pass_what_ifs_full_pyramid(seed: int) -> None:
    board, options, player = _case(1000 + seed, 6)
    assert odds.tile_what_ifs(board, player, options) == odds.tile_what_ifs(
        board, player, options, backend="python"
    )


@pytest.mark.parametrize("seed", range(40))
def test_lean_simulator_plays_the_same_races(seed: int) -> None:
    board, options, _ = _case(seed, 1 + seed % 6)
    pos = odds.position(board, options)
    rng = np.random.default_rng(seed)
    res = odds_np.solve(pos, boards=True)
    if not len(res.boards):
        return
    starts = res.boards[rng.choice(len(res.boards), size=300)]
    lone = pos.lone_crossing_ends
    old = odds_np.simulate(starts, lone, np.random.default_rng(seed))
    new = odds_sim.simulate(starts, lone, np.random.default_rng(seed))
    assert np.array_equal(old, new)


@pytest.mark.parametrize("seed", range(12))
def test_analyse_equals_its_parts(seed: int) -> None:
    board, options, player = _case(seed, [2, 3, 4, 5][seed % 4])
    got = odds.analyse(board, player, options, races=400, seed=seed)
    assert got == {
        "leg": odds.leg_odds(board, options, backend="python").as_dict(),
        "tileSpots": [
            w.as_dict() for w in odds.tile_what_ifs(board, player, options, backend="python")
        ],
        "race": odds.race_odds(board, options, races=400, seed=seed).as_dict(),
    }


def test_leg_draws_are_uniform_orders_and_faces() -> None:
    # Both simulators draw from leg_codes (leg_draws decodes them), so the
    # test above cannot see a bias in it: check the decoding is one to one
    # and the draws fair.
    orders = {tuple(col) for col in odds_sim._ORDERS.T}
    assert len(orders) == 720 and all(len(set(o)) == 5 for o in orders)
    assert len({tuple(col) for col in odds_sim._FACES.T}) == 6**5
    order, faces = odds_sim.leg_draws(np.random.default_rng(3), 60_000)
    assert order.shape == faces.shape == (5, 60_000)
    for step in range(5):
        # Each die rolled at each step with chance 1/6; each face 1/6 (R12, R13).
        for counts in (np.bincount(order[step], minlength=6), np.bincount(faces[step])):
            assert len(counts) == 6 and np.all(np.abs(counts - 10_000) < 500)
    # Die and face at one step, and faces at two steps, are independent.
    joint = np.bincount(order[0].astype(int) * 6 + faces[0], minlength=36)
    assert np.all(np.abs(joint - 60_000 / 36) < 250)
    joint = np.bincount(faces[1].astype(int) * 6 + faces[4], minlength=36)
    assert np.all(np.abs(joint - 60_000 / 36) < 250)


@pytest.mark.parametrize("dice", [6, 4])
def test_race_estimate_error_stays_binomial(dice: int) -> None:
    # The race estimate is Monte Carlo, so a faster path must not buy its
    # speed with accuracy (fewer races, a broken stratification, a bias).
    # Over 40 seeds, against one long run: the root mean square error of
    # the ten winner and loser probabilities stays within the binomial error
    # of independent races (stratified start boards do no worse), the
    # reported standard errors match it, and no probability is off on
    # average. Fixed seeds: the figures are the same on every run.
    board = {"track": golden.TRACK_A, "pyramid": list(DICE[len(DICE) - dice :])}
    races, seeds = 2_000, range(40)
    ref = odds.race_odds(board, races=400_000, seed=10**6)
    truth = np.array([*ref.winner.values(), *ref.loser.values()])
    runs = [odds.race_odds(board, races=races, seed=seed) for seed in seeds]
    got = np.array([[*r.winner.values(), *r.loser.values()] for r in runs])
    reported = np.array([[*r.winner_error.values(), *r.loser_error.values()] for r in runs])
    binomial = np.sqrt(np.mean(truth * (1 - truth)) / races)
    rms = np.sqrt(np.mean((got - truth) ** 2))
    assert rms <= 1.15 * binomial
    assert 0.85 * rms <= reported.mean() <= 1.15 * binomial
    # The mean of 40 runs, and the reference's own error (races / 400,000).
    spread = binomial * np.sqrt(1 / len(seeds) + races / 400_000)
    assert np.abs((got - truth).mean(0)).max() <= 4 * spread
