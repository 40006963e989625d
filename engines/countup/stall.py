"""The stalled phone (engines/base.py): whom the table waits for, when a seat on
paper may have its phone back, and a round that goes on without a seat's sheet.

docs/rules/countup.md ("Seats without a phone", "A player away") says why.
"""

from __future__ import annotations

from dataclasses import replace

from engines.base import Action, EngineError, Event, paper_hold_error
from engines.countup import flow
from engines.countup.options import PHONE
from engines.countup.state import BONUS, COUNT, ENTRY, State
from engines.seats import skip_refusal as base_skip_refusal


def waiting(state: State) -> tuple[str, ...]:
    """The phones whose sheet the count waits for (R7: it starts when every sheet is
    locked; a sheet on paper is not waited for), or the paper sheets whose bonus the
    round's score waits for (R14). Calls are the host's or its caller's, whom the
    host can always stand in for: nobody is waited for during the count."""
    if state.phase == ENTRY:
        return tuple(
            p for i, (p, s) in enumerate(zip(state.players, state.seats, strict=True))
            if s.numbers is None and not state.paper_sheet(i)
        )
    if state.phase == BONUS:
        return tuple(p for i, p in enumerate(state.players) if state.bonus_pending(i))
    return ()


def hold(state: State, seat: str) -> EngineError | None:
    """Why the seat on paper ``seat`` must stay on paper for now (None: it may have
    its phone back). From the count on, a sheet written on paper this round is the
    only copy of its numbers, which the app would need to call the count for a
    phone. Before the count nobody has seen anything and entry is open: the phone
    types its numbers in. A sheet locked before the seat went on paper is the app's."""
    i = state.index(seat)
    if state.options.sheet_mode == PHONE and state.phase in (COUNT, BONUS) and state.paper_sheet(i):
        return paper_hold_error(
            "paper_until_round_end",
            f"{seat}'s numbers of round {state.round} are on the paper sheet only: hand the "
            "phone back once this round is scored.",
        )
    return None


def check_skip(state: State, action: Action) -> str:
    """``skip``'s checks: the host names a phone still writing its sheet.
    Returns the seat."""
    refused = skip_refusal(state, action)
    if refused is not None:
        raise refused
    return str(action["seat"])


def skip_refusal(state: State, action: Action) -> EngineError | None:
    """``check_skip``'s refusal, or None: its rule's check (``legal.py``)."""
    refused = base_skip_refusal(action, state.players, waiting(state))
    if refused is None and state.phase == BONUS:
        seat = action["seat"]
        return EngineError(
            "cannot_skip",
            f"{seat}'s bonus is printed on its paper sheet (R14): the host enters it for "
            f"{seat} (bonus with seat).",
        )
    return refused


def do_skip(state: State, action: Action) -> tuple[State, list[Event]]:
    """The host starts the count without a phone's sheet: the seat sits the round out
    with an empty sheet (*invented*, docs/rules/countup.md): it declares nothing, so
    its marker stays on 00 and it crosses no cell (R9, R14): a round score of 0, as a
    blank paper sheet would give."""
    seat = check_skip(state, action)
    i = state.index(seat)
    seats = state.seats[:i] + (replace(state.seats[i], numbers=()),) + state.seats[i + 1:]
    events: list[Event] = [{"type": "seat_skipped", "round": state.round, "seat": seat}]
    state, more = flow.count_if_ready(replace(state, seats=seats))
    return state, events + more


def sat_out(state: State, i: int) -> bool:
    """Seat ``i`` sits this round out (``skip``): an empty sheet, locked."""
    return state.seats[i].numbers == ()
