"""The finished game as a result sheet: each round's points per seat, where
the rule of 33 applied, the totals and the tie-break (R19-R24), all from
``scoring``, which also decides the winners."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engines.base import Step, competition_ranks
from engines.kingup import castle, scoring
from engines.kingup.constants import THRONE
from engines.kingup.state import State


def result(state: State, steps: Iterable[Step]) -> dict[str, Any] | None:
    outcome = scoring.game_result(state)
    if outcome is None:
        return None
    players = state.players
    totals: dict[str, int] = outcome["totals"]
    winners = set(outcome["winners"])
    # Winners first (the tie-break may separate equal totals), then by total.
    ranks = competition_ranks({p: (p in winners, totals[p]) for p in players})
    rounds = []
    for r in state.results:
        raw = scoring.raw_scores(r)
        final = scoring.scores(state.config, r)
        kings = castle.chars_at(r.positions, THRONE)
        rounds.append({
            "round": r.round,
            "king": kings[0] if kings else None,
            "points": dict(zip(players, final, strict=True)),
            "raw": dict(zip(players, raw, strict=True)),
            "rule33": [p for p, a, b in zip(players, raw, final, strict=True) if a != b],
        })
    # The first round's start player: setup's state (R5, option firstSeat).
    first = next(iter(steps))[0]
    return {
        "players": [{"id": p, "score": totals[p], "rank": ranks[p], "winner": p in winners}
                    for p in players],
        "rounds": rounds,
        "start_player": first.players[first.start],
        "tie_break": outcome["tie_break"],
        "rule33_round": state.config.zero33_round,
    }
