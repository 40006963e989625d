"""The stalled phone (engines/base.py): whom the table waits for, when a seat on
paper may have its phone back, and why a turn is never skipped.

docs/rules/camelup.md ("A seat without a phone", "A player away") says why.
"""

from __future__ import annotations

from engines.base import Action, EngineError, Event, paper_hold_error, skip_seat
from engines.camelup.state import FACE_DOWN, PLAYING, State


def waiting(state: State) -> tuple[str, ...]:
    """The seat whose turn it is (a full game in play). The pyramid-only mode lets
    any seat roll, and the race's end waits for the host's record of the face-down
    cards: nobody in particular."""
    if state.options.pyramid_only or state.phase != PLAYING or state.current is None:
        return ()
    return (state.seats[state.current].id,)


def face_down(state: State, seat: str) -> int:
    """How many of ``seat``'s finish cards lie face down on the piles (public: the
    history names who placed each card)."""
    return sum(1 for owner, camel in state.winner_pile + state.loser_pile
               if owner == seat and camel == FACE_DOWN)


def hold(state: State, seat: str) -> EngineError | None:
    """Why the seat on paper ``seat`` must stay on paper (None: it may have its phone
    back). A card it placed face down names a camel the app does not know: its phone
    would offer that camel again, and a second card of it (R13: one per camel) would
    void the first at the reveal, taking a bet back. The cards are turned over only
    at the race's end, so the seat stays on paper for the game."""
    down = face_down(state, seat)
    if down:
        return paper_hold_error(
            "paper_until_game_end",
            f"{seat} has {down} finish card(s) face down on the piles, whose camels the app "
            "does not know until the race's end: the seat stays on paper for this game.",
        )
    return None


def do_skip(state: State, action: Action) -> tuple[State, list[Event]]:
    """Never: passing is not allowed (R9) and every action is the player's own choice."""
    seat = skip_seat(action, [s.id for s in state.seats], waiting(state))
    raise EngineError(
        "cannot_skip",
        f"There is no passing in Camel Up (R9) and every action is {seat}'s own choice: "
        f"wait for {seat}, or make the seat phoneless and enter its turn for it.",
    )
