"""The race estimate of ``odds.race_odds`` and the odds panel: who wins and
who loses the race (R36), for the finish cards.

Stratified: the current leg is solved exactly (``odds_np``/``odds_py``), so
races ending in it count with their exact weight; only races that outlast the
leg are sampled from the exact leg-end distribution, then played out with
fresh legs and no tiles (``odds_sim``, ``odds_py.simulate``). NumPy is
imported only for its own path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any

from engines.camelup import odds_py
from engines.camelup.constants import RACING
from engines.camelup.odds_board import Position, from_rankings


@dataclass(frozen=True)
class RaceOdds:
    """Overall winner / loser probabilities (R36) for the finish cards."""

    winner: dict[str, float]
    loser: dict[str, float]
    #: one standard error of each estimate (0 where exact)
    winner_error: dict[str, float]
    loser_error: dict[str, float]
    #: true when the race cannot outlast the current leg: no sampling at all
    exact: bool
    races: int
    seed: int
    #: exact probability that the race ends during the current leg
    ends_this_leg: float = 0.0
    unfinished: int = field(default=0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "winner": {c: round(p, 4) for c, p in self.winner.items()},
            "loser": {c: round(p, 4) for c, p in self.loser.items()},
            "winnerError": {c: round(p, 4) for c, p in self.winner_error.items()},
            "loserError": {c: round(p, 4) for c, p in self.loser_error.items()},
            "exact": self.exact,
            "races": self.races,
            "seed": self.seed,
            "endsThisLeg": round(self.ends_this_leg, 6),
        }



def estimate(pos: Position, solved: Any, races: int, seed: int, numpy: bool) -> RaceOdds:
    """The race estimate from the leg already solved (with ``numpy``,
    ``odds_np.NpCounts`` with its boards, else ``odds_py.LegCounts``)."""
    den = pos.denominator
    if numpy:
        # Sampling whole races is the costly part here: NumPy whenever it can.
        res = solved
        end_first = [float(res.end_ranks[i][0]) for i in range(len(RACING))]
        end_last = [float(res.end_ranks[i][-1]) for i in range(len(RACING))]
        going = den - round(res.ended)
        won, lost, done = (
            _sample_np(res.boards, res.weights, pos.lone_crossing_ends, races, seed)
            if going
            else ((), (), 0)
        )
    else:
        py = solved
        end = from_rankings(py.end_rankings)
        end_first = [float(end[c][0]) for c in RACING]
        end_last = [float(end[c][-1]) for c in RACING]
        going = den - py.ended
        won, lost, done = (
            _sample_py(py.boards, pos.lone_crossing_ends, races, seed) if going else ((), (), 0)
        )
    share = going / den

    def estimate(exact: list[float], hits: Any) -> tuple[dict[str, float], dict[str, float]]:
        probs, errors = {}, {}
        for i, colour in enumerate(RACING):
            q = float(hits[i]) / done if done else 0.0
            probs[colour] = exact[i] / den + share * q
            errors[colour] = share * math.sqrt(q * (1 - q) / done) if done else 0.0
        return probs, errors

    winner, winner_error = estimate(end_first, won)
    loser, loser_error = estimate(end_last, lost)
    sampled = races if going else 0
    return RaceOdds(
        winner,
        loser,
        winner_error,
        loser_error,
        not going,
        sampled,
        seed,
        1 - share,
        sampled - done,
    )


def _sample_np(
    boards: Any, weights: Any, lone: bool, races: int, seed: int
) -> tuple[Any, Any, int]:
    import numpy as np

    from engines.camelup import odds_sim

    rng = np.random.default_rng(seed)
    # Systematic sampling of the leg-end boards: one race at each of ``races``
    # evenly spaced points of the cumulative weight, after one random offset.
    # Every board gets its share of the races to within one (a stratified
    # sample: less spread than independent draws, see docs/performance.md),
    # and it is much cheaper than rng.choice with probabilities.
    cumulative = np.cumsum(weights)
    points = (rng.random() + np.arange(races)) * (cumulative[-1] / races)
    starts = boards[np.minimum(np.searchsorted(cumulative, points, side="right"), len(boards) - 1)]
    # The lean simulator plays the same races as odds_np.simulate, draw for draw.
    finals = odds_sim.simulate(starts, lone, rng)
    finished = finals[:, 0] >= 0
    # Camel-major, and no argmax over rows of five (5x slower): every camel
    # has its own place, so the winner's key is its race's largest.
    racers = np.ascontiguousarray(finals[:, : len(RACING)].T)
    won = np.logical_and(racers == racers.max(0), finished).sum(1)
    lost = np.logical_and(racers == racers.min(0), finished).sum(1)
    return won, lost, int(np.count_nonzero(finished))


def _sample_py(
    boards: Mapping[str, int], lone: bool, races: int, seed: int
) -> tuple[list[int], list[int], int]:
    rng = Random(seed)
    keys = list(boards)
    starts = rng.choices(keys, weights=[boards[k] for k in keys], k=races)
    won, lost = [0] * len(RACING), [0] * len(RACING)
    done = 0
    for final in odds_py.simulate(starts, lone, rng):
        if final is not None:
            won[int(final[0])] += 1
            lost[int(final[-1])] += 1
            done += 1
    return won, lost, done
