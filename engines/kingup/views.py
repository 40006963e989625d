"""Per-seat views, built field by field: nothing secret unless it is the viewer's own.

Secret until round scoring: goal cards (and deal-mode card numbers, and which cards the
virtual deck has dealt). Secret for ever: No counts. Secret until the reveal: votes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import paper_until
from engines.kingup import castle, scoring, stall
from engines.kingup.constants import (
    CHARACTERS,
    ELIMINATED,
    LEVEL_CAP,
    THRONE,
    TOP_LEVEL,
    UNPLACED,
    pos_label,
    value,
)
from engines.kingup.options import DEAL, FULL
from engines.kingup.state import (
    AWAITING_GOALS,
    OVER,
    PLACEMENT,
    SCORED,
    SEALED,
    RoundResult,
    State,
    paper_waiting,
)


def view(state: State, player: str | None) -> dict[str, Any]:
    return viewer(state)(player)


def viewer(state: State) -> Callable[[str | None], dict[str, Any]]:
    """Every seat's ``view`` of one state: all but ``me`` is the same for every
    seat, built once and shared (the same objects in every seat's view)."""
    c = state.config
    shared: dict[str, Any] = {
        "game": "kingup",
        "play_mode": c.play_mode,
        "goal_card_mode": c.goal_mode,
        # The issue asks that dealt cards be labelled as not the printed deck.
        "goal_deck": "virtual" if c.goal_mode == DEAL else "printed",
        "round": state.round,
        "rounds": c.rounds,
        "phase": state.phase,
        "players": list(state.players),
        "turn": _pid(state, state.turn),
        "start_player": _pid(state, state.start) if c.play_mode == FULL else None,
        "crown": _pid(state, _crown_holder(state)),
        "king": _king(state),
        "castle": _castle(state.positions),
        "positions": _positions(state.positions),
        "placement": _placement(state),
        "election": _election(state),
        "last_election": _last_election(state),
        "goal_cards_in": [p for p, g in zip(state.players, state.goals, strict=True) if g],
        # Seats without a phone, and which of them the table waits on for an entry.
        "paper": list(state.paper),
        "paper_waiting": paper_waiting(state),
        # Whom the game waits for now (turn, votes, goal cards), and which seats on
        # paper must stay so until when (engines/base.py, stall.py).
        "waiting": list(stall.waiting(state)),
        "paper_until": paper_until(state, stall.hold),
        "me": None,
        "round_results": [_result(state, r) for r in state.results],
        "result": scoring.game_result(state),
        "rules": _rules(state),
        "rows": _rows(state),
        "character_names": {
            ch: {"ko": ko, "en": en} for ch, (ko, en) in zip(CHARACTERS, c.names, strict=True)
        },
    }

    def one(player: str | None) -> dict[str, Any]:
        v = dict(shared)
        if player is not None and player in state.players:
            v["me"] = _me(state, state.seat(player))
        return v

    return one


def public_players(state: State) -> dict[str, dict[str, Any]]:
    per_round = [scoring.scores(state.config, r) for r in state.results]
    out = {}
    for i, p in enumerate(state.players):
        mine = [s[i] for s in per_round]
        out[p] = {"round_scores": mine, "total": sum(mine)}
    return out


def _pid(state: State, seat: int | None) -> str | None:
    return None if seat is None else state.players[seat]


def _crown_holder(state: State) -> int | None:
    """Who holds the crown token: the last nominator (R12). A new round's crown
    is set by its first nomination; until then the token stays where the last
    round left it, with the King's nominator (R22), as on the table."""
    if state.crown is not None:
        return state.crown
    return state.results[-1].crown if state.results else None


def _king(state: State) -> str | None:
    if state.phase not in (AWAITING_GOALS, SCORED, OVER):
        return None
    on_throne = castle.chars_at(state.positions, THRONE)
    return on_throne[0] if on_throne else None


def _castle(positions: tuple[int, ...]) -> dict[str, Any]:
    return {
        "throne": next(iter(castle.chars_at(positions, THRONE)), None),
        "levels": [castle.chars_at(positions, lv) for lv in range(TOP_LEVEL + 1)],
        "eliminated": castle.chars_at(positions, ELIMINATED),
        "unplaced": castle.chars_at(positions, UNPLACED),
        "cap": LEVEL_CAP,
    }


def _rows(state: State) -> list[dict[str, Any]]:
    """The castle's rows top to bottom and the eliminated pile, with what a screen
    shows of each: its points, its cap during play, its cap at a round's end."""
    end = castle.end_caps(state.n, state.no_each)
    return [
        {"row": pos_label(pos), "points": value(pos), "cap": castle.play_cap(pos),
         "end_cap": end[pos]}
        for pos in (THRONE, *range(TOP_LEVEL, -1, -1), ELIMINATED)
    ]


def _positions(positions: tuple[int, ...]) -> dict[str, Any]:
    return {ch: pos_label(p) for ch, p in zip(CHARACTERS, positions, strict=True)}


def _placement(state: State) -> dict[str, Any] | None:
    if state.config.play_mode != FULL:
        return None
    done = sum(1 for p in state.positions if p != UNPLACED) if state.phase == PLACEMENT else None
    placed = {}
    for i, p in enumerate(state.players):
        if done is None:
            placed[p] = state.placements_each
        else:
            # Placement goes round the table from the start player (R6).
            offset = (i - state.start) % state.n
            placed[p] = max(0, (done - offset + state.n - 1) // state.n)
    return {"each": state.placements_each, "placed": placed}


def _election(state: State) -> dict[str, Any] | None:
    e = state.election
    if e is None:
        return None
    # Who has voted is public (a face-down card on the table); what they voted is not.
    voted = [p for p, v in zip(state.players, e.votes, strict=True) if v is not None]
    return {
        "candidate": e.candidate,
        "nominator": _pid(state, state.crown),
        "voted": voted,
        "votes_cast": len(voted),
        "voters": state.n,
        # Once every vote is in: whose sealed vote its phone has still to open
        # (who, never what: an opened value stays hidden until the reveal).
        "opening": [p for p, v in zip(state.players, e.votes, strict=True) if v == SEALED]
        if e.opening else [],
    }


def _last_election(state: State) -> dict[str, Any] | None:
    last = state.last_election
    if last is None:
        return None
    return {
        "candidate": last.candidate,
        "votes": dict(zip(state.players, last.votes, strict=True)),
        "result": "crowned" if last.crowned else "eliminated",
    }


def _me(state: State, seat: int | None) -> dict[str, Any] | None:
    if seat is None:
        return None
    goal = state.goals[seat]
    full = state.config.play_mode == FULL
    election = state.election
    projected = None
    if goal is not None:
        pts = scoring.points(goal, state.positions)
        projected = {"points": pts, "score": sum(pts.values())}
    return {
        "player": state.players[seat],
        "goal": None if goal is None else list(goal),
        "goal_card": state.cards[seat],
        "no_left": state.no_left[seat] if full else None,
        # Its own vote: "sealed" until its phone opened it (the phone knows the value).
        "vote": None if election is None else election.votes[seat],
        "can_vote": election is not None and election.votes[seat] is None,
        "can_vote_no": election is not None
        and election.votes[seat] is None
        and state.no_left[seat] > 0,
        "projected": projected,
    }


def _result(state: State, result: RoundResult) -> dict[str, Any]:
    raw = scoring.raw_scores(result)
    final = scoring.scores(state.config, result)
    players = {}
    for i, p in enumerate(state.players):
        players[p] = {
            "goal": list(result.goals[i]),
            "card": result.cards[i],
            "points": scoring.points(result.goals[i], result.positions),
            "raw": raw[i],
            "score": final[i],
            "rule33": raw[i] != final[i],
        }
    return {
        "round": result.round,
        "king": next(iter(castle.chars_at(result.positions, THRONE)), None),
        "crown": _pid(state, result.crown),
        "positions": _positions(result.positions),
        "players": players,
    }


def _rules(state: State) -> dict[str, Any]:
    c = state.config
    return {
        "rounds": c.rounds,
        "placements_each": state.placements_each,
        "leftovers": castle.leftovers(state.n),
        "no_cards_each": state.no_each,
        "zero_to_33_round": c.zero33_round,
        "tie_break": c.tie_break,
        "tie_break_counts_level0": c.tie_level0,
        "first_seat": c.first_seat,
    }
