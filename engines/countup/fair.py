"""Checkable cards and sealed sheets (docs/fairness.md).

Deck mode: round ``r``'s restriction and danger cards are drawn when round
``r`` opens (``next_round``) from the scope ``round/<r>``, outcome 0; they are
face up at once, so the scope is revealed with the draw. Round 1's cards are
drawn at the start, from the table's setup scope. Each phone sheet is sealed
when it locks, ``round/<r>/sheet/<seat>``, and revealed when the round's
sheets are shown (R14: at the round's end)."""

from __future__ import annotations

from typing import Any

from engines.base import Action, EngineError
from engines.countup import actions
from engines.countup.options import DECK, needs_restriction
from engines.countup.state import OVER, SCORED, State


def _draws(state: State) -> bool:
    opts = state.options
    return opts.restriction_source == DECK and (
        needs_restriction(opts, len(state.players)) or opts.danger_enabled)


def draw(state: State, action: Action) -> tuple[str, int] | None:
    if action.get("type") != "next_round" or state.phase != SCORED or not _draws(state):
        return None
    return f"round/{state.round + 1}", 0


def refusal(state: State, action: Action) -> EngineError | None:
    """What ``apply`` refuses a ``next_round`` with, whatever it draws (checked
    before the phones are asked for their links: ``actions.draw_refusal``)."""
    return actions.draw_refusal(state, action)


def scopes(state: State) -> tuple[str, ...]:
    if not _draws(state) or state.phase == OVER:
        return ()
    return (f"round/{state.round + 1}",)


def done(state: State, scope: str) -> bool:
    kind, _, n = scope.partition("/")
    if kind != "round" or not n.isdigit():
        return False
    return state.phase == OVER or int(n) <= state.round


def secrets(state: State) -> dict[str, tuple[Any, bool]]:
    # What the views show (views._sheets): every sheet once the round has ended.
    shown = state.end is not None or state.phase in (SCORED, OVER)
    return {f"round/{state.round}/sheet/{p}": ({"numbers": list(seat.numbers)}, shown)
            for p, seat in zip(state.players, state.seats, strict=True)
            if seat.numbers}  # None: not locked; (): sat the round out (skip)
