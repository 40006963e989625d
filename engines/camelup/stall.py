"""The stalled phone (engines/base.py): whom the table waits for, when a seat on
paper may have its phone back, and why a turn is never skipped.

docs/rules/camelup.md ("A seat without a phone", "A player away") says why.
"""

from __future__ import annotations

from engines.base import Action, EngineError, Event, skip_seat
from engines.camelup.state import PLAYING, State


def waiting(state: State) -> tuple[str, ...]:
    """The seat whose turn it is (a full game in play). The pyramid-only mode lets
    any seat roll, and the race's end waits for the host's record of the face-down
    cards: nobody in particular."""
    if state.options.pyramid_only or state.phase != PLAYING or state.current is None:
        return ()
    return (state.seats[state.current].id,)


def hold(state: State, seat: str) -> EngineError | None:
    """Why the seat on paper ``seat`` must stay on paper (None: it may have its phone
    back): never. A turn is one action, so no choice entered for the seat is ever half
    made (issue 37: the phone comes back as soon as it is there). A card it placed
    face down stays a physical card on its pile, recorded by the host at the race's
    end like any other; the phone places only as many more cards as the seat still
    holds (``State.paper_cards_left``), and a phone card naming the face-down card's
    camel voids that card at the record (R13: one card per camel), the player's own
    doing (docs/rules/camelup.md)."""
    return None


def do_skip(state: State, action: Action) -> tuple[State, list[Event]]:
    """Never: passing is not allowed (R9) and every action is the player's own choice."""
    seat = skip_seat(action, [s.id for s in state.seats], waiting(state))
    raise EngineError(
        "cannot_skip",
        f"There is no passing in Camel Up (R9) and every action is {seat}'s own choice: "
        f"wait for {seat}, or make the seat phoneless and enter its turn for it.",
    )
