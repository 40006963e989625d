"""The count algorithm, R9-R13, one called number at a time.

``call`` performs steps (a) and (c) for the next number and, in phone mode, step
(b) from the locked sheets. In paper mode step (b) arrives later as ``declare``
(the host taps who raised a hand), so both modes share the same arithmetic.
"""

from __future__ import annotations

from dataclasses import replace

from engines.countup.options import BIG_TABLE, PHONE, max_count, restricted_set
from engines.countup.state import END_MARKER20, END_MAX, Call, Seat, State, XCell

MARKER_TOP = 20


def restricted(state: State) -> frozenset[int]:
    """This round's restricted digits D (R4, R24)."""
    n = len(state.players)
    if n >= BIG_TABLE:
        return frozenset()
    return restricted_set(state.restriction, state.options.digits_for(n))


def round_max(state: State) -> int:
    return max_count(len(state.players))


def in_danger(state: State, number: int) -> bool:
    """R15: a collision on ``number`` voids its bonus."""
    return (
        state.options.danger_enabled
        and state.danger is not None
        and state.danger[0] <= number <= state.danger[1]
    )


def writers(state: State, number: int) -> tuple[str, ...]:
    """Phone mode: who wrote ``number``, in seat order."""
    return tuple(
        p for p, seat in zip(state.players, state.seats, strict=True)
        if seat.numbers is not None and number in seat.numbers
    )


def _advance(state: State) -> tuple[tuple[Seat, ...], str | None, bool]:
    """Step (a): the seats after the advancing leader gains 1, who moved, and
    whether that marker reached 20."""
    if state.leader is None:
        return state.seats, None, False
    i = state.index(state.leader)
    seat = state.seats[i]
    if seat.marker >= MARKER_TOP:
        # endAtMarker20=false: the round goes on, but a marker never passes 20 (R13).
        return state.seats, None, False
    seat = replace(seat, marker=seat.marker + 1)
    seats = state.seats[:i] + (seat,) + state.seats[i + 1:]
    return seats, state.leader, seat.marker == MARKER_TOP


def finish(state: State, end: str) -> State:
    """Ends the round on the last called number."""
    last = replace(state.calls[-1], end=end)
    return replace(state, end=end, final_pending=False, calls=state.calls[:-1] + (last,))


def declare(state: State, declared: tuple[str, ...]) -> State:
    """Step (b) on the last called number: one player leads, several collide."""
    if not declared:
        return state
    number = state.count
    ordered = tuple(p for p in state.players if p in declared)
    collision = len(ordered) > 1
    voided = collision and in_danger(state, number)
    seats = list(state.seats)
    for p in ordered:
        i = state.index(p)
        seat = seats[i]
        cells = seat.x_cells
        if collision:
            slot = seat.numbers.index(number) if seat.numbers is not None else None
            cells = cells + (XCell(number=number, slot=slot, voided=voided),)
        seats[i] = replace(seat, x_cells=cells, declared=seat.declared + (number,))
    # After a collision nobody advances (R12); one of the colliders goes on
    # counting aloud, the lowest seat by default (UP-11).
    leader = None if collision else ordered[0]
    last = replace(
        state.calls[-1], declared=ordered, leader=leader, counter=ordered[0], voided=voided
    )
    return replace(
        state,
        seats=tuple(seats),
        leader=leader,
        counter=ordered[0],
        calls=state.calls[:-1] + (last,),
    )


def call(state: State) -> State:
    """Calls the next number: R9 (a), then (b) in phone mode, then (c)."""
    number = state.count + 1
    top = round_max(state)
    opts = state.options
    seats, advanced, reached = _advance(state)
    end: str | None = None
    pending = False
    if reached and opts.end_at_marker20:
        # UP-12: by default the round ends before declarations on this number.
        if opts.final_count_declarations and number < top:
            pending = True
        else:
            end = END_MARKER20
    if end is None and not pending and number >= top:
        end = END_MAX
    record = Call(
        number=number,
        declared=(),
        advanced=advanced,
        leader=state.leader,
        counter=state.counter,
        end=end,
        voided=False,
    )
    state = replace(
        state, seats=seats, count=number, calls=state.calls + (record,), end=end,
        final_pending=pending,
    )
    if opts.sheet_mode == PHONE and end is None:
        state = declare(state, writers(state, number))
        if pending and not any(state.paper_sheet(i) for i in range(len(state.players))):
            state = finish(state, END_MARKER20)
        # Else a paper sheet may still collide on this number: the next call ends it.
    return state


def paper_declares(state: State, player: str) -> State:
    """Step (b) again on the last called number, with ``player`` (a paper sheet the
    app cannot read) among those who declared it: a solo phone number becomes a
    collision, nobody becomes the paper seat's lead, and so on, as if every hand
    had gone up together."""
    number = state.count
    last = state.calls[-1]
    seats = list(state.seats)
    for p in last.declared:
        i = state.index(p)
        seat = seats[i]
        # Numbers on a sheet are distinct: the last call is each seat's only cell with it.
        seats[i] = replace(
            seat,
            x_cells=tuple(x for x in seat.x_cells if x.number != number),
            declared=tuple(d for d in seat.declared if d != number),
        )
    before = state.calls[-2] if len(state.calls) > 1 else None
    undone = replace(
        state,
        seats=tuple(seats),
        leader=before.leader if before else None,
        counter=before.counter if before else state.players[0],
        calls=state.calls[:-1] + (replace(last, declared=(), voided=False),),
    )
    return declare(undone, last.declared + (player,))

