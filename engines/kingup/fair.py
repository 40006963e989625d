"""Checkable goal cards and sealed votes (docs/fairness.md).

Deal mode: the goal cards of round ``r`` come from the scope
``round/<r>/goals``, outcome index the number of cards dealt so far this game;
every card of the round is public once the round is scored (its
``round_scored`` event lists them), so the scope is revealed then. Every vote
cast is sealed as ``round/<r>/vote/<candidate>/<seat>`` (a ``.k`` after a
retracted one) and revealed with the election's votes: on its phone (the
phone sends the hash, then opens it once every vote is in). A vote sent in
the open is refused (``seal_required``) unless it reveals the election as it
lands (the server seals a skipped seat's Yes, public anyway)."""

from __future__ import annotations

from typing import Any

from engines.base import Action
from engines.kingup import actions
from engines.kingup.options import DEAL
from engines.kingup.state import OVER, SCORED, SEALED, VOTE, State


def draw(state: State, action: Action) -> tuple[str, int] | None:
    if action.get("type") != "draw_goal" or state.config.goal_mode != DEAL:
        return None
    return f"round/{state.round}/goals", len(state.used_cards)


#: What ``apply`` refuses a ``draw_goal`` with, whatever it draws (checked
#: before the phones are asked for their links).
refusal = actions.draw_refusal


def scopes(state: State) -> tuple[str, ...]:
    if state.config.goal_mode != DEAL or state.phase == OVER:
        return ()
    # Scored: the next round's cards are the next to be dealt.
    return (f"round/{state.round + 1 if state.phase == SCORED else state.round}/goals",)


def done(state: State, scope: str) -> bool:
    parts = scope.split("/")
    if len(parts) != 3 or parts[0] != "round" or parts[2] != "goals" or not parts[1].isdigit():
        return False
    r = int(parts[1])
    return state.phase == OVER or r < state.round or (r == state.round and state.phase == SCORED)


def _name(state: State, candidate: str, player: str) -> str:
    return f"round/{state.round}/vote/{candidate}/{player}"


def secrets(state: State) -> dict[str, tuple[Any, bool]]:
    """A vote sealed on its phone: value None until its phone opens it (the
    server holds only its hash). A vote sent in the open: sealed by the server."""
    out: dict[str, tuple[Any, bool]] = {}
    shown = state.last_election
    if shown is not None:
        for p, vote in zip(state.players, shown.votes, strict=True):
            out[_name(state, shown.candidate, p)] = ({"vote": vote}, True)
    e = state.election
    if e is not None:
        for p, cast in zip(state.players, e.votes, strict=True):
            if cast is not None:
                out[_name(state, e.candidate, p)] = (None if cast == SEALED else {"vote": cast}, False)
    return out


def phone_seal(state: State, action: Action) -> str | None:
    """The seal a phone makes with ``action`` (a sealed vote), by name."""
    e = state.election
    if action.get("type") != "vote" or action.get("vote") != SEALED or e is None:
        return None
    return _name(state, e.candidate, action["player"])


def phone_opening(state: State, action: Action) -> tuple[str, Any] | None:
    """The seal ``action`` opens (an opened vote) and the value it claims."""
    e = state.election
    if action.get("type") != "open_vote" or e is None:
        return None
    return _name(state, e.candidate, action["player"]), {"vote": action.get("vote")}


def seal_required(state: State, action: Action) -> str | None:
    """A vote sent in the open (``state``: before it) is refused at a table
    that keeps seals, unless its casting reveals the election at once: the
    last vote in with none sealed shut, shown with every other as it lands.
    Any other would sit in the server's hands (and its store) before the
    reveal; a sealed one is opened only once every vote is in."""
    e = state.election
    if action.get("type") != "vote" or action.get("vote") == SEALED or e is None:
        return None
    if sum(1 for v in e.votes if v is None) == 1 and SEALED not in e.votes:
        return None
    return _name(state, e.candidate, action["player"])


def to_seal(state: State) -> dict[str, str]:
    """The seats that may seal a vote now, and the seal's name: every seat yet
    to vote, a forced Yes included (KU-9: its No count stays its own)."""
    e = state.election
    if e is None or state.phase != VOTE:
        return {}
    return {p: _name(state, e.candidate, p) for p, v in zip(state.players, e.votes, strict=True) if v is None}
