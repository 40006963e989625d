"""Who may send what, and when (``engines.legality``): each action type's
rule, which its handler in ``actions.py`` runs first, and the offers
``legal_actions`` derives from the same rules.

What a rule leaves to its handler is free input (a whole stack, the camels
of the face-down cards) and the app's die, drawn after the offer is made
(``roll_fields``, the handler's second check for ``pyramid``)."""

from __future__ import annotations

import itertools

from engines.base import Action, EngineError, refusal
from engines.camelup import board, stall
from engines.camelup.constants import (
    CRAZY,
    GREY,
    PARTNERSHIP_MIN_PLAYERS,
    PILES,
    RACING,
    SIDES,
    SPACES,
)
from engines.camelup.state import LEG_OVER, PAPER_CARDS, PLAYING, State
from engines.errors import one_of, whole
from engines.legality import Gate, Offers, Refused, Rule, checker
from engines.seats import phone_rule

#: What ``copy_choice`` may name: the partner's best ticket, none, its
#: pyramid ticket or one of its betting tickets.
COPIES = ("best", "none", "pyramid", "bet")


def bad(message: str) -> EngineError:
    return refusal("bad_action", message)


def host(state: State, action: Action) -> Refused:
    if action.get("host") is not True:
        return refusal("not_host", f"Only the host may send {action['type']}.")
    return None


def full_mode(state: State, what: str) -> Refused:
    if state.options.pyramid_only:
        return refusal("wrong_mode", f"{what} is not part of pyramid-only mode (no betting or money).")
    return None


def turn(state: State, player: str) -> Refused:
    current = state.current
    if current is None:
        # Only a full game in play has turns; its handlers never get here
        # without one (the modes, phases and game over refuse first).
        return refusal("wrong_phase", "No turn is being played now.")
    if state.seats[current].id != player:
        return refusal("not_your_turn", f"It is {state.seats[current].id}'s turn, not {player}'s.")
    return None


def _full_turn(what: str) -> Gate[State]:
    """A turn's action (A1 to A5): a full game, and the sender's turn."""

    def when(state: State, action: Action) -> Refused:
        return full_mode(state, what) or turn(state, action["player"])

    return when


# --- A1 to A5 ---------------------------------------------------------------


def _ticket(state: State, action: Action) -> Refused:
    if refused := one_of(action, "camel", RACING):
        return refused
    camel = action["camel"]
    if not state.tickets[RACING.index(camel)]:
        return EngineError("no_ticket_left", f"All {camel} betting tickets are taken this leg.")
    return None


def _targets(state: State, player: str) -> list[tuple[int, str]]:
    return board.tile_targets(state.track, state.tiles(), player, state.options.flip_in_place)


def _tile(state: State, action: Action) -> Refused:
    if refused := whole(action, "space", 1, SPACES) or one_of(action, "side", SIDES):
        return refused
    player, space, side = action["player"], action["space"], action["side"]
    if (space, side) not in _targets(state, player):
        why = board.tile_refusal(state.track, state.tiles(), state.seat(player).tile, space, side)
        return EngineError("space_not_allowed", why)
    return None


def _cards(state: State, player: str) -> list[Action]:
    if state.paper_cards_left(player) <= 0:
        return []
    # A seat on paper places a physical card face down: its camel is never typed in.
    if player in state.paper:
        return [{"pile": pile} for pile in PILES]
    return [{"pile": pile, "camel": c} for pile in PILES for c in state.seat(player).hand]


def _card(state: State, action: Action) -> Refused:
    if refused := one_of(action, "pile", PILES):
        return refused
    player = action["player"]
    if player in state.paper:
        if "camel" in action:
            return EngineError(
                "face_down_card",
                f"{player} has no phone: its finish card stays face down, enter only the pile.",
            )
        if state.paper_cards_left(player) <= 0:
            return EngineError("card_not_in_hand", f"{player} has no finish card left.")
        return None
    if refused := one_of(action, "camel", RACING):
        return refused
    if action["camel"] not in state.seat(player).hand:
        return EngineError(
            "card_not_in_hand", f"Your {action['camel']} finish card is already on a pile."
        )
    if state.paper_cards_left(player) <= 0:
        # Back on its phone after placing cards face down: those are physical cards.
        return EngineError("card_not_in_hand", "Every finish card of yours is on a pile (some face down).")
    return None


def _partnering(state: State, action: Action) -> Refused:
    if refused := full_mode(state, "Partnership"):
        return refused
    if len(state.seats) < PARTNERSHIP_MIN_PLAYERS:
        return EngineError("no_partnerships", "Partnerships exist only with 6 to 8 players.")
    return turn(state, action["player"])


