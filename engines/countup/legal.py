"""Who may send what, and when (``engines.legality``): each action type's
gate, which its handler in ``actions.py`` runs first, and the candidates
``legal_actions`` filters through the same gates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import Action, EngineError, refusal
from engines.countup import count as cnt
from engines.countup import stall
from engines.countup.options import DECK, PHONE, needs_restriction
from engines.countup.sheet import SHEET_SIZE
from engines.countup.state import BONUS, CARDS, COUNT, ENTRY, SCORED, State
from engines.legality import Gate, Offers, Refused, Rule, checker
from engines.seats import SKIP_WHY, phone_rule, seat_rule


def host(action: Action, what: str) -> Refused:
    return None if action.get("host") is True else refusal("not_host", f"Only the host can {what}.")


def need_caller(state: State, action: Action, what: str) -> Refused:
    if action.get("host") is not True and action.get("player") != state.caller:
        return EngineError("not_caller", f"Only the host or the caller the host named can {what}.")
    return None


def mode(state: State, sheets: str, what: str) -> Refused:
    if state.options.sheet_mode != sheets:
        other = "paper sheets" if sheets == PHONE else "phone sheets"
        return refusal("wrong_mode", f"This table plays with {other}; {what} is not used.")
    return None


def seat_id(state: State, value: Any, what: str) -> Refused:
    if not isinstance(value, str) or value not in state.players:
        return EngineError("unknown_player", f"{what} {value!r} is not a seat at this table.")
    return None


def count_phase(state: State, what: str) -> Refused:
    """Why ``what`` (calling, declaring) is impossible outside the count."""
    if state.phase == CARDS:
        return EngineError("waiting_for_cards", "The host must first type in this round's cards.")
    if state.phase == ENTRY:
        return EngineError(
            "not_counting", f"Cannot {what}: the count starts once every sheet is locked."
        )
    if state.phase != COUNT or state.end is not None:
        return EngineError("round_over", f"Cannot {what}: this round's count has ended.")
    return None


def writable(state: State, number: int) -> Refused:
    """Refuses a number nobody can have written on a sheet this round."""
    banned = cnt.restricted(state)
    if number % 10 in banned:
        return EngineError(
            "restricted_number",
            f"Nobody can have written {number}: numbers ending in "
            f"{', '.join(map(str, sorted(banned)))} are restricted this round.",
        )
    return None


def room(state: State, players: list[str]) -> Refused:
    """Refuses a declaration by a seat whose sheet is already full."""
    full = [p for p in players if len(state.seats[state.index(p)].declared) >= SHEET_SIZE]
    if full:
        return EngineError(
            "too_many_declarations",
            f"{', '.join(full)} already declared all {SHEET_SIZE} numbers this round.",
        )
    return None


def paper_sheet(state: State, player: str, what: str) -> Refused:
    if not state.paper_sheet(state.index(player)):
        return refusal("wrong_mode", f"{player}'s sheet is on a phone; {what} is not used for it.")
    return None


# -- the rules, one per action type --------------------------------------------


def _card_in(what: str, drawn: str, unused: str, used: Callable[[State], bool],
             typed: Callable[[State], object]) -> Gate[State]:
    """A round card the host types in (``restrictionSource`` manual): ``what``
    it is, what the refusals say when the app draws them (``drawn``) or the
    table uses none (``unused``, by ``used``), and the card already ``typed``."""

    def when(state: State, action: Action) -> Refused:
        if refused := host(action, f"type in the {what} card"):
            return refused
        if state.options.restriction_source == DECK:
            return EngineError("not_manual", f"The app draws the {what} cards ({drawn}).")
        if not used(state):
            return EngineError("not_needed", unused)
        if state.phase != CARDS or typed(state) is not None:
            return EngineError("already_revealed", f"This round's {what} card is already in.")
        return None

    return when


def _numbers(state: State, action: Action) -> Refused:
    if refused := mode(state, PHONE, "entering numbers"):
        return refused
    player = action["player"]
    i = state.index(player)
    if state.phase == CARDS:
        return EngineError(
            "waiting_for_cards", "Wait until this round's cards are revealed by the host."
        )
    if player in state.paper and state.seats[i].numbers is None:
        # Typed on the phone acting for it, the sheet would be that phone's secret too.
        return EngineError(
            "sheet_on_paper", f"{player} writes on the paper sheet: nobody enters its numbers."
        )
    if stall.sat_out(state, i):
        return EngineError(
            "locked", f"{player} sits round {state.round} out: the count went on without a sheet."
        )
    if state.seats[i].numbers is not None or state.phase != ENTRY:
        return EngineError("locked", "Your numbers for this round are locked and cannot change.")
    return None


def _call(state: State, action: Action) -> Refused:
    return need_caller(state, action, "call the count") or count_phase(state, "call")


def _until(state: State, action: Action) -> Refused:
    until = action.get("until")
    if until not in (None, "end"):
        return refusal("bad_action", f"call takes until='end' or nothing, not {until!r}.")
    return None


def _declare(state: State, action: Action) -> Refused:
    """Besides who and when: a number someone can have written, and a sheet
    with room for it (the players who declared are the free input)."""
    refused = (
        mode(state, "paper", "declare (the app reads the phone sheets)")
        or need_caller(state, action, "record declarations")
        or count_phase(state, "declare")
    )
    if refused:
        return refused
    number = state.count
    if number == 0:
        return EngineError("nothing_called", "No number has been called yet.")
    if state.calls[-1].declared:
        return EngineError("already_declared", f"Declarations on {number} are already recorded.")
    if refused := writable(state, number):
        return refused
    if all(len(s.declared) >= SHEET_SIZE for s in state.seats):
        return room(state, list(state.players))
    return None


def _paper_declare(state: State, action: Action) -> Refused:
    player = action["player"]
    refused = (
        mode(state, PHONE, "paper_declare (the caller taps who declared with declare)")
        or count_phase(state, "declare")
        or paper_sheet(state, player, "paper_declare (the app reads it)")
    )
    if refused:
        return refused
    if state.count == 0:
        return EngineError("nothing_called", "No number has been called yet.")
    return None


def _paper_number(state: State, action: Action) -> Refused:
    player, number = action["player"], state.count
    if action.get("number") != number:
        return EngineError(
            "not_last_number",
            f"Only the number just called ({number}) can be declared, not "
            f"{action.get('number')!r}.",
        )
    if number in state.seats[state.index(player)].declared:
        return EngineError("already_declared", f"{player} has already declared {number}.")
    return writable(state, number) or room(state, [player])


def _anyone(state: State, action: Action) -> Refused:
    """A ``when`` that lets every seat through: the ``pick`` says it all."""
    return None


def _bonus_seat(state: State, action: Action) -> Refused:
    target = action.get("seat") or action["player"]
    if refused := seat_id(state, target, "Seat"):
        return refused
    if state.options.sheet_mode == PHONE and not state.paper_sheet(state.index(target)):
        return refusal(
            "wrong_mode",
            "This table plays with phone sheets; entering bonus points is not used (the app "
            "reads the phone sheets).",
        )
    if target != action["player"] and (refused := host(action, "enter another player's bonus")):
        return refused
    if state.phase != BONUS:
        return EngineError("not_bonus_phase", "Bonus points are entered after the count ends.")
    if not any(not x.voided for x in state.seats[state.index(target)].x_cells):
        return EngineError("no_bonus_cells", f"{target} has no crossed cell with a bonus this round.")
    return None


def _bonus_seats(state: State, player: str) -> list[Action]:
    """The seats with a paper sheet, the only ones with a bonus to enter: the
    player's own, and others' unless the player is on paper (no phone, so it
    enters nobody else's)."""
    out: list[Action] = [{}] if state.paper_sheet(state.index(player)) else []
    if player not in state.paper:
        out += [{"seat": p} for i, p in enumerate(state.players) if p != player and state.paper_sheet(i)]
    return out


def _named(state: State, action: Action) -> Refused:
    seat = action.get("seat")
    if seat is not None and (refused := seat_id(state, seat, "Seat")):
        return refused
    if seat == state.caller:
        return EngineError("already_caller", "That is already who calls the count.")
    return None


def _next_round(state: State, action: Action) -> Refused:
    if refused := host(action, "start the next round"):
        return refused
    if state.phase != SCORED:
        return refusal("no_round_waiting", "The current round has not been scored yet.")
    return None


#: Each action type's rule, in the order the phones list them.
RULES: dict[str, Rule[State]] = {
    "restriction": Rule(
        _card_in(
            "restriction", "restrictionSource=deck",
            "No restriction card is used at this table (8 or more players, or 0 digits).",
            lambda state: needs_restriction(state.options, len(state.players)), lambda state: state.restriction,
        ),
        shared=True,
    ),
    "danger": Rule(
        _card_in(
            "danger-zone", "deck mode", "The danger-zone rule is off at this table.",
            lambda state: state.options.danger_enabled, lambda state: state.danger,
        ),
        shared=True,
    ),
    "numbers": Rule(_numbers),
    "call": Rule(_call, lambda state, player: ({}, {"until": "end"}), _until),
    "declare": Rule(_declare),
    "paper_declare": Rule(_paper_declare, lambda state, player: ({"number": state.count},), _paper_number),
    "bonus": Rule(_anyone, _bonus_seats, _bonus_seat),
    "next_round": Rule(_next_round, shared=True),
    "caller": Rule(
        lambda state, action: host(action, "name the caller"),
        lambda state, player: [{"seat": s} for s in (None, *state.players)],
        _named,
        shared=True,
    ),
    "set_phone": phone_rule(lambda s: s.players, stall.hold),
    "skip": seat_rule(stall.waiting, SKIP_WHY, stall.skip_refusal),
}
#: A handler's first check: the rule of its action's type.
check = checker(RULES)
#: A seat on paper has no phone: only what the table enters for it (its hand
#: up on the number just called, its bonus); host powers stay with the host's phone.
_PAPER = frozenset({"paper_declare", "bonus"})
#: The phases outside which a type's rule refuses everyone (types not named:
#: any phase). Offers asks only these rules, since most types are refused in
#: most phases; a phase left out here would hide an action its rule accepts,
#: which test_legality's accepted => offered direction catches.
_PHASES: dict[str, frozenset[str]] = {
    "restriction": frozenset({CARDS}),
    "danger": frozenset({CARDS}),
    "numbers": frozenset({ENTRY}),
    "call": frozenset({COUNT}),
    "declare": frozenset({COUNT}),
    "paper_declare": frozenset({COUNT}),
    "bonus": frozenset({BONUS}),
    "next_round": frozenset({SCORED}),
    "skip": frozenset({ENTRY, BONUS}),
}
#: (phase, on paper) -> the types to ask, in RULES' order.
_TYPES: dict[tuple[str, bool], tuple[str, ...]] = {
    (phase, paper): tuple(
        t for t in RULES
        if (t in _PAPER if paper else t != "paper_declare")
        if phase in _PHASES.get(t, (phase,))
    )
    for phase in (CARDS, ENTRY, COUNT, BONUS, SCORED)
    for paper in (False, True)
}

#: ``legal_actions``: templates of free-input actions (numbers, restriction,
#: danger, declare, bonus) name only the type, the phone supplies the values;
#: host-only ones carry ``"host": True``.
offers: Offers[State] = Offers(
    RULES,
    lambda state, player: _TYPES.get((state.phase, player in state.paper), ()),
    host_codes=("not_host", "not_caller"),
)
