"""``apply``: every action checked first, then a new state and its public events.
The election's handlers (vote, open_vote, skip) are in ``election.py``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engines.base import (
    Action,
    EngineError,
    Event,
    Handler,
    dispatch,
    paper_handler,
    phone_handler,
    refused_by,
)
from engines.kingup import castle, election, legal, scoring, stall
from engines.kingup.constants import (
    CHARACTERS,
    DECK,
    DECK_SIZE,
    ELIMINATED,
    INDEX,
    THRONE,
    TOP_LEVEL,
    UNPLACED,
)
from engines.kingup.options import FULL
from engines.kingup.state import (
    AWAITING_GOALS,
    MOVEMENT,
    OVER,
    VOTE,
    Election,
    State,
    deck_left,
    new_round,
    put,
)

Result = tuple[State, list[Event]]


def apply(state: State, action: Action) -> Result:
    return _dispatch(HANDLERS, state, action)


def _dispatch(handlers: dict[str, Handler[State]], state: State, action: Action) -> Result:
    return dispatch(
        handlers, state, action, game="King Up!", seats=state.players, over=state.phase == OVER
    )


def draw_refusal(state: State, action: Action) -> EngineError | None:
    """What ``apply`` refuses ``action`` (a ``draw_goal``) with, whatever card
    it deals: the same checks in the same order, no card dealt."""
    return refused_by(lambda: _dispatch({"draw_goal": _undrawn_goal}, state, action))


# --- checks -------------------------------------------------------------------------


def _six(value: Any, whose: str) -> tuple[str, ...]:
    ok = (
        isinstance(value, list)
        and len(value) == 6
        and all(isinstance(c, str) and c in INDEX for c in value)
        and len(set(value)) == 6
    )
    if not ok:
        raise EngineError(
            "bad_goal", f"{whose} goal card must list 6 distinct characters from A to M."
        )
    return tuple(sorted(value))


# --- goal cards ---------------------------------------------------------------------


def do_goal(state: State, action: Action) -> Result:
    legal.check(state, action)
    seat = state.seat(action["player"])
    goal = _six(action.get("characters"), "Your")
    goals = put(state.goals, seat, goal)
    event = {"type": "goal_recorded", "player": state.players[seat]}
    return scoring.score_if_ready(replace(state, goals=goals), [event])


def _dealt(state: State, card: Any) -> int:
    """``card``, a virtual card still in the deck (KU-13)."""
    if type(card) is not int or not 0 <= card < DECK_SIZE:
        raise EngineError("bad_card", f"No virtual card was drawn (card {card!r}).")
    if card in state.used_cards:
        raise EngineError("card_taken", f"Virtual card {card} has already been dealt this game.")
    return card


def do_draw_goal(state: State, action: Action) -> Result:
    legal.check(state, action)
    seat = state.seat(action["player"])
    card = _dealt(state, action.get("card"))
    state = replace(
        state,
        goals=put(state.goals, seat, DECK[card]),
        cards=put(state.cards, seat, card),
        used_cards=state.used_cards + (card,),
    )
    return scoring.score_if_ready(state, [{"type": "goal_drawn", "player": state.players[seat]}])


# --- placement and movement ---------------------------------------------------------


def do_place(state: State, action: Action) -> Result:
    legal.check(state, action)
    seat = state.seat(action["player"])
    char, level = action["char"], action["level"]
    positions = put(state.positions, INDEX[char], level)
    events: list[Event] = [
        {"type": "placed", "player": state.players[seat], "char": char, "level": level}
    ]
    placed = sum(1 for p in positions if p != UNPLACED)
    if placed < state.n * state.placements_each:
        return replace(state, positions=positions, turn=(seat + 1) % state.n), events
    # R7, R9: left-overs to level 0; after n*N placements the turn is back at the start.
    spare = castle.chars_at(positions, UNPLACED)
    positions = tuple(0 if p == UNPLACED else p for p in positions)
    events.append(
        {"type": "placement_done", "leftovers": spare, "next": state.players[state.start]}
    )
    return replace(state, positions=positions, phase=MOVEMENT, turn=state.start), events


def do_move(state: State, action: Action) -> Result:
    legal.check(state, action)
    seat = state.seat(action["player"])
    char = action["char"]
    pos = state.positions[INDEX[char]]
    to = castle.target(pos)
    positions = put(state.positions, INDEX[char], to)
    player = state.players[seat]
    if to != THRONE:
        moved = {"type": "moved", "player": player, "char": char, "from": pos, "to": to}
        return replace(state, positions=positions, turn=(seat + 1) % state.n), [moved]
    # R12: a candidate; the mover takes the crown and everyone votes.
    state = replace(
        state,
        positions=positions,
        phase=VOTE,
        turn=None,
        crown=seat,
        election=Election(candidate=char, votes=(None,) * state.n),
    )
    return state, [{"type": "nominated", "player": player, "char": char}]


# --- score-only mode ----------------------------------------------------------------


def do_score_round(state: State, action: Action) -> Result:
    legal.check(state, action)
    seat = state.seat(action["player"])
    positions = _board(action.get("board"))
    problem = castle.board_problem(state, positions)
    if problem:
        raise EngineError("bad_board", problem)
    given = action.get("goals", {})
    if not isinstance(given, dict):
        raise EngineError("bad_goal", "goals maps player ids to 6 characters each.")
    for pid in given:
        if pid not in state.players:
            raise EngineError("bad_goal", f"{pid!r} has no seat at this table.")
    goals = list(state.goals)
    for i, pid in enumerate(state.players):
        if goals[i] is not None and pid in given:
            raise EngineError(
                "goal_already_recorded", f"{pid} already has a goal card for this round."
            )
        if goals[i] is None:
            if pid not in given:
                raise EngineError("missing_goal", f"The goal card of {pid} is missing.")
            goals[i] = _six(given[pid], f"{pid}'s")
    state = replace(state, positions=positions, goals=tuple(goals), phase=AWAITING_GOALS)
    event = {"type": "board_entered", "player": state.players[seat], "round": state.round}
    return scoring.score_if_ready(state, [event])


def _board(board: Any) -> tuple[int, ...]:
    if not isinstance(board, dict) or set(board) != set(CHARACTERS):
        raise EngineError("bad_board", "The board must give the position of all 13 characters.")
    positions = []
    for c in CHARACTERS:
        where = board[c]
        if where == "throne":
            positions.append(THRONE)
        elif where == "eliminated":
            positions.append(ELIMINATED)
        elif type(where) is int and 0 <= where <= TOP_LEVEL:
            positions.append(where)
        else:
            raise EngineError(
                "bad_board", f"{c}: a position is 0 to 5, 'throne' or 'eliminated', not {where!r}."
            )
    return tuple(positions)


# --- rounds -------------------------------------------------------------------------


def do_next_round(state: State, action: Action) -> Result:
    legal.check(state, action)
    # R5, R22: the player left of the crown holder starts; score-only has no crown.
    start = state.start if state.crown is None else (state.crown + 1) % state.n
    state = new_round(
        state.config,
        state.players,
        state.round + 1,
        start,
        state.used_cards,
        state.results,
        state.paper,
    )
    full = state.config.play_mode == FULL
    event = {
        "type": "round_started",
        "round": state.round,
        "start": state.players[start] if full else None,
    }
    return state, [event]


def _undrawn_goal(state: State, action: Action) -> Result:
    """``do_draw_goal``'s checks that come before its card: with no card left
    to deal, ``draw`` gives none, and the deal's own refusal."""
    legal.check(state, action)
    if not deck_left(state):
        _dealt(state, action.get("card"))
    return state, []


HANDLERS: dict[str, Handler[State]] = {
    "goal": do_goal,
    "draw_goal": do_draw_goal,
    "place": do_place,
    "move": do_move,
    "vote": election.do_vote,
    "open_vote": election.do_open_vote,
    "next_round": do_next_round,
    "score_round": do_score_round,
    "set_paper": paper_handler(lambda s: s.players),
    "set_phone": phone_handler(lambda s: s.players, stall.hold),
    "skip": election.do_skip,
}
