"""The finished game as a result sheet: each round's score per seat, its ☆20
marks and why it ended, the totals and how the game ended (R14-R20, UP-8,
UP-9). Winners are ``scoring.decide``'s, kept in the state."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engines.base import Step, competition_ranks
from engines.countup import scoring
from engines.countup.state import OVER, State


def result(state: State, steps: Iterable[Step]) -> dict[str, Any] | None:
    res = state.result
    if state.phase != OVER or res is None:
        return None
    players = state.players
    scores = {p: scoring.round_scores(state.rounds, i) for i, p in enumerate(players)}
    totals = {p: sum(s) for p, s in scores.items()}
    winners = set(res.winners)
    stars = {p: scoring.stars(state.rounds, i) for i, p in enumerate(players)}
    # The order the rules decide in: winners, then (a second ☆20 ends the game
    # for those who reached it, R18) the players with two stars, then the total
    # and the round scores from the highest down (R19, R20, UP-9).
    two_stars = res.ended_by == "two_stars"
    ranks = competition_ranks({
        p: (p in winners, two_stars and stars[p] >= scoring.TWO_STARS, totals[p],
            tuple(sorted(scores[p], reverse=True)))
        for p in players
    })
    rounds = [
        {
            "round": r.number,
            "scores": {p: s.score for p, s in zip(players, r.seats, strict=True)},
            "stars": [p for p, s in zip(players, r.seats, strict=True) if s.star],
            "end": r.end,
            "last": r.last,
        }
        for r in state.rounds
    ]
    return {
        "players": [{"id": p, "score": totals[p], "rank": ranks[p], "winner": p in winners,
                     "stars": stars[p]} for p in players],
        "rounds": rounds,
        "start_player": None,
        "ended_by": res.ended_by,
        "reason": res.reason,
        "tie_break_depth": res.tie_break_depth,
    }
