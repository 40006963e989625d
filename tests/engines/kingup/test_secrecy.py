"""Secrets stay with their seat: two states that differ only in seat B's goal card, No
count or pending vote give every other seat (and the spectator) identical views."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engines.kingup import ENGINE
from engines.kingup.constants import CHARACTERS, DECK
from engines.kingup.state import OVER, SCORED, Election, State


def _others(state: State, b: int) -> list[str | None]:
    return [p for i, p in enumerate(state.players) if i != b] + [None]


def _seen_by(state: State, viewer: str | None) -> str:
    return json.dumps(
        {
            "view": ENGINE.view(state, viewer),
            "legal": ENGINE.legal_actions(state, viewer),
            "players": ENGINE.public_players(state),
            "status": ENGINE.status(state),
        },
        sort_keys=True,
    )


def _variants(state: State, b: int, rng: random.Random) -> list[State]:
    out = []
    if state.phase not in (SCORED, OVER) and state.goals[b] is not None:
        if state.config.goal_mode == "deal":
            free = [k for k in range(len(DECK)) if k not in state.used_cards]
            card = rng.choice(free)
            used = tuple(card if k == state.cards[b] else k for k in state.used_cards)
            goals = state.goals[:b] + (DECK[card],) + state.goals[b + 1 :]
            cards = state.cards[:b] + (card,) + state.cards[b + 1 :]
            out.append(replace(state, goals=goals, cards=cards, used_cards=used))
        else:
            other = tuple(sorted(rng.sample(CHARACTERS, 6)))
            if other != state.goals[b]:
                goals = state.goals[:b] + (other,) + state.goals[b + 1 :]
                out.append(replace(state, goals=goals))
    if state.phase != OVER:
        no_left = (
            state.no_left[:b]
            + ((state.no_left[b] + 1) % (state.no_each + 1),)
            + state.no_left[b + 1 :]
        )
        out.append(replace(state, no_left=no_left))
    election = state.election
    if election is not None and election.votes[b] is not None:
        flipped = "no" if election.votes[b] == "yes" else "yes"
        votes = election.votes[:b] + (flipped,) + election.votes[b + 1 :]
        out.append(replace(state, election=Election(election.candidate, votes)))
    return out


@pytest.mark.parametrize("mode", ["record", "deal"])
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_other_seats_cannot_see_b_secrets(walk, mode, n):
    rng = random.Random(n)
    checked = 0
    for seed in range(2):
        states = walk(seed, n, goalCardMode=mode)
        voting = [s for s in states if s.election and any(s.election.votes)]
        sample = rng.sample(states, 12) + rng.sample(voting, min(12, len(voting)))
        for state in sample:
            for b in range(n):
                for variant in _variants(state, b, rng):
                    assert variant != state
                    for viewer in _others(state, b):
                        assert _seen_by(variant, viewer) == _seen_by(state, viewer)
                    # Not vacuous: B itself sees the difference.
                    mine = state.players[b]
                    assert _seen_by(variant, mine) != _seen_by(state, mine)
                    checked += 1
    assert checked > 60


def test_b_sees_its_own_secrets(table):
    t = table(4)
    t.act("p2", "goal", characters=list("ABCDEF"))
    me = t.view("p2")["me"]
    assert (me["goal"], me["no_left"]) == (list("ABCDEF"), 3)
    assert t.view("p1")["me"]["goal"] is None
    assert t.view(None)["me"] is None
    assert t.view("p1")["goal_cards_in"] == ["p2"]


def test_no_secret_in_events(table):
    t = table(3, seed=1, goalCardMode="deal")
    events = t.act("p1", "draw_goal")
    assert events == [{"type": "goal_drawn", "player": "p1"}]
    t = table(3)
    assert t.act("p1", "goal", characters=list("ABCDEF")) == [
        {"type": "goal_recorded", "player": "p1"}
    ]
    t.board({5: "AB", 4: "CDEF", 3: "GHI", 2: "JKLM"}, turn=0)
    t.act("p1", "move", char="A")
    assert t.act("p2", "vote", vote="no") == [
        {"type": "vote_cast", "player": "p2", "count": 1, "of": 3}
    ]
    assert t.act("p1", "vote", vote="yes") == [
        {"type": "vote_cast", "player": "p1", "count": 2, "of": 3}
    ]
    # Everyone sees how many voted; only the voter sees their vote.
    assert t.view("p3")["election"]["votes_cast"] == 2
    assert t.view("p2")["me"]["vote"] == "no"
    assert t.view("p3")["me"]["vote"] is None
    # The result comes in the change that records the last vote.
    revealed = t.act("p3", "vote", vote="yes")[-1]
    assert revealed["votes"] == {"p1": "yes", "p2": "no", "p3": "yes"}
    assert t.view("p1")["last_election"]["votes"] == revealed["votes"]
    # No counts are never shown, not even after a reveal.
    assert "no_left" not in json.dumps(t.view("p1")["players"])
    assert all(t.view(p)["me"]["no_left"] == (3 if p == "p2" else 4) for p in t.players)


def test_goals_are_revealed_at_round_scoring(table):
    t = table(3)
    t.board({"throne": "A", 5: "B", 4: "CDEF", 3: "GHI", 2: "JKLM"}, phase="vote", crown=0)
    for p in t.players:
        t.act(p, "vote", vote="yes")
    assert t.view(None)["phase"] == "awaiting_goals"
    assert t.view(None)["round_results"] == []
    t.goals({"p1": "ABCDEF", "p2": "GHIJKL", "p3": "ABGHIM"})
    results = t.view(None)["round_results"][0]["players"]
    assert results["p2"]["goal"] == list("GHIJKL")
    assert results["p1"]["score"] == 10 + 5 + 4 * 4
