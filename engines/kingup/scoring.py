"""Round scoring (R19-R21), as soon as a round is ready for it, and the final
standings with the tie-break (R23-R24)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from engines.base import Event
from engines.kingup import castle
from engines.kingup.constants import CHARACTERS, INDEX, THRONE, pos_label, value
from engines.kingup.options import SURVIVORS, Config
from engines.kingup.state import AWAITING_GOALS, OVER, SCORED, RoundResult, State


def points(goal: Sequence[str], positions: Sequence[int]) -> dict[str, int]:
    """R19: each goal character's points."""
    return {c: value(positions[INDEX[c]]) for c in goal}


def final_score(config: Config, round_no: int, raw: int) -> int:
    """R20 / KU-7 / KU-14: a 0 in the rule's round becomes 33."""
    return 33 if raw == 0 and round_no == config.zero33_round else raw


def raw_scores(result: RoundResult) -> list[int]:
    return [sum(points(g, result.positions).values()) for g in result.goals]


def scores(config: Config, result: RoundResult) -> list[int]:
    return [final_score(config, result.round, raw) for raw in raw_scores(result)]


def totals(state: State) -> list[int]:
    sums = [0] * state.n
    for result in state.results:
        for i, s in enumerate(scores(state.config, result)):
            sums[i] += s
    return sums


def survivors(config: Config, goal: Sequence[str], positions: Sequence[int]) -> int:
    """R24 / KU-6: goal characters still on the board (level 0 per the option)."""
    lowest = 0 if config.tie_level0 else 1
    return sum(1 for c in goal if positions[INDEX[c]] == THRONE or positions[INDEX[c]] >= lowest)


def game_result(state: State) -> dict[str, Any] | None:
    """R23-R24: winners once the game is over, with the tie-break explained."""
    if state.phase != OVER:
        return None
    sums = totals(state)
    best = max(sums)
    tied = [i for i, t in enumerate(sums) if t == best]
    winners = tied
    tie_break: dict[str, Any] | None = None
    if len(tied) > 1:
        tie_break = {"rule": state.config.tie_break, "tied": [state.players[i] for i in tied]}
        if state.config.tie_break == SURVIVORS:
            last = state.results[-1]
            counts = {i: survivors(state.config, last.goals[i], last.positions) for i in tied}
            most = max(counts.values())
            winners = [i for i in tied if counts[i] == most]
            tie_break["survivors"] = {state.players[i]: k for i, k in counts.items()}
            tie_break["counts_level0"] = state.config.tie_level0
    return {
        "winners": [state.players[i] for i in winners],
        "totals": {p: t for p, t in zip(state.players, sums, strict=True)},
        "tie_break": tie_break,
        "shared": len(winners) > 1,
    }


def score_if_ready(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """R19-R23: score as soon as the King is crowned and every goal card is in."""
    if state.phase != AWAITING_GOALS or any(g is None for g in state.goals):
        return state, events
    goals = tuple(g for g in state.goals if g is not None)
    result = RoundResult(state.round, state.positions, goals, state.cards, state.crown)
    over = state.round >= state.config.rounds
    state = replace(state, phase=OVER if over else SCORED, results=state.results + (result,))
    raw = raw_scores(result)
    final = scores(state.config, result)
    players = state.players
    events.append(
        {
            "type": "round_scored",
            "round": state.round,
            "king": castle.chars_at(result.positions, THRONE)[0],
            "positions": {
                c: pos_label(p) for c, p in zip(CHARACTERS, result.positions, strict=True)
            },
            "goals": {p: list(g) for p, g in zip(players, goals, strict=True)},
            "raw": dict(zip(players, raw, strict=True)),
            "scores": dict(zip(players, final, strict=True)),
            "rule33": [p for p, r, s in zip(players, raw, final, strict=True) if r != s],
        }
    )
    if over:
        outcome = game_result(state) or {}
        events.append({"type": "game_over", **outcome})
    return state, events
