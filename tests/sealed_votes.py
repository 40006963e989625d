"""King Up votes sealed as the app seals them (web/games/kingup/sealing.js;
docs/api.md, "Votes sealed on the phone"), for the Python clients of the API:
the tests, the e2e tests' API steps and the benchmarks.

A table that keeps seals refuses a vote sent as it is (``409 seal_required``)
unless it reveals the election as it lands, so a client votes as a phone does:
it draws the salt, sends the hash under the label ``fair.to_seal`` offers its
seat, keeps value and salt, and once every vote is in sends each opening by
itself (``open_vote``)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tablemate_verify import seal_hash

#: The action types a phone completes from what it keeps, not from the offer alone.
VOTE_TYPES = frozenset({"vote", "open_vote"})

@dataclass(frozen=True)
class Kept:
    """What a phone keeps of a vote it sealed, until its opening."""

    label: str
    seat: str
    vote: str
    salt: str


class VoteSeals:
    """The sealed votes the phones of one table keep (sealing.js's
    ``keptVotes``); one keeper may stand for several phones. Kept by hash, not
    by label: a random player seals every vote it may choose and sends one,
    and only the one sent has its hash in the table's ``fair.sealed``."""

    def __init__(self) -> None:
        self.kept: dict[str, Kept] = {}

    def vote(self, snap: Mapping[str, Any], seat: str, vote: str, salt: str | None = None) -> dict[str, Any]:
        """``seat``'s vote action (sealing.js's ``voteAction``): sealed under
        the label ``snap`` offers it, or as it is where it offers none (a table
        that keeps no seals). ``salt``: a test's fixed one (else drawn)."""
        label = ((snap.get("fair") or {}).get("to_seal") or {}).get(seat)
        if not label:
            return {"type": "vote", "vote": vote}
        salt = salt or secrets.token_hex(32)
        hash_ = seal_hash(label, salt, {"vote": vote})
        self.kept[hash_] = Kept(label, seat, vote, salt)
        return {"type": "vote", "vote": "sealed", "label": label, "hash": hash_}

    def openings(self, snap: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """``(seat, open_vote)`` for every seal kept here that ``snap``'s
        election asks to open (every vote is in; sealing.js's ``openings``)."""
        election = (snap.get("view") or {}).get("election") or {}
        asked = election.get("opening") or []
        out = []
        for s in (snap.get("fair") or {}).get("sealed") or []:
            k = self.kept.get(s["hash"])
            if k is not None and k.label == s["seal"] and k.seat in asked:
                out.append((k.seat, {"type": "open_vote", "vote": k.vote, "salt": k.salt}))
        return out

    def complete(self, snap: Mapping[str, Any], seat: str, template: Mapping[str, Any]) -> dict[str, Any] | None:
        """A legal ``template`` of ``seat`` as the app sends it: a vote sealed,
        an opening from what is kept here (None if nothing is), else as is."""
        if template.get("type") == "vote":
            return self.vote(snap, seat, str(template["vote"]))
        if template.get("type") == "open_vote":
            return next((a for s, a in self.openings(snap) if s == seat), None)
        return dict(template)

    def again(self, snap: Mapping[str, Any], seat: str, action: Mapping[str, Any]) -> dict[str, Any]:
        """``action`` sent again after an undo took it back: a sealed vote is
        sealed anew (a retracted seal's label is spent), anything else as it was."""
        if action.get("type") == "vote" and action.get("vote") == "sealed":
            return self.vote(snap, seat, self.kept[str(action["hash"])].vote)
        return dict(action)


def vote_all(votes: Mapping[str, str], snapshot: Callable[[str], Mapping[str, Any]],
             send: Callable[[str, dict[str, Any]], Any], seals: VoteSeals | None = None) -> Any:
    """Each seat of ``votes`` votes in turn, sealed (``snapshot(seat)``: its
    snapshot now; ``send(seat, action)``: sends one, raising or asserting on a
    refusal), then, every vote in, each phone opens its own. Returns the last
    answer: the reveal's once every seat of the election voted here."""
    seals = seals if seals is not None else VoteSeals()
    last: Any = None
    for seat, vote in votes.items():
        last = send(seat, seals.vote(snapshot(seat), seat, vote))
    for seat, action in seals.openings(snapshot(next(iter(votes)))):
        last = send(seat, action)
    return last
