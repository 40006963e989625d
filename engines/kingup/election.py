"""The election (R11-R18): votes cast, sealed and opened, a seat skipped, and
the reveal that crowns or eliminates the candidate."""

from __future__ import annotations

from dataclasses import replace

from engines.base import Action, Event
from engines.kingup import legal, scoring
from engines.kingup.constants import ELIMINATED, INDEX, NO, YES
from engines.kingup.state import AWAITING_GOALS, MOVEMENT, SEALED, Election, Revealed, State, put

Result = tuple[State, list[Event]]


def do_vote(state: State, action: Action) -> Result:
    legal.check(state, action)
    seat = state.seat(action["player"])
    assert state.election is not None  # the rule checked it
    # A seat with no No card left seals too (its Yes is forced): a vote sent in
    # the open would tell the server its No count (KU-9); an opening No is refused.
    return _cast(state, state.election, seat, action["vote"], "vote_cast", "player")


def _cast(state: State, election: Election, seat: int, vote: str, kind: str, who: str) -> Result:
    """Seat ``seat``'s vote is in (event ``kind`` names it in field ``who``); the last
    one reveals them all, or, with votes still sealed, asks their phones to open them."""
    votes = put(election.votes, seat, vote)
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
    legal.check(state, action)
    seat = state.seat(action["player"])
    election = state.election
    assert election is not None  # the rule checked it
    if refused := legal.opened_value(state, action):
        raise refused
    vote = action["vote"]
    votes = put(election.votes, seat, vote)
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
    legal.check(state, action)
    seat = state.seat(action["seat"])
    election = state.election
    assert election is not None  # the rule checked it
    if election.votes[seat] == SEALED:
        # Its phone is gone with the value: nobody may see or set it. The seal is
        # withdrawn (sealed for good) and the seat votes again, under a new label.
        votes = put(election.votes, seat, None)
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
        return scoring.score_if_ready(replace(state, phase=AWAITING_GOALS), events)
    nxt = (crown + 1) % state.n
    revealed["next"] = state.players[nxt]
    events.append(revealed)
    state = replace(
        state,
        positions=put(state.positions, INDEX[candidate], ELIMINATED),
        no_left=tuple(k - 1 if v == NO else k for k, v in zip(state.no_left, votes, strict=True)),
        phase=MOVEMENT,
        turn=nxt,
    )
    return state, events
