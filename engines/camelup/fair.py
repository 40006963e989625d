"""Checkable dice (docs/fairness.md): each leg of a race rolled by the app is a
scope, ``leg/<n>``; a roll's outcome index is the number of dice already out of
the pyramid this leg, so a die put back by undo is rolled at the same index.
The starting board is the table's setup scope (the server's own)."""

from __future__ import annotations

from typing import Any

from engines.base import Action
from engines.camelup import actions
from engines.camelup.state import LEG_OVER, OVER, PAPER_CARDS, PLAYING, State


def _app_dice(state: State) -> bool:
    return state.options.dice_source == "app"


def draw(state: State, action: Action) -> tuple[str, int] | None:
    if action.get("type") != "pyramid" or state.phase != PLAYING or not _app_dice(state):
        return None
    return f"leg/{state.leg}", len(state.tents)


#: What ``apply`` refuses a ``pyramid`` with, whatever it draws (checked
#: before the phones are asked for their links).
refusal = actions.draw_refusal


def scopes(state: State) -> tuple[str, ...]:
    if not _app_dice(state) or state.phase in (OVER, PAPER_CARDS):
        return ()
    # Pyramid-only: a finished leg waits for next_leg, whose rolls come next.
    return (f"leg/{state.leg + 1 if state.phase == LEG_OVER else state.leg}",)


def done(state: State, scope: str) -> bool:
    """A leg's dice are all public once the next leg has begun, the leg
    ended (pyramid-only) or the race is over."""
    kind, _, n = scope.partition("/")
    if kind != "leg" or not n.isdigit():
        return False
    leg = int(n)
    return state.phase in (OVER, PAPER_CARDS) or leg < state.leg or (leg == state.leg and state.phase == LEG_OVER)


def secrets(state: State) -> dict[str, tuple[Any, bool]]:
    """Camel Up seals no choice (docs/fairness.md names the games that do)."""
    return {}