def _partners(state: State, player: str) -> list[Action]:
    if state.seat(player).partner is not None:
        return []
    return [{"with": s.id} for s in state.seats if s.id != player and s.partner is None]


def _partner(state: State, action: Action) -> Refused:
    player, other = action["player"], action.get("with")
    if not isinstance(other, str) or other == player or not any(s.id == other for s in state.seats):
        return bad(f"with must name another player at the table, not {other!r}.")
    partner = state.seat(player).partner
    if partner is not None:
        return EngineError("already_partnered", f"You already have a partner this leg ({partner}).")
    if state.seat(other).partner is not None:
        return EngineError("partner_not_available", f"{other} already has a partner this leg.")
    return None


def _copying(state: State, action: Action) -> Refused:
    if refused := full_mode(state, "Partnership copy"):
        return refused
    if state.options.partnership_copy != "ask":
        return EngineError("copy_is_auto", "This table copies the partner's best ticket automatically.")
    if state.seat(action["player"]).partner is None:
        return EngineError("no_partner", "You have no partner this leg.")
    return None


def mate(state: State, player: str) -> str:
    """The partner of ``player``, whom ``copy_choice``'s rule made sure of."""
    partner = state.seat(player).partner
    assert partner is not None
    return partner


def _copies(state: State, player: str) -> list[Action]:
    partner = state.seat(mate(state, player))
    out: list[Action] = [{"choice": "best"}, {"choice": "none"}]
    if partner.pyramid_tickets:
        out.append({"choice": "pyramid"})
    return out + [{"choice": "bet", "camel": c, "value": v} for c, v in dict.fromkeys(partner.bets)]


def _copy(state: State, action: Action) -> Refused:
    if refused := one_of(action, "choice", COPIES):
        return refused
    kind, partner = action["choice"], state.seat(mate(state, action["player"]))
    if kind == "bet":
        if refused := one_of(action, "camel", RACING) or whole(action, "value", 1, 5):
            return refused
        camel, value = action["camel"], action["value"]
        if (camel, value) not in partner.bets:
            return EngineError("no_such_ticket", f"{partner.id} holds no {camel} {value} ticket.")
    elif "camel" in action or "value" in action:
        return bad("camel and value go only with choice bet.")
    elif kind == "pyramid" and partner.pyramid_tickets == 0:
        return EngineError("no_such_ticket", f"{partner.id} holds no pyramid ticket.")
    return None


# --- the pyramid --------------------------------------------------------------


def _rolling(manual: bool) -> Gate[State]:
    def when(state: State, action: Action) -> Refused:
        dice = state.options.dice_source
        if dice == "manual" and not manual:
            return EngineError("manual_dice", "This table rolls physical dice: send pyramid_manual.")
        if dice == "app" and manual:
            return EngineError("app_dice", "This table's dice are rolled by the app: send pyramid.")
        if state.options.pyramid_only:
            # Any seat may roll: the phone is the pyramid.
            if state.phase == LEG_OVER:
                return EngineError("leg_over", "The leg is over: start the next leg first (next_leg).")
            return None
        if action.get("returned") is True and not manual:
            # The die an undo put back (the server sets ``returned``): whoever
            # picks it up rolls it and takes the ticket; the turn stays where it was.
            if state.phase != PLAYING or state.current is None:
                return refusal("wrong_phase", "There is no die to roll now.")
            return None
        return turn(state, action["player"])

    return when


def roll_fields(state: State, action: Action) -> Refused:
    """The die, value and colour of a roll: the table's (``pyramid_manual``)
    or the app's draw (``pyramid``)."""
    die = action.get("die")
    if die is None:
        return bad("The roll has no die: the server draws it (fixed random: give die and value).")
    if die not in state.pyramid:
        dice = ", ".join(state.pyramid) or "none"
        return EngineError("die_not_in_pyramid", f"The {die} die is not in the pyramid (left: {dice}).")
    if refused := whole(action, "value", 1, 3):
        return refused
    if die == GREY:
        return one_of(action, "color", CRAZY)
    if action.get("color") is not None:
        return bad("color belongs to the grey die only.")
    return None


def _outcomes(state: State, player: str) -> list[Action]:
    """Every outcome the physical pyramid could give now."""
    out: list[Action] = []
    for die, value in itertools.product(state.pyramid, (1, 2, 3)):
        if die == GREY:
            out += [{"die": die, "value": value, "color": c} for c in CRAZY]
        else:
            out.append({"die": die, "value": value})
    return out


