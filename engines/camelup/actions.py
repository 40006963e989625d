"""Action handlers: each runs its type's rule (``legal.py``) and checks its
free input first, then builds the new state.

Each handler takes the state and the action and returns (state, events). A die
rolled moves its camel in ``race.py``, where the rules that follow on
automatically (leg scoring and cleanup, race end, final scoring) run, so legs
never pause in full mode.
"""

from __future__ import annotations

from typing import Any

from engines.base import (
    Action,
    EngineError,
    Event,
    Handler,
    Rng,
    dispatch,
    paper_handler,
    phone_handler,
    refusal,
    refused_by,
)
from engines.camelup import board, legal, race, stall
from engines.camelup.constants import PILES, RACING, SPACES
from engines.camelup.legal import bad
from engines.camelup.state import (
    FACE_DOWN,
    OVER,
    PAPER_CARDS,
    PLAYING,
    Copy,
    State,
    end_turn,
    evolve,
    set_seat,
)
from engines.errors import whole

# --- checks ------------------------------------------------------------------
# Who may send what is each type's rule (legal.py), a handler's first check;
# what is left here is free input.


def _only(action: Action, *keys: str) -> None:
    extra = set(action) - {"type", "player", "host", *keys}
    if extra:
        raise bad(f"Unexpected field(s) for {action['type']}: {', '.join(sorted(extra))}.")


def _raise(refused: EngineError | None) -> None:
    if refused is not None:
        raise refused


# --- events ---------------------------------------------------------------------


def _colours(state: State) -> dict[str, Any]:
    """Events name camels by id; a table with other camel colours (CU-17) gets
    the labels along so the history reads right."""
    if state.options.colours == RACING:
        return {}
    return {"colours": dict(zip(RACING, state.options.colours, strict=True))}


# --- A1 to A5 ---------------------------------------------------------------------


def do_leg_bet(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action, "camel")
    legal.check(state, action)
    idx, camel = state.index(action["player"]), action["camel"]
    c = RACING.index(camel)
    value = state.tickets[c][0]
    tickets = list(state.tickets)
    tickets[c] = tickets[c][1:]
    seat = state.seats[idx]
    state = set_seat(
        evolve(state, tickets=tuple(tickets)), idx, bets=seat.bets + ((camel, value),)
    )
    event = {"type": "leg_bet_taken", "player": seat.id, "camel": camel, "value": value}
    return end_turn(state), [event]


def do_spectator(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action, "space", "side")
    legal.check(state, action)
    player, space, side = action["player"], action["space"], action["side"]
    idx = state.index(player)
    old = state.seats[idx].tile
    state = set_seat(state, idx, tile=(space, side))
    event = {
        "type": "tile_placed",
        "player": player,
        "space": space,
        "side": side,
        "from": None if old is None else old[0],
    }
    return end_turn(state), [event]


def do_finish_bet(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action, "pile", "camel")
    legal.check(state, action)
    player, pile = action["player"], action["pile"]
    if player in state.paper:
        # A seat without a phone places a physical finish card face down: the
        # pile alone is entered, so no phone ever holds its camel (R13).
        return _place_card(state, player, pile, FACE_DOWN)
    camel, idx = action["camel"], state.index(player)
    hand = tuple(c for c in state.seats[idx].hand if c != camel)
    return _place_card(set_seat(state, idx, hand=hand), player, pile, camel)


def _place_card(state: State, player: str, pile: str, camel: str) -> tuple[State, list[Event]]:
    """The card goes on top of ``pile`` (placement order is pay order) and the turn ends."""
    card = ((player, camel),)
    if pile == "winner":
        state = evolve(state, winner_pile=state.winner_pile + card)
    else:
        state = evolve(state, loser_pile=state.loser_pile + card)
    # The colour stays out of the event: events are public (R13).
    return end_turn(state), [{"type": "finish_card_placed", "player": player, "pile": pile}]


