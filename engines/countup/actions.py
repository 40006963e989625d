"""``apply``: one handler per action type. Every check comes before any change;
the state is immutable, so a refusal can never leave a half-applied action."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeGuard

from engines.base import (
    Action,
    EngineError,
    Event,
    Handler,
    dispatch,
    phone_handler,
    refused_by,
    set_paper,
)
from engines.countup import count as cnt
from engines.countup import flow, legal, stall
from engines.countup.options import DECK, PHONE, needs_restriction, restricted_set
from engines.countup.sheet import sheet_problems
from engines.countup.state import (
    END_MARKER20,
    OVER,
    Call,
    State,
)


def _call_event(state: State, call: Call) -> Event:
    return {
        "type": "called",
        "round": state.round,
        "number": call.number,
        "declared": list(call.declared),
        "advanced": call.advanced,
        "leader": call.leader,
        "counter": call.counter,
        "voided": call.voided,
        "end": call.end,
        "markers": {p: s.marker for p, s in zip(state.players, state.seats, strict=True)},
    }


def _after_count(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    if state.end is None:
        return state, events
    state, more = flow.close_round(state)
    return state, events + more


# -- cards -------------------------------------------------------------------


def do_restriction(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    opts = state.options
    n = len(state.players)
    digits = action.get("digits")
    if not _whole_numbers(digits, 3) or not all(0 <= d <= 9 for d in digits) or len(set(digits)) != 3:
        raise EngineError(
            "bad_card", f"A restriction card shows 3 different digits 0-9, not {digits!r}."
        )
    state = replace(state, restriction=tuple(digits))
    banned = sorted(restricted_set(state.restriction, opts.digits_for(n)))
    events: list[Event] = [
        {"type": "restriction_revealed", "round": state.round, "digits": digits,
         "restricted": banned}
    ]
    return flow.open_round(state), events


def _whole_numbers(value: Any, count: int) -> TypeGuard[list[int]]:
    """A list of ``count`` ints (a bool is an int to Python, not to a player)."""
    return isinstance(value, list) and len(value) == count and all(type(v) is int for v in value)


def do_danger(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    rng = action.get("range")
    if not _whole_numbers(rng, 2) or not 1 <= rng[0] <= rng[1]:
        raise EngineError("bad_range", f"A danger zone is [lo, hi] with 1 <= lo <= hi, not {rng!r}.")
    state = replace(state, danger=(rng[0], rng[1]))
    events: list[Event] = [{"type": "danger_revealed", "round": state.round, "range": rng}]
    return flow.open_round(state), events


# -- sheets ------------------------------------------------------------------


def do_numbers(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    player = action["player"]
    i = state.index(player)
    numbers = action.get("numbers")
    problems = sheet_problems(numbers, cnt.restricted(state), cnt.round_max(state) - 1)
    if problems:
        code, message = problems[0]
        raise EngineError(code, message)
    # No problems: ``numbers`` is a list of five whole numbers.
    seat = replace(state.seats[i], numbers=tuple(sorted(action["numbers"])))
    state = replace(state, seats=state.seats[:i] + (seat,) + state.seats[i + 1:])
    events: list[Event] = [{"type": "sheet_locked", "round": state.round, "player": player}]
    state, more = flow.count_if_ready(state)
    return state, events + more


# -- the count ---------------------------------------------------------------


def do_call(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    until = action.get("until")
    events: list[Event] = []
    if state.final_pending:
        state = cnt.finish(state, END_MARKER20)
        return _after_count(state, events)
    while True:
        state = cnt.call(state)
        call = state.calls[-1]
        # Finishing at once records only the numbers where something happened
        # (the view's count.calls still lists every number).
        if until is None or call.declared or call.end is not None:
            events.append(_call_event(state, call))
        if until is None or state.end is not None:
            break
        if state.final_pending and state.options.sheet_mode == PHONE:
            # A marker reached 20 while a paper sheet might still collide: finishing
            # at once means nobody on paper declared it.
            state = cnt.finish(state, END_MARKER20)
            break
    return _after_count(state, events)


def do_declare(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    number = state.count
    players = action.get("players")
    if not isinstance(players, list) or not players:
        raise EngineError("no_players", "Name at least one player who declared.")
    for p in players:
        if refused := legal.seat_id(state, p, "Player"):
            raise refused
    chosen: list[str] = players
    if len(set(chosen)) != len(chosen):
        raise EngineError("duplicate_player", "Each player can declare a number only once.")
    if refused := legal.room(state, chosen):
        raise refused
    state = cnt.declare(state, tuple(chosen))
    if state.final_pending:
        state = cnt.finish(state, END_MARKER20)
    return _after_count(state, [_declared_event(state, number)])


def _declared_event(state: State, number: int, **extra: Any) -> Event:
    call = state.calls[-1]
    return {
        "type": "declared",
        "round": state.round,
        "number": number,
        "players": list(call.declared),
        "leader": call.leader,
        "voided": call.voided,
        "end": call.end,
        **extra,
    }


def do_paper_declare(state: State, action: Action) -> tuple[State, list[Event]]:
    """A seat writing on paper at a phone table raised its hand on the number just
    called (the caller taps it for them)."""
    legal.check(state, action)
    player, number = action["player"], state.count
    state = cnt.paper_declares(state, player)
    return state, [_declared_event(state, number, paper=player)]


def do_bonus(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    target = action.get("seat") or action["player"]
    points = action.get("points")
    if type(points) is not int or not 0 <= points <= 999:
        raise EngineError("bad_points", f"Bonus points are a whole number 0-999, not {points!r}.")
    i = state.index(target)
    seat = state.seats[i]
    seats = state.seats[:i] + (replace(seat, bonus=points),) + state.seats[i + 1:]
    state = replace(state, seats=seats)
    events: list[Event] = [
        {"type": "bonus_entered", "round": state.round, "player": target, "points": points}
    ]
    if not any(state.bonus_pending(k) for k in range(len(seats))):
        state, more = flow.score(state)
        events += more
    return state, events


# -- table -------------------------------------------------------------------


def do_set_paper(state: State, action: Action) -> tuple[State, list[Event]]:
    """A seat loses its phone: if it was the last sheet still being written on a
    phone, the count starts (a paper sheet is not waited for)."""
    state, events = set_paper(state, action, state.players)
    state, more = flow.count_if_ready(state)
    return state, events + more


def do_caller(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    seat = action.get("seat")
    return replace(state, caller=seat), [{"type": "caller_set", "seat": seat}]


def do_next_round(state: State, action: Action) -> tuple[State, list[Event]]:
    legal.check(state, action)
    opts = state.options
    restriction, danger = action.get("restriction"), action.get("danger")
    if opts.restriction_source != DECK and (restriction is not None or danger is not None):
        raise EngineError(
            "not_manual", "With restrictionSource=manual the host types the cards in "
            "with restriction and danger."
        )
    if restriction is not None and not needs_restriction(opts, len(state.players)):
        raise EngineError("not_needed", "No restriction card is used at this table.")
    if danger is not None and not opts.danger_enabled:
        raise EngineError("not_needed", "The danger-zone rule is off at this table.")
    state = flow.next_round(state, restriction, danger)
    events: list[Event] = [{"type": "round_started", "round": state.round}]
    if state.restriction is not None:
        events.append(
            {"type": "restriction_revealed", "round": state.round,
             "digits": list(state.restriction),
             "restricted": sorted(cnt.restricted(state))}
        )
    if state.danger is not None:
        events.append({"type": "danger_revealed", "round": state.round,
                       "range": list(state.danger)})
    return state, events


HANDLERS: dict[str, Handler[State]] = {
    "numbers": do_numbers,
    "restriction": do_restriction,
    "danger": do_danger,
    "call": do_call,
    "declare": do_declare,
    "paper_declare": do_paper_declare,
    "bonus": do_bonus,
    "caller": do_caller,
    "next_round": do_next_round,
    "set_paper": do_set_paper,
    "set_phone": phone_handler(lambda s: s.players, stall.hold),
    "skip": stall.do_skip,
}


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    return _dispatch(HANDLERS, state, action)


def _dispatch(handlers: dict[str, Handler[State]], state: State, action: Action) -> tuple[State, list[Event]]:
    return dispatch(
        handlers, state, action, game="Count Up", seats=state.players, over=state.phase == OVER
    )


def _undrawn_next_round(state: State, action: Action) -> tuple[State, list[Event]]:
    """``do_next_round``'s checks that come before its cards: its rule (the
    cards ``draw`` gives are always ones the round takes; a spent deck is
    reshuffled)."""
    legal.check(state, action)
    return state, []


def draw_refusal(state: State, action: Action) -> EngineError | None:
    """What ``apply`` refuses ``action`` (a ``next_round``) with, whatever
    cards it draws: the same checks in the same order, no card drawn."""
    return refused_by(lambda: _dispatch({"next_round": _undrawn_next_round}, state, action))
