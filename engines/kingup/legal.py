"""Who may send what, and when (``engines.legality``): each action type's
rule, which its handler in ``actions.py`` runs first, and the offers
``legal_actions`` derives from the same rules."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache

from engines.base import Action, EngineError, refusal
from engines.kingup import castle, stall
from engines.kingup.constants import ELIMINATED, INDEX, NO, PLACE_LEVELS, UNPLACED, VOTES
from engines.kingup.options import DEAL, FULL, RECORD, SCORE_ONLY
from engines.kingup.state import (
    AWAITING_GOALS,
    MOVEMENT,
    PLACEMENT,
    SCORE_ENTRY,
    SCORED,
    SEALED,
    VOTE,
    State,
)
from engines.legality import Offers, Refused, Rule, checker
from engines.seats import SKIP_WHY, phone_rule, seat_rule, skip_refusal


def mode(state: State, play_mode: str, what: str) -> Refused:
    if state.config.play_mode != play_mode:
        other = "score-only" if play_mode == FULL else "full-tracking"
        return refusal("wrong_mode", f"This table plays in {other} mode: no {what} here.")
    return None


def turn(state: State, seat: int) -> Refused:
    if state.turn != seat:
        return refusal("not_your_turn", f"It is {state.players[state.turn or 0]}'s turn, not yours.")
    return None


def char(action: Action) -> Refused:
    value = action.get("char")
    if not isinstance(value, str) or value not in INDEX:
        return EngineError("bad_character", f"{value!r} is not a character: use A to M.")
    return None


def goal_open(state: State, seat: int) -> Refused:
    if state.phase == SCORED:
        return EngineError(
            "round_scored",
            f"Round {state.round} is already scored; goal cards for the next round come "
            "after next_round.",
        )
    if state.goals[seat] is not None:
        return EngineError(
            "goal_already_recorded", f"You already have your goal card for round {state.round}."
        )
    return None


def _goal_mode(state: State, action: Action, goal_mode: str, wrong_mode: str) -> Refused:
    """The acting seat may take a goal card the ``goal_mode`` way."""
    if state.config.goal_mode != goal_mode:
        return refusal("wrong_mode", wrong_mode)
    return goal_open(state, state.seat(action["player"]))


# -- the rules, one per action type --------------------------------------------


def _goal(state: State, action: Action) -> Refused:
    seat = state.seat(action["player"])
    if not state.on_paper(seat):
        return _goal_mode(
            state, action, RECORD,
            "Goal cards come from the virtual deck at this table: use draw_goal.",
        )
    # Record mode for a paper seat even when the table deals: its card is printed.
    if refused := goal_open(state, seat):
        return refused
    # Nobody types a printed card in before the table sees it, at round scoring (R19).
    if state.phase != AWAITING_GOALS:
        return EngineError(
            "goal_on_paper",
            f"{state.players[seat]} plays on paper: their printed goal card is entered "
            "once the King is crowned, when the goal cards are shown.",
        )
    return None


def _draw_goal(state: State, action: Action) -> Refused:
    seat = state.seat(action["player"])
    if state.on_paper(seat):
        # A seat gone to paper after the app dealt its card holds that card.
        if refused := goal_open(state, seat):
            return refused
        return EngineError(
            "goal_on_paper",
            f"{action['player']} plays on paper with a printed goal card: enter it with goal "
            "once the King is crowned.",
        )
    return _goal_mode(
        state, action, DEAL, "This table records the printed goal cards: use goal {characters}."
    )


def _placing(state: State, action: Action) -> Refused:
    if refused := mode(state, FULL, "placement"):
        return refused
    if state.phase != PLACEMENT:
        return refusal("wrong_phase", "Placement is over for this round.")
    return turn(state, state.seat(action["player"]))


@lru_cache(maxsize=256)
def _placements(positions: tuple[int, ...]) -> frozenset[tuple[str, int]]:
    return frozenset(castle.legal_placements(positions))


def _placement(state: State, action: Action) -> Refused:
    """R6, as ``castle.legal_placements`` lists it, refused with its reason."""
    if refused := char(action):
        return refused
    c, level = action["char"], action.get("level")
    if state.positions[INDEX[c]] != UNPLACED:
        return EngineError("already_placed", f"{c} is already on the board.")
    if type(level) is not int or level not in PLACE_LEVELS:
        return EngineError(
            "bad_level", f"Characters are placed on levels 1 to 4 only, not {level!r}."
        )
    if (c, level) not in _placements(state.positions):
        return EngineError("level_full", f"Level {level} already holds 4 characters.")
    return None


def _moving(state: State, action: Action) -> Refused:
    if refused := mode(state, FULL, "moves"):
        return refused
    if state.phase == VOTE:
        return refusal("wrong_phase", "An election is under way: vote first.")
    if state.phase != MOVEMENT:
        return refusal("wrong_phase", "Characters move only in the movement phase.")
    return turn(state, state.seat(action["player"]))


@lru_cache(maxsize=256)
def _moves(positions: tuple[int, ...]) -> frozenset[str]:
    return frozenset(castle.legal_moves(positions))


def _movement(state: State, action: Action) -> Refused:
    """R10, as ``castle.legal_moves`` lists it, refused with its reason."""
    if refused := char(action):
        return refused
    c = action["char"]
    pos = state.positions[INDEX[c]]
    if pos == UNPLACED or pos == ELIMINATED:
        where = "eliminated" if pos == ELIMINATED else "not on the board"
        return EngineError("not_on_board", f"{c} is {where} and cannot move.")
    if c not in _moves(state.positions):
        return EngineError("level_full", f"Level {pos + 1} already holds 4 characters.")
    return None


def _voting(state: State, action: Action) -> Refused:
    seat = state.seat(action["player"])
    election = state.election
    if refused := mode(state, FULL, "elections"):
        return refused
    if state.phase != VOTE or election is None:
        return refusal("wrong_phase", "There is no election to vote in.")
    if election.votes[seat] is not None:
        return EngineError("already_voted", "You have already voted; votes are final.")
    if state.on_paper(seat):
        # A paper seat's vote is a card shown at the reveal: typing it in earlier would
        # show it to the phone entering it while the others still choose.
        waiting = [
            p
            for i, p in enumerate(state.players)
            if not state.on_paper(i) and election.votes[i] is None
        ]
        if waiting:
            return EngineError(
                "phones_voting",
                f"{state.players[seat]}'s vote card is entered once every phone has voted "
                f"(still waiting for {', '.join(waiting)}).",
            )
    return None


def _vote_value(state: State, action: Action, allowed: tuple[str, ...], words: str) -> Refused:
    vote = action.get("vote")
    if vote not in allowed:
        return EngineError("bad_vote", f"A vote is {words}, not {vote!r}.")
    if vote == NO and state.no_left[state.seat(action["player"])] == 0:
        return EngineError("no_card_left", "You have no No card left: you can only vote Yes.")
    return None


_CAST = (*VOTES, SEALED)


def _vote(state: State, action: Action) -> Refused:
    # A vote sent sealed is one of those offered, chosen and hashed on the phone.
    return _vote_value(state, action, _CAST, "'yes', 'no' or 'sealed'")


def opened_value(state: State, action: Action) -> Refused:
    """The value an ``open_vote`` claims: the phone's free input, checked
    against its seal by the server first."""
    return _vote_value(state, action, VOTES, "'yes' or 'no'")


def _opening(state: State, action: Action) -> Refused:
    if refused := mode(state, FULL, "elections"):
        return refused
    election = state.election
    if state.phase != VOTE or election is None or not election.opening:
        return refusal("wrong_phase", "Sealed votes are opened once every vote is in.")
    seat = state.seat(action["player"])
    if election.votes[seat] != SEALED:
        return EngineError("not_sealed", f"{state.players[seat]} has no sealed vote to open.")
    return None


def _score_round(state: State, action: Action) -> Refused:
    if refused := mode(state, SCORE_ONLY, "board entry"):
        return refused
    if state.phase == SCORED:
        return EngineError("round_scored", f"Round {state.round} is already scored.")
    if state.phase != SCORE_ENTRY:
        return refusal("wrong_phase", "The board of this round has already been entered.")
    return None


def _next_round(state: State, action: Action) -> Refused:
    if action.get("host") is not True:
        return refusal("not_host", "Only the host starts the next round.")
    if state.phase != SCORED:
        return refusal(
            "no_round_waiting", f"Round {state.round} is not scored yet: finish it first."
        )
    return None


def _skip(state: State, action: Action) -> Refused:
    if refused := skip_refusal(action, state.players, stall.waiting(state)):
        return refused
    if state.election is None:
        return stall.cannot_skip(state, action["seat"]) or refusal(
            "wrong_phase", "There is nothing to skip now."
        )
    return None


#: Each action type's rule. Exact ones: the offers are castle's own lists,
#: which the picks check against.
RULES: dict[str, Rule[State]] = {
    "goal": Rule(_goal),
    "draw_goal": Rule(_draw_goal),
    "place": Rule(
        _placing,
        lambda state, player: [{"char": c, "level": lv} for c, lv in castle.legal_placements(state.positions)],
        _placement,
        exact=True,
    ),
    "move": Rule(
        _moving, lambda state, player: [{"char": c} for c in castle.legal_moves(state.positions)], _movement,
        exact=True,
    ),
    # The choices: the app seals the one chosen (vote "sealed" with its hash,
    # docs/api.md), a forced Yes too; a table that keeps seals refuses one sent
    # as is unless it reveals the election at once (fair.seal_required).
    "vote": Rule(_voting, lambda state, player: ({"vote": "yes"}, {"vote": NO}), _vote),
    # Bare: the value and salt are on one phone (the host's, for a paper seat).
    "open_vote": Rule(_opening),
    "score_round": Rule(_score_round),
    "next_round": Rule(_next_round, shared=True),
    "set_phone": phone_rule(lambda s: s.players, stall.hold),
    "skip": seat_rule(stall.waiting, SKIP_WHY, _skip),
}
#: A handler's first check: the rule of its action's type.
check = checker(RULES)
#: A seat on paper: its printed goal card and, entered for it, its turns and
#: its vote card (and the opening of one sealed on the host's phone); host
#: powers stay with the host's phone.
_PAPER = frozenset({"goal", "place", "move", "vote", "open_vote", "score_round"})
#: Where a type's rule can pass at all, by (phase, seat on paper, goal mode,
#: play mode, its turn, its goal card still to come); types not named:
#: anywhere. Offers asks only these rules, since
#: most types are refused in most phases; a case left out here would hide an
#: action its rule accepts, which test_legality's accepted => offered catches.
_GOALS = frozenset({PLACEMENT, MOVEMENT, VOTE, SCORE_ENTRY, AWAITING_GOALS})
_Where = tuple[str, bool, str, str, bool, bool]
_WHERE: dict[str, Callable[[str, bool, str, str, bool, bool], bool]] = {
    "goal": lambda ph, paper, goals, play, turn, card: (
        card and ph in _GOALS and (paper or goals == RECORD)
    ),
    "draw_goal": lambda ph, paper, goals, play, turn, card: card and ph in _GOALS and goals == DEAL,
    "place": lambda ph, paper, goals, play, turn, card: turn and ph == PLACEMENT and play == FULL,
    "move": lambda ph, paper, goals, play, turn, card: turn and ph == MOVEMENT and play == FULL,
    "vote": lambda ph, paper, goals, play, turn, card: ph == VOTE and play == FULL,
    "open_vote": lambda ph, paper, goals, play, turn, card: ph == VOTE and play == FULL,
    "score_round": lambda ph, paper, goals, play, turn, card: (
        ph == SCORE_ENTRY and play == SCORE_ONLY
    ),
    "next_round": lambda ph, paper, goals, play, turn, card: ph == SCORED,
    "skip": lambda ph, paper, goals, play, turn, card: ph == VOTE,
}
#: Each case (``_Where``) -> the types to ask, in RULES' order.
_TYPES: dict[_Where, tuple[str, ...]] = {
    where: tuple(
        t for t in RULES
        if (t in _PAPER or not where[1]) and (t not in _WHERE or _WHERE[t](*where))
    )
    for where in itertools.product(
        (PLACEMENT, MOVEMENT, VOTE, SCORE_ENTRY, AWAITING_GOALS, SCORED),
        (False, True),
        (RECORD, DEAL),
        (FULL, SCORE_ONLY),
        (False, True),
        (False, True),
    )
}


def _types(state: State, player: str) -> tuple[str, ...]:
    seat = state.seat(player)
    cfg = state.config
    where = (state.phase, state.on_paper(seat), cfg.goal_mode, cfg.play_mode,
             state.turn == seat, state.goals[seat] is None)
    return _TYPES.get(where, ())


#: ``legal_actions``: ``goal`` and ``score_round`` name only the type (the
#: phone supplies the characters, the board). ``next_round`` is listed as if
#: the seat were the host (``host_actions``); ``set_phone`` and ``skip``
#: carry ``"host": True``.
offers: Offers[State] = Offers(
    RULES,
    _types,
    host_types=("next_round",),
)