def do_paper_cards(state: State, action: Action) -> tuple[State, list[Event]]:
    """The host turns the piles over and records, in pile order, the camel of
    each face-down card; then the piles are paid as for any game (R37, R38).

    The entry is checked only against what the host may know (the piles'
    sizes and owners, its own entry): checked against a seat's hand, a refusal
    would tell the host which camels that seat's phone placed before it went
    on paper, and a retry would tell the next. A face-down card naming a camel
    the seat's phone had already placed is void instead: a seat holds one card
    per camel (R13), so it neither pays nor costs and leaves its pile; the
    reveal names it (``pile_revealed``'s ``void``)."""
    _only(action, *PILES)
    legal.check(state, action)
    named: dict[str, list[str]] = {}
    piles: dict[str, tuple[tuple[str, str], ...]] = {}
    void: dict[str, list[Event]] = {}
    for pile, cards in (("winner", state.winner_pile), ("loser", state.loser_pile)):
        camels = action.get(pile)
        down = state.face_down(cards)
        if not isinstance(camels, list) or len(camels) != len(down):
            raise bad(f"{pile}: name the camel of each of its {len(down)} face-down card(s), in pile order.")
        it = iter(camels)
        new = []
        for owner, camel in cards:
            if camel == FACE_DOWN:
                camel = next(it)
                if camel not in RACING:
                    raise bad(f"{pile}: {camel!r} is not a racing camel.")
                named.setdefault(owner, []).append(camel)
                if camel not in state.seat(owner).hand:
                    void.setdefault(pile, []).append({"player": owner, "camel": camel})
                    continue
            new.append((owner, camel))
        piles[pile] = tuple(new)
    for owner, camels in named.items():
        twice = sorted({c for c in camels if camels.count(c) > 1})
        if twice:
            raise EngineError("card_not_in_hand", f"{owner} holds one finish card per camel: "
                              f"{', '.join(twice)} cannot lie face down twice.")
    seats = tuple(evolve(s, hand=tuple(c for c in s.hand if c not in named.get(s.id, ()))) for s in state.seats)
    state = evolve(state, seats=seats, winner_pile=piles["winner"], loser_pile=piles["loser"])
    return race.score_piles(state, void)


def sample_paper_cards(state: State, rng: Rng) -> Action:
    """A random valid record of the face-down cards (random play-outs)."""
    left = {s.id: list(s.hand) for s in state.seats}
    for hand in left.values():
        rng.shuffle(hand)
    out: Action = {"type": "paper_cards"}
    for pile, cards in (("winner", state.winner_pile), ("loser", state.loser_pile)):
        out[pile] = [left[owner].pop() for _, owner in state.face_down(cards)]
    return out


def do_partner(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action, "with")
    legal.check(state, action)
    player, other = action["player"], action["with"]
    idx, oidx = state.index(player), state.index(other)
    state = set_seat(set_seat(state, idx, partner=other), oidx, partner=player)
    return end_turn(state), [{"type": "partnership_formed", "player": player, "with": other}]


def do_copy_choice(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action, "choice", "camel", "value")
    legal.check(state, action)
    player, kind = action["player"], action["choice"]
    bet = kind == "bet"
    camel: str | None = action["camel"] if bet else None
    value: int | None = action["value"] if bet else None
    state = set_seat(state, state.index(player), copy=Copy(kind, camel, value))
    event = {
        "type": "copy_chosen",
        "player": player,
        "choice": kind,
        "camel": camel,
        "value": value,
    }
    return state, [event]


# --- the pyramid ---------------------------------------------------------------------


def _pyramid_checks(state: State, action: Action) -> None:
    _only(action, "die", "value", "color", "returned")
    legal.check(state, action)


def do_pyramid(state: State, action: Action) -> tuple[State, list[Event]]:
    _pyramid_checks(state, action)
    _raise(legal.roll_fields(state, action))
    return race.roll(state, action["player"], action["die"], action["value"], action.get("color"))