def _next_leg(state: State, action: Action) -> Refused:
    if not state.options.pyramid_only:
        return refusal(
            "no_round_waiting",
            "Legs never pause in a full game: the next leg starts with the die that ends one.",
        )
    if state.phase != LEG_OVER:
        return refusal("no_round_waiting", "The leg is still running: roll until 5 dice are out.")
    return None


def _cards_down(state: State, action: Action) -> Refused:
    if state.phase != PAPER_CARDS:
        return refusal("wrong_phase", "No face-down finish cards wait to be recorded now.")
    return None


#: Each action type's rule. Exact ones: their choices are what their picks
#: take (offers are built for every seat at every change, and a pick per
#: choice would cost the turn's seat four times what listing costs);
#: test_legality holds the two together. ``skip`` has none: it is never
#: accepted (no passing, R9; ``stall.do_skip``).
RULES: dict[str, Rule[State]] = {
    "leg_bet": Rule(
        _full_turn("Leg betting"),
        lambda state, player: [{"camel": c} for c, left in zip(RACING, state.tickets, strict=True) if left],
        _ticket,
        exact=True,
    ),
    # The offers are ``board.tile_targets``, which the pick checks against.
    "spectator": Rule(
        _full_turn("The spectator tile"),
        lambda state, player: [{"space": s, "side": side} for s, side in _targets(state, player)],
        _tile,
        exact=True,
    ),
    # The app's die is drawn after the offer: its handler checks ``roll_fields``.
    "pyramid": Rule(_rolling(False)),
    "pyramid_manual": Rule(_rolling(True), _outcomes, roll_fields, exact=True),
    "finish_bet": Rule(_full_turn("Finish betting"), _cards, _card, exact=True),
    "partner": Rule(_partnering, _partners, _partner, exact=True),
    "copy_choice": Rule(_copying, _copies, _copy, exact=True),
    "next_leg": Rule(_next_leg),
    "next_round": Rule(lambda state, action: host(state, action) or _next_leg(state, action), shared=True),
    # Bare: the space and its camels are copied from the physical board.
    "set_stack": Rule(host, shared=True),
    # Bare: the camels of the face-down cards are turned over by the host.
    "paper_cards": Rule(lambda state, action: host(state, action) or _cards_down(state, action), shared=True),
    "set_phone": phone_rule(lambda s: [seat.id for seat in s.seats], stall.hold),
}


#: A handler's first check: the rule of its action's type.
check = checker(RULES)


#: What may still happen while the face-down cards wait to be recorded
#: (``actions.apply`` refuses the rest first).
WHILE_RECORDING = frozenset({"paper_cards", "set_paper", "set_phone"})


def _kinds(phase: str, pyramid_only: bool, manual: bool, ask: bool, own_turn: bool) -> tuple[str, ...]:
    """The types whose rules can pass in a case, in the order the phones list
    them: a type left out here would hide an action its rule accepts, which
    test_legality's accepted => offered direction catches."""
    roll = "pyramid_manual" if manual else "pyramid"
    if phase == PAPER_CARDS:
        return ("paper_cards", "set_phone")
    if pyramid_only:
        if phase == LEG_OVER:
            return ("next_leg", "next_round", "set_stack", "set_phone")
        return (roll, "set_stack", "set_phone")
    turns = ("leg_bet", "spectator", roll, "finish_bet", "partner") if own_turn else ()
    return (*(("copy_choice",) if ask else ()), "set_stack", "set_phone", *turns)


#: (phase, pyramid-only, manual dice, copies asked, the seat's turn, on
#: paper) -> the types to ask. A seat on paper has no phone to hand back to itself.
_TYPES: dict[tuple[str, bool, bool, bool, bool, bool], tuple[str, ...]] = {
    (phase, pyr, manual, ask, own, paper): tuple(
        t for t in _kinds(phase, pyr, manual, ask, own) if not (paper and t == "set_phone")
    )
    for phase in (PLAYING, LEG_OVER, PAPER_CARDS)
    for pyr, manual, ask, own, paper in itertools.product((False, True), repeat=5)
}


def _types(state: State, player: str) -> tuple[str, ...]:
    current = state.current
    own = current is not None and state.seats[current].id == player
    opts = state.options
    where = (
        state.phase, opts.pyramid_only, opts.dice_source == "manual", opts.partnership_copy == "ask",
        own, player in state.paper,
    )
    return _TYPES.get(where, ())


#: ``legal_actions``: the host's corrections, next round and record of the
#: face-down cards are listed for any seat (``host_actions``: the server keeps
#: them for the host); ``set_phone`` carries ``"host": True``.
offers: Offers[State] = Offers(RULES, _types, host_types=("next_round", "set_stack", "paper_cards"))
