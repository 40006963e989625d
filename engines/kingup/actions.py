"""``apply``: every action checked first, then a new state and its public events."""

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
)
from engines.kingup import castle, legal, scoring, stall
from engines.kingup.constants import (
    CHARACTERS,
    DECK,
    DECK_SIZE,
    ELIMINATED,
    INDEX,
    NO,
    THRONE,
    TOP_LEVEL,
    UNPLACED,
    YES,
    pos_label,
)
from engines.kingup.options import FULL
from engines.kingup.state import (
    AWAITING_GOALS,
    MOVEMENT,
    OVER,
    SCORED,
    SEALED,
    VOTE,
    Election,
    Revealed,
    RoundResult,
    State,
    new_round,
)

Result = tuple[State, list[Event]]


def apply(state: State, action: Action) -> Result:
    return dispatch(
        HANDLERS, state, action, game="King Up!", seats=state.players, over=state.phase == OVER
    )


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
    legal.goal(state, action)
    seat = state.seat(action["player"])
    goal = _six(action.get("characters"), "Your")
    goals = _set(state.goals, seat, goal)
    event = {"type": "goal_recorded", "player": state.players[seat]}
    return _score_if_ready(replace(state, goals=goals), [event])


def do_draw_goal(state: State, action: Action) -> Result:
    legal.draw_goal(state, action)
    seat = state.seat(action["player"])
    card = action.get("card")
    if type(card) is not int or not 0 <= card < DECK_SIZE:
        raise EngineError("bad_card", f"No virtual card was drawn (card {card!r}).")
    if card in state.used_cards:
        raise EngineError("card_taken", f"Virtual card {card} has already been dealt this game.")
    state = replace(
        state,
        goals=_set(state.goals, seat, DECK[card]),
        cards=_set(state.cards, seat, card),
        used_cards=state.used_cards + (card,),
    )
    return _score_if_ready(state, [{"type": "goal_drawn", "player": state.players[seat]}])


# --- placement and movement ---------------------------------------------------------


def do_place(state: State, action: Action) -> Result:
    legal.place(state, action)
    seat = state.seat(action["player"])
    char, level = action["char"], action["level"]
    positions = _set(state.positions, INDEX[char], level)
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
    legal.move(state, action)
    seat = state.seat(action["player"])
    char = action["char"]
    pos = state.positions[INDEX[char]]
    to = castle.target(pos)
    positions = _set(state.positions, INDEX[char], to)
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


# --- the election -------------------------------------------------------------------


def do_vote(state: State, action: Action) -> Result:
    legal.vote(state, action)
    seat = state.seat(action["player"])
    assert state.election is not None  # the rule checked it
    # A seat with no No card left seals too (its Yes is forced): a vote sent in
    # the open would tell the server its No count (KU-9); an opening No is refused.
    return _cast(state, state.election, seat, action["vote"], "vote_cast", "player")


def _cast(state: State, election: Election, seat: int, vote: str, kind: str, who: str) -> Result:
    """Seat ``seat``'s vote is in (event ``kind`` names it in field ``who``); the last
    one reveals them all, or, with votes still sealed, asks their phones to open them."""
    votes = _set(election.votes, seat, vote)
    sealed = (*election.sealed, seat) if vote == SEALED else election.sealed
    cast = sum(1 for v in votes if v is not None)
    events: list[Event] = [{"type": kind, who: state.players[seat], "count": cast, "of": state.n}]
    election = Election(election.candidate, votes, sealed)
    if election.opening:
        waiting = [p for p, v in zip(state.players, votes, strict=True) if v == SEALED]
        events.append({"type": "votes_opening", "players": waiting})
    if cast < state.n or election.opening:
        return replace(state, election=election), events
    final = tuple(v for v in votes if v is not None)
    return _reveal(state, election.candidate, final, events)


def do_open_vote(state: State, action: Action) -> Result:
    """A sealed vote opened by its phone (the server checked it against its
    seal first); the last one opened reveals the election."""
    legal.open_vote(state, action)
    seat = state.seat(action["player"])
    election = state.election
    assert election is not None  # the rule checked it
    if refused := legal.opened_value(state, action):
        raise refused
    vote = action["vote"]
    votes = _set(election.votes, seat, vote)
    left = sum(1 for v in votes if v == SEALED)
    events: list[Event] = [{"type": "vote_opened", "player": state.players[seat],
                            "count": len(election.sealed) - left, "of": len(election.sealed)}]
    if left:
        return replace(state, election=Election(election.candidate, votes, election.sealed)), events
    return _reveal(state, election.candidate, tuple(v for v in votes if v is not None), events)