def _undrawn_pyramid(state: State, action: Action) -> tuple[State, list[Event]]:
    """``do_pyramid``'s checks that come before its die: where ``draw`` gives
    no die (no race running, an empty pyramid), the roll's own refusal."""
    _pyramid_checks(state, action)
    if state.phase != PLAYING or not state.pyramid:
        _raise(legal.roll_fields(state, action))
    return state, []


def do_pyramid_manual(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action, "die", "value", "color", "returned")
    legal.check(state, action)
    return race.roll(state, action["player"], action["die"], action["value"], action.get("color"))


def do_next_leg(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action)
    legal.check(state, action)
    return _next_leg(state)


def do_next_round(state: State, action: Action) -> tuple[State, list[Event]]:
    """The platform's next round: the host's ``next_leg``."""
    _only(action)
    legal.check(state, action)
    return _next_leg(state)


def _next_leg(state: State) -> tuple[State, list[Event]]:
    state = evolve(state, tents=(), leg=state.leg + 1, phase=PLAYING)
    return state, [{"type": "leg_started", "leg": state.leg, "start_player": None}]



# --- host corrections --------------------------------------------------------------


def do_set_stack(state: State, action: Action) -> tuple[State, list[Event]]:
    _only(action, "space", "camels")
    legal.check(state, action)
    _raise(whole(action, "space", 1, SPACES))
    space = action["space"]
    camels = action.get("camels")
    if not isinstance(camels, list) or not all(isinstance(c, str) for c in camels):
        raise bad("camels must be a list of camel names, bottom to top.")
    if camels and space in state.tiles():
        raise EngineError(
            "tile_on_space", f"Space {space} holds a spectator tile; camels cannot stand there."
        )
    try:
        track = board.set_stack(state.track, space, camels)
    except ValueError as e:
        raise EngineError("bad_stack", f"Cannot set space {space}: {e}.") from None
    event = {
        "type": "stack_set",
        "player": action["player"],
        "space": space,
        "camels": list(camels),
        "before": list(state.track[space - 1]),
    }
    return evolve(state, track=track), [event]


HANDLERS: dict[str, Handler[State]] = {
    "leg_bet": do_leg_bet,
    "spectator": do_spectator,
    "pyramid": do_pyramid,
    "pyramid_manual": do_pyramid_manual,
    "finish_bet": do_finish_bet,
    "partner": do_partner,
    "copy_choice": do_copy_choice,
    "next_leg": do_next_leg,
    "next_round": do_next_round,
    "set_stack": do_set_stack,
    "set_paper": paper_handler(lambda s: [seat.id for seat in s.seats]),
    "set_phone": phone_handler(lambda s: [seat.id for seat in s.seats], stall.hold),
    "skip": stall.do_skip,
    "paper_cards": do_paper_cards,
}

def _dispatch(handlers: dict[str, Handler[State]], state: State, action: Action) -> tuple[State, list[Event]]:
    if state.phase == PAPER_CARDS and isinstance(action, dict) and action.get("type") in HANDLERS \
            and action.get("type") not in legal.WHILE_RECORDING:
        raise refusal("wrong_phase", "The race is over: the host records the face-down finish cards.")
    return dispatch(
        handlers,
        state,
        action,
        game="Camel Up",
        seats=[s.id for s in state.seats],
        over=state.phase == OVER,
        host_first=("next_round",),
    )


def draw_refusal(state: State, action: Action) -> EngineError | None:
    """What ``apply`` refuses ``action`` (a ``pyramid``) with, whatever die
    it draws: the same checks in the same order, no die drawn, no camel moved."""
    return refused_by(lambda: _dispatch({"pyramid": _undrawn_pyramid}, state, action))


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    new, events = _dispatch(HANDLERS, state, action)
    extra = _colours(state)
    if extra:
        events = [{**e, **extra} for e in events]
    return new, events
