"""Checkable goal cards and sealed votes (docs/fairness.md).

Deal mode: the goal cards of round ``r`` come from the scope
``round/<r>/goals``, outcome index the number of cards dealt so far this game;
every card of the round is public once the round is scored (its
``round_scored`` event lists them), so the scope is revealed then. Every vote
cast is sealed as ``round/<r>/vote/<candidate>/<seat>`` and revealed with the
election's votes."""

from __future__ import annotations

from typing import Any

from engines.base import Action
from engines.kingup.options import DEAL
from engines.kingup.state import OVER, SCORED, State


def draw(state: State, action: Action) -> tuple[str, int] | None:
    if action.get("type") != "draw_goal" or state.config.goal_mode != DEAL:
        return None
    return f"round/{state.round}/goals", len(state.used_cards)


def scopes(state: State) -> tuple[str, ...]:
    if state.config.goal_mode != DEAL or state.phase == OVER:
        return ()
    # Scored: the next round's cards are the next to be dealt.
    return (f"round/{state.round + 1 if state.phase == SCORED else state.round}/goals",)


def done(state: State, scope: str) -> bool:
    parts = scope.split("/")
    if len(parts) != 3 or parts[0] != "round" or parts[2] != "goals" or not parts[1].isdigit():
        return False
    r = int(parts[1])
    return state.phase == OVER or r < state.round or (r == state.round and state.phase == SCORED)


def secrets(state: State) -> dict[str, tuple[Any, bool]]:
    out: dict[str, tuple[Any, bool]] = {}
    shown = state.last_election
    if shown is not None:
        for p, vote in zip(state.players, shown.votes, strict=True):
            out[f"round/{state.round}/vote/{shown.candidate}/{p}"] = ({"vote": vote}, True)
    if state.election is not None:
        for p, cast in zip(state.players, state.election.votes, strict=True):
            if cast is not None:
                out[f"round/{state.round}/vote/{state.election.candidate}/{p}"] = ({"vote": cast}, False)
    return out