def do_skip(state: State, action: Action) -> Result:
    """The host lets the election go on without a seat's vote: it counts as Yes
    (*invented*, docs/rules/kingup.md: every player always holds a Yes card, R17, and
    an absent player vetoes nobody)."""
    legal.RULES["skip"](state, action)
    seat = state.seat(action["seat"])
    election = state.election
    assert election is not None  # the rule checked it
    if election.votes[seat] == SEALED:
        # Its phone is gone with the value: nobody may see or set it. The seal is
        # withdrawn (sealed for good) and the seat votes again, under a new label.
        votes = _set(election.votes, seat, None)
        sealed = tuple(i for i in election.sealed if i != seat)
        withdrawn: Event = {"type": "vote_withdrawn", "seat": state.players[seat]}
        return replace(state, election=Election(election.candidate, votes, sealed)), [withdrawn]
    return _cast(state, election, seat, YES, "seat_skipped", "seat")


def _reveal(state: State, candidate: str, votes: tuple[str, ...], events: list[Event]) -> Result:
    """R13-R16: all votes at once; the candidate is crowned or eliminated."""
    crown = state.crown if state.crown is not None else 0
    crowned = all(v == YES for v in votes)
    revealed = {
        "type": "votes_revealed",
        "candidate": candidate,
        "votes": dict(zip(state.players, votes, strict=True)),
        "result": "crowned" if crowned else "eliminated",
        "crown": state.players[crown],
        "next": None,
    }
    state = replace(state, election=None, last_election=Revealed(candidate, votes, crowned))
    if crowned:
        events.append(revealed)
        return _score_if_ready(replace(state, phase=AWAITING_GOALS), events)
    nxt = (crown + 1) % state.n
    revealed["next"] = state.players[nxt]
    events.append(revealed)
    state = replace(
        state,
        positions=_set(state.positions, INDEX[candidate], ELIMINATED),
        no_left=tuple(k - 1 if v == NO else k for k, v in zip(state.no_left, votes, strict=True)),
        phase=MOVEMENT,
        turn=nxt,
    )
    return state, events


# --- score-only mode ----------------------------------------------------------------


def do_score_round(state: State, action: Action) -> Result:
    legal.score_round(state, action)
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
    return _score_if_ready(state, [event])


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


# --- scoring and rounds -------------------------------------------------------------


def _score_if_ready(state: State, events: list[Event]) -> Result:
    """R19-R23: score as soon as the King is crowned and every goal card is in."""
    if state.phase != AWAITING_GOALS or any(g is None for g in state.goals):
        return state, events
    goals = tuple(g for g in state.goals if g is not None)
    result = RoundResult(state.round, state.positions, goals, state.cards, state.crown)
    over = state.round >= state.config.rounds
    state = replace(state, phase=OVER if over else SCORED, results=state.results + (result,))
    raw = scoring.raw_scores(result)
    final = scoring.scores(state.config, result)
    players = state.players
    events.append(
        {
            "type": "round_scored",
            "round": state.round,
            "king": castle.chars_at(result.positions, THRONE)[0],
            "positions": {
                c: pos_label(p) for c, p in zip(CHARACTERS, result.positions, strict=True)
            },
            "goals": {p: list(g) for p, g in zip(players, goals, strict=True)},
            "raw": dict(zip(players, raw, strict=True)),
            "scores": dict(zip(players, final, strict=True)),
            "rule33": [p for p, r, s in zip(players, raw, final, strict=True) if r != s],
        }
    )
    if over:
        outcome = scoring.game_result(state) or {}
        events.append({"type": "game_over", **outcome})
    return state, events


def do_next_round(state: State, action: Action) -> Result:
    legal.next_round(state, action)
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


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


HANDLERS: dict[str, Handler[State]] = {
    "goal": do_goal,
    "draw_goal": do_draw_goal,
    "place": do_place,
    "move": do_move,
    "vote": do_vote,
    "open_vote": do_open_vote,
    "next_round": do_next_round,
    "score_round": do_score_round,
    "set_paper": paper_handler(lambda s: s.players),
    "set_phone": phone_handler(lambda s: s.players, stall.hold),
    "skip": do_skip,
}
