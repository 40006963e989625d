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
    refusal,
    set_paper,
)
from engines.countup import count as cnt
from engines.countup import flow, stall
from engines.countup.options import DECK, PHONE, needs_restriction, restricted_set
from engines.countup.sheet import SHEET_SIZE, sheet_problems
from engines.countup.state import (
    BONUS,
    CARDS,
    COUNT,
    END_MARKER20,
    ENTRY,
    OVER,
    SCORED,
    Call,
    State,
)


def _host(action: Action, what: str) -> None:
    if action.get("host") is not True:
        raise refusal("not_host", f"Only the host can {what}.")


def _is_caller(state: State, action: Action) -> bool:
    return action.get("host") is True or action.get("player") == state.caller


def _need_caller(state: State, action: Action, what: str) -> None:
    if not _is_caller(state, action):
        raise EngineError("not_caller", f"Only the host or the caller the host named can {what}.")


def _mode(state: State, mode: str, what: str) -> None:
    if state.options.sheet_mode != mode:
        other = "paper sheets" if mode == PHONE else "phone sheets"
        raise refusal("wrong_mode", f"This table plays with {other}; {what} is not used.")


def _seat_id(state: State, value: Any, what: str) -> str:
    if not isinstance(value, str) or value not in state.players:
        raise EngineError("unknown_player", f"{what} {value!r} is not a seat at this table.")
    return value


def _count_phase(state: State, what: str) -> None:
    """Why ``what`` (calling, declaring) is impossible outside the count."""
    if state.phase == CARDS:
        raise EngineError(
            "waiting_for_cards", "The host must first type in this round's cards."
        )
    if state.phase == ENTRY:
        raise EngineError(
            "not_counting", f"Cannot {what}: the count starts once every sheet is locked."
        )
    if state.phase != COUNT or state.end is not None:
        raise EngineError("round_over", f"Cannot {what}: this round's count has ended.")


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
    _host(action, "type in the restriction card")
    opts = state.options
    n = len(state.players)
    if opts.restriction_source == DECK:
        raise EngineError(
            "not_manual", "The app draws the restriction cards (restrictionSource=deck)."
        )
    if not needs_restriction(opts, n):
        raise EngineError(
            "not_needed",
            "No restriction card is used at this table (8 or more players, or 0 digits).",
        )
    if state.phase != CARDS or state.restriction is not None:
        raise EngineError("already_revealed", "This round's restriction card is already in.")
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
    _host(action, "type in the danger-zone card")
    opts = state.options
    if opts.restriction_source == DECK:
        raise EngineError("not_manual", "The app draws the danger-zone cards (deck mode).")
    if not opts.danger_enabled:
        raise EngineError("not_needed", "The danger-zone rule is off at this table.")
    if state.phase != CARDS or state.danger is not None:
        raise EngineError("already_revealed", "This round's danger-zone card is already in.")
    rng = action.get("range")
    if not _whole_numbers(rng, 2) or not 1 <= rng[0] <= rng[1]:
        raise EngineError("bad_range", f"A danger zone is [lo, hi] with 1 <= lo <= hi, not {rng!r}.")
    state = replace(state, danger=(rng[0], rng[1]))
    events: list[Event] = [{"type": "danger_revealed", "round": state.round, "range": rng}]
    return flow.open_round(state), events


# -- sheets ------------------------------------------------------------------


def do_numbers(state: State, action: Action) -> tuple[State, list[Event]]:
    _mode(state, PHONE, "entering numbers")
    player = action["player"]
    i = state.index(player)
    if state.phase == CARDS:
        raise EngineError(
            "waiting_for_cards", "Wait until this round's cards are revealed by the host."
        )
    if player in state.paper and state.seats[i].numbers is None:
        # Typed on the phone acting for it, the sheet would be that phone's secret too.
        raise EngineError(
            "sheet_on_paper", f"{player} writes on the paper sheet: nobody enters its numbers."
        )
    if stall.sat_out(state, i):
        raise EngineError(
            "locked", f"{player} sits round {state.round} out: the count went on without a sheet."
        )
    if state.seats[i].numbers is not None or state.phase != ENTRY:
        raise EngineError("locked", "Your numbers for this round are locked and cannot change.")
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
    _need_caller(state, action, "call the count")
    _count_phase(state, "call")
    until = action.get("until")
    if until not in (None, "end"):
        raise refusal("bad_action", f"call takes until='end' or nothing, not {until!r}.")
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
    _mode(state, "paper", "declare (the app reads the phone sheets)")
    _need_caller(state, action, "record declarations")
    _count_phase(state, "declare")
    number = state.count
    if number == 0:
        raise EngineError("nothing_called", "No number has been called yet.")
    if state.calls[-1].declared:
        raise EngineError("already_declared", f"Declarations on {number} are already recorded.")
    players = action.get("players")
    if not isinstance(players, list) or not players:
        raise EngineError("no_players", "Name at least one player who declared.")
    chosen = [_seat_id(state, p, "Player") for p in players]
    if len(set(chosen)) != len(chosen):
        raise EngineError("duplicate_player", "Each player can declare a number only once.")
    _could_have_written(state, number, chosen)
    state = cnt.declare(state, tuple(chosen))
    if state.final_pending:
        state = cnt.finish(state, END_MARKER20)
    return _after_count(state, [_declared_event(state, number)])


