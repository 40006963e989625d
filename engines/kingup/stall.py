"""The stalled phone (engines/base.py): whom the table waits for, when a seat on
paper may have its phone back, and when the game may go on without a seat.

docs/rules/kingup.md ("Seats on paper", "A player away") says why each case is allowed
or refused.
"""

from __future__ import annotations

from engines.base import EngineError, paper_hold_error
from engines.kingup.options import DEAL
from engines.kingup.state import (
    AWAITING_GOALS,
    MOVEMENT,
    OVER,
    PLACEMENT,
    SCORED,
    SEALED,
    VOTE,
    State,
)


def waiting(state: State) -> tuple[str, ...]:
    """The seat whose turn it is, the seats that have not voted (who has voted is
    public, R13), or the seats whose goal card the crowned round still needs."""
    if state.phase in (PLACEMENT, MOVEMENT) and state.turn is not None:
        return (state.players[state.turn],)
    if state.phase == VOTE and state.election is not None:
        votes = state.election.votes
        # Once every vote is in: the phones whose sealed vote is still to be opened.
        missing = SEALED if state.election.opening else None
        return tuple(p for p, v in zip(state.players, votes, strict=True) if v == missing)
    if state.phase == AWAITING_GOALS:
        return tuple(p for p, g in zip(state.players, state.goals, strict=True) if g is None)
    return ()


def hold(state: State, seat: str) -> EngineError | None:
    """Why the seat on paper ``seat`` must stay on paper for now (None: it may have
    its phone back). A vote not yet entered is a physical card the player may already
    have laid face down, final (R13): a phone could cast another. A seat without a
    goal card at a dealing table holds a printed card, which the virtual deck cannot
    deal to a phone. Everything else the app kept when the seat went on paper
    (a recorded or dealt card, its No count, an entered vote) is its phone's again."""
    i = state.seat(seat)
    election = state.election
    if state.phase == VOTE and election is not None and election.votes[i] == SEALED:
        return paper_hold_error(
            "paper_until_reveal",
            f"{seat}'s vote was sealed on the host's phone, which alone can open it: "
            "hand the phone back once the votes are revealed.",
        )
    if state.phase == VOTE and election is not None and election.votes[i] is None:
        return paper_hold_error(
            "paper_until_reveal",
            f"{seat}'s vote is a physical card, maybe already face down, and votes are final: "
            "enter it (or skip it) and hand the phone back once the votes are revealed.",
        )
    if state.config.goal_mode == DEAL and state.goals[i] is None and state.phase not in (SCORED, OVER):
        return paper_hold_error(
            "paper_until_round_end",
            f"{seat} holds a printed goal card this round, which the virtual deck cannot deal "
            f"to a phone: hand the phone back once round {state.round} is scored.",
        )
    return None


def cannot_skip(state: State, seat: str) -> EngineError | None:
    """Why ``skip`` is refused for a seat the game waits for outside an election."""
    if state.phase in (PLACEMENT, MOVEMENT):
        return EngineError(
            "cannot_skip",
            f"There is no passing in King Up! (R10): every turn places or moves a character. "
            f"Wait for {seat}, or make the seat phoneless and enter its move for it.",
        )
    if state.phase == AWAITING_GOALS:
        return EngineError(
            "cannot_skip",
            f"The round is scored from every goal card (R19): {seat}'s is needed. Make the "
            "seat phoneless to enter its printed card, or wait for its phone.",
        )
    return None