def _could_have_written(state: State, number: int, players: list[str]) -> None:
    """Refuses a declaration nobody can have written on a sheet."""
    banned = cnt.restricted(state)
    if number % 10 in banned:
        raise EngineError(
            "restricted_number",
            f"Nobody can have written {number}: numbers ending in "
            f"{', '.join(map(str, sorted(banned)))} are restricted this round.",
        )
    full = [p for p in players if len(state.seats[state.index(p)].declared) >= SHEET_SIZE]
    if full:
        raise EngineError(
            "too_many_declarations",
            f"{', '.join(full)} already declared all {SHEET_SIZE} numbers this round.",
        )


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


def _paper_sheet(state: State, player: str, what: str) -> None:
    if not state.paper_sheet(state.index(player)):
        raise refusal(
            "wrong_mode", f"{player}'s sheet is on a phone; {what} is not used for it."
        )


def do_paper_declare(state: State, action: Action) -> tuple[State, list[Event]]:
    """A seat writing on paper at a phone table raised its hand on the number just
    called (the caller taps it for them)."""
    player = action["player"]
    _mode(state, PHONE, "paper_declare (the caller taps who declared with declare)")
    _count_phase(state, "declare")
    _paper_sheet(state, player, "paper_declare (the app reads it)")
    number = state.count
    if number == 0:
        raise EngineError("nothing_called", "No number has been called yet.")
    if action.get("number") != number:
        raise EngineError(
            "not_last_number",
            f"Only the number just called ({number}) can be declared, not "
            f"{action.get('number')!r}.",
        )
    i = state.index(player)
    if number in state.seats[i].declared:
        raise EngineError("already_declared", f"{player} has already declared {number}.")
    _could_have_written(state, number, [player])
    state = cnt.paper_declares(state, player)
    return state, [_declared_event(state, number, paper=player)]


def do_bonus(state: State, action: Action) -> tuple[State, list[Event]]:
    target = action.get("seat") or action["player"]
    _seat_id(state, target, "Seat")
    if state.options.sheet_mode == PHONE and not state.paper_sheet(state.index(target)):
        raise refusal(
            "wrong_mode",
            "This table plays with phone sheets; entering bonus points is not used (the app "
            "reads the phone sheets).",
        )
    if target != action["player"]:
        _host(action, "enter another player's bonus")
    if state.phase != BONUS:
        raise EngineError("not_bonus_phase", "Bonus points are entered after the count ends.")
    points = action.get("points")
    if type(points) is not int or not 0 <= points <= 999:
        raise EngineError("bad_points", f"Bonus points are a whole number 0-999, not {points!r}.")
    i = state.index(target)
    seat = state.seats[i]
    if not any(not x.voided for x in seat.x_cells):
        raise EngineError("no_bonus_cells", f"{target} has no crossed cell with a bonus this round.")
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
    _host(action, "name the caller")
    seat = action.get("seat")
    if seat is not None:
        _seat_id(state, seat, "Seat")
    if seat == state.caller:
        # legal_actions offers only a change (tests/engines/test_legality.py).
        raise EngineError("already_caller", "That is already who calls the count.")
    return replace(state, caller=seat), [{"type": "caller_set", "seat": seat}]


def do_next_round(state: State, action: Action) -> tuple[State, list[Event]]:
    _host(action, "start the next round")
    if state.phase != SCORED:
        raise refusal("no_round_waiting", "The current round has not been scored yet.")
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
    return dispatch(
        HANDLERS, state, action, game="Count Up", seats=state.players, over=state.phase == OVER
    )
