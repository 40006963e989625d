"""Each action: what it does and every way it is refused (nothing changes then)."""

from __future__ import annotations

import random

import pytest

from engines.base import EngineError
from engines.kingup import ENGINE
from engines.kingup.constants import DECK


def test_no_cards_and_placements_by_player_count(table):
    for n, no, each in [(3, 4, 4), (4, 3, 3), (5, 2, 2), (6, 2, 2)]:
        v = table(n).view("p1")
        assert (v["me"]["no_left"], v["rules"]["placements_each"]) == (no, each)
        assert v["rules"]["leftovers"] == 13 - n * each


def test_first_seat_picks_who_starts_round_1(table):
    assert table(4).view(None)["turn"] == "p1"
    assert table(4, first_seat=4).view(None)["turn"] == "p4"
    with pytest.raises(EngineError) as e:
        table(4, first_seat=5)
    assert e.value.code == "bad_options"


def test_placement_goes_clockwise_then_movement_starts_with_the_start_player(table):
    t = table(3, first_seat=2)
    order = []
    letters = iter("ABCDEFGHIJKL")
    while t.view(None)["phase"] == "placement":
        p = t.view(None)["turn"]
        order.append(p)
        t.act(p, "place", char=next(letters), level=len(order) % 4 + 1)
    assert order == ["p2", "p3", "p1"] * 4
    v = t.view(None)
    assert (v["phase"], v["turn"], v["positions"]["M"]) == ("movement", "p2", 0)
    assert v["placement"]["placed"] == {"p1": 4, "p2": 4, "p3": 4}


def test_placement_refusals(table):
    t = table(4)
    t.refused("not_your_turn", "p2", "place", char="A", level=1)
    t.refused("bad_level", "p1", "place", char="A", level=0)
    t.refused("bad_level", "p1", "place", char="A", level=5)
    t.refused("bad_level", "p1", "place", char="A", level=2.0)
    t.refused("bad_level", "p1", "place", char="A", level=True)
    t.refused("bad_character", "p1", "place", char="Z", level=1)
    t.refused("bad_character", "p1", "place", level=1)
    t.refused("wrong_phase", "p1", "move", char="A")
    t.refused("wrong_phase", "p1", "vote", vote="yes")
    t.act("p1", "place", char="A", level=1)
    t.refused("already_placed", "p2", "place", char="A", level=2)
    assert ENGINE.view(t.state, "p2")["placement"]["placed"] == {"p1": 1, "p2": 0, "p3": 0, "p4": 0}


def test_movement_refusals(table):
    t = table(4)
    t.board({5: "AB", 4: "CDEF", 3: "GHI", 2: "JK", "eliminated": "L", 0: "M"}, turn=2)
    t.refused("not_your_turn", "p1", "move", char="G")
    t.refused("not_on_board", "p3", "move", char="L")
    t.refused("level_full", "p3", "move", char="G")
    t.refused("wrong_phase", "p3", "place", char="G", level=1)
    events = t.act("p3", "move", char="M")
    assert events == [{"type": "moved", "player": "p3", "char": "M", "from": 0, "to": 1}]
    assert t.view(None)["turn"] == "p4"
    t.act("p4", "move", char="A")
    t.refused("wrong_phase", "p1", "move", char="B")
    t.refused("bad_vote", "p1", "vote", vote="maybe")


def test_vote_is_final_and_revealed_at_once(table):
    t = table(3)
    t.board({5: "AB", 4: "CDEF", 3: "GHI", 2: "JKLM"}, turn=0)
    t.act("p1", "move", char="A")
    t.act("p2", "vote", vote="yes")
    t.refused("already_voted", "p2", "vote", vote="no")
    t.refused("already_voted", "p2", "vote", vote="yes")
    assert t.view("p1")["election"] == {
        "candidate": "A",
        "nominator": "p1",
        "voted": ["p2"],
        "votes_cast": 1,
        "opening": [],
        "voters": 3,
    }
    assert t.view("p1")["last_election"] is None
    t.act("p1", "vote", vote="no")
    events = t.act("p3", "vote", vote="no")
    assert [e["type"] for e in events] == ["vote_cast", "votes_revealed"]
    # Two No votes eliminate once and cost each No voter one card.
    assert [t.view(p)["me"]["no_left"] for p in t.players] == [3, 4, 3]
    assert t.view(None)["turn"] == "p2"


def test_round_waits_for_goals_then_scores(table):
    t = table(3)
    t.act("p2", "goal", characters=list("ABCDEF"))
    t.board({"throne": "A", 5: "B", 4: "CDEF", 3: "GHI", 2: "JKLM"}, phase="vote", crown=2)
    for p in t.players:
        t.act(p, "vote", vote="yes")
    v = t.view(None)
    assert (v["phase"], v["king"], v["crown"]) == ("awaiting_goals", "A", "p3")
    t.refused("no_round_waiting", "p1", "next_round", host=True)
    t.refused("wrong_phase", "p1", "move", char="B")
    t.act("p1", "goal", characters=list("GHIJKL"))
    assert ENGINE.public_players(t.state)["p1"] == {"round_scores": [], "total": 0}
    events = t.act("p3", "goal", characters=list("ABCDEF"))
    assert events[-1]["type"] == "round_scored"
    assert ENGINE.public_players(t.state)["p2"] == {"round_scores": [31], "total": 31}
    t.refused("round_scored", "p1", "goal", characters=list("ABCDEF"))
    t.refused("not_host", "p2", "next_round")
    t.act("p1", "next_round", host=True)
    v = t.view("p2")
    assert (v["round"], v["turn"], v["me"]["goal"], v["me"]["no_left"]) == (2, "p1", None, 4)
    # The crown token stays with the King's nominator until the round's first nomination.
    assert (v["crown"], v["start_player"]) == ("p3", "p1")
    assert v["positions"]["A"] is None
    assert ENGINE.status(t.state) == {"round": 2, "over": False}


def test_goal_rules_in_record_mode(table):
    t = table(3)
    for bad in (list("ABCDE"), list("ABCDEE"), list("ABCDEZ"), "ABCDEF", None, list("ABCDEFG")):
        t.refused("bad_goal", "p1", "goal", characters=bad)
    t.act("p1", "goal", characters=list("FEDCBA"))
    assert t.view("p1")["me"]["goal"] == list("ABCDEF")
    t.refused("goal_already_recorded", "p1", "goal", characters=list("GHIJKL"))
    t.refused("wrong_mode", "p1", "draw_goal", card=3)
    assert ENGINE.legal_actions(t.state, "p1")[0] == {"type": "place", "char": "A", "level": 1}
    assert ENGINE.legal_actions(t.state, "p2")[0] == {"type": "goal"}


def _finish_round(t, crown=0):
    t.board({"throne": "A", 5: "B", 4: "CDEF", 3: "GHI", 2: "JKLM"}, phase="vote", crown=crown)
    for p in t.players:
        t.act(p, "vote", vote="yes")


def test_same_goal_set_may_be_recorded_again_in_a_later_round(table):
    t = table(3)
    t.goals({"p1": "ABCDEF", "p2": "ABCDEF", "p3": "GHIJKL"})
    _finish_round(t)
    t.act("p1", "next_round", host=True)
    t.goals({"p1": "ABCDEF"})
    assert t.view("p1")["me"]["goal"] == list("ABCDEF")


def test_deal_mode_draws_without_replacement_across_rounds(table):
    t = table(6, seed=5, goalCardMode="deal", rounds=4)
    assert t.view("p1")["goal_deck"] == "virtual"
    assert ENGINE.legal_actions(t.state, "p2")[0] == {"type": "draw_goal"}
    t.refused("wrong_mode", "p1", "goal", characters=list("ABCDEF"))
    seen = []
    for round_no in range(4):
        for p in t.players:
            t.act(p, "draw_goal")
            me = t.view(p)["me"]
            assert me["goal"] == list(DECK[me["goal_card"]])
            seen.append(me["goal_card"])
            t.refused("goal_already_recorded", p, "draw_goal", card=25)
        _finish_round(t)
        if round_no < 3:
            t.act("p1", "next_round", host=True)
    assert len(set(seen)) == 24
    assert t.view(None)["round_results"][0]["players"]["p1"]["card"] == seen[0]


def test_deal_mode_with_fixed_random_cards(table):
    t = table(3, goalCardMode="deal")
    t.act("p1", "draw_goal", card=7)
    t.refused("card_taken", "p2", "draw_goal", card=7)
    t.refused("bad_card", "p2", "draw_goal", card=26)
    t.refused("bad_card", "p2", "draw_goal")
    t.act("p2", "draw_goal", card=0)
    assert t.view("p2")["me"]["goal"] == list("ABCDFJ")


def test_draw_keeps_given_outcomes_and_never_raises(table):
    t = table(3, goalCardMode="deal")
    rng = random.Random(1)
    action = {"type": "draw_goal", "player": "p1", "host": False, "card": 4}
    assert ENGINE.draw(t.state, action, rng) == action
    move = {"type": "move", "player": "p1", "host": False, "char": "A"}
    assert ENGINE.draw(t.state, move, rng) == move
    record = table(3)
    assert "card" not in ENGINE.draw(record.state, {"type": "draw_goal", "player": "p1"}, rng)


def test_next_round_host_only_and_refused_after_the_last_round(table):
    t = table(3, rounds=2)
    t.refused("not_host", "p1", "next_round")
    t.refused("no_round_waiting", "p1", "next_round", host=True)
    for round_no in (1, 2):
        t.goals({"p1": "ABCDEF", "p2": "ABCDEF", "p3": "GHIJKL"})
        _finish_round(t, crown=1)
        if round_no == 1:
            t.act("p1", "next_round", host=True)
            assert t.view(None)["start_player"] == "p3"
    assert ENGINE.status(t.state) == {"round": 2, "over": True}
    assert t.events[-1]["type"] == "game_over"
    t.refused("game_over", "p1", "next_round", host=True)
    t.refused("game_over", "p2", "goal", characters=list("ABCDEF"))
    assert all(ENGINE.legal_actions(t.state, p) == [] for p in t.players)


def test_unknown_action_and_unknown_player(table):
    t = table(3)
    t.refused("bad_action", "p1", "pass")
    t.refused("not_seated", "p9", "place", char="A", level=1)
    with pytest.raises(EngineError) as e:
        ENGINE.apply(t.state, "place")
    assert e.value.code == "bad_action"


def test_score_only_mode(table):
    t = table(3, playMode="score_only")
    v = t.view("p1")
    assert (v["phase"], v["turn"], v["placement"]) == ("score_entry", None, None)
    assert ENGINE.legal_actions(t.state, "p2") == [{"type": "goal"}, {"type": "score_round"}]
    t.refused("wrong_mode", "p1", "place", char="A", level=1)
    t.refused("wrong_mode", "p1", "move", char="A")
    t.refused("wrong_mode", "p1", "vote", vote="yes")
    t.act("p3", "goal", characters=list("ABCDEF"))
    board = {c: 2 for c in "ABCDEFGHIJKLM"}
    board.update({"A": "throne", "B": 5, "C": 4, "D": 3, "E": 1, "F": 1, "G": 1, "H": 1})
    board.update({"I": 3, "J": 3, "K": 3, "L": 0, "M": "eliminated"})
    goals = {"p1": list("ABCDEF"), "p2": list("GHIJKL")}
    t.refused("missing_goal", "p1", "score_round", board=board, goals={"p1": goals["p1"]})
    t.refused(
        "goal_already_recorded",
        "p1",
        "score_round",
        board=board,
        goals={**goals, "p3": goals["p1"]},
    )
    t.refused("bad_goal", "p1", "score_round", board=board, goals={**goals, "p7": goals["p1"]})
    t.refused("bad_goal", "p1", "score_round", board=board, goals={**goals, "p2": ["A"]})
    for problem in (
        {"A": 5},  # no King
        {"B": "throne"},  # two Kings
        {"C": 9},
        {"L": 1, "I": 0, "J": 0},  # three on level 0 with 3 players: only 1 left-over
        {"B": 5, "C": 5, "D": 5, "E": 5},  # four left on level 5
    ):
        t.refused("bad_board", "p1", "score_round", board={**board, **problem}, goals=goals)
    t.refused("bad_board", "p1", "score_round", board={"A": "throne"}, goals=goals)
    events = t.act("p2", "score_round", board=board, goals=goals)
    assert [e["type"] for e in events] == ["board_entered", "round_scored"]
    assert events[-1]["scores"] == {
        "p1": 10 + 5 + 4 + 3 + 1 + 1,
        "p2": 1 + 1 + 3 + 3 + 3 + 0,
        "p3": 24,
    }
    t.refused("round_scored", "p1", "score_round", board=board, goals=goals)
    t.act("p1", "next_round", host=True)
    assert t.view(None)["phase"] == "score_entry"


def test_score_only_with_too_many_eliminations(table):
    t = table(5, playMode="score_only")
    board = {c: "eliminated" for c in "ABCDEFGHIJKLM"}
    board.update({"A": "throne", "B": 0})
    goals = {f"p{i}": list("ABCDEF") for i in range(1, 6)}
    message = t.refused("bad_board", "p1", "score_round", board=board, goals=goals)
    assert "10" in message


def test_no_cards_option_and_zero_no_cards(table):
    t = table(4, noCardsPerPlayer={"4": 0})
    assert t.view("p1")["me"]["no_left"] == 0
    t.board({5: "AB", 4: "CDEF", 3: "GHI", 2: "JKLM"}, turn=0, no_left=(0, 0, 0, 0))
    t.act("p1", "move", char="A")
    # p2's own choices (the host's skip templates aside).
    assert [a for a in ENGINE.legal_actions(t.state, "p2") if not a.get("host")] == [
        {"type": "goal"},
        {"type": "vote", "vote": "yes"},
    ]


def test_zero_to_33_round_option(table):
    t = table(3, playMode="score_only", rounds=2, zeroTo33Round=1)
    assert t.view(None)["rules"]["zero_to_33_round"] == 1
    board = {"A": "throne", "B": 5, "C": 5, "D": 4, "E": 3, "F": 2, "M": 0}
    board.update({c: "eliminated" for c in "GHIJKL"})
    goals = {"p1": list("ABCDEF"), "p2": list("ABCDEM"), "p3": list("GHIJKL")}
    t.act("p1", "score_round", board=board, goals=goals)
    assert (t.events[-1]["scores"]["p3"], t.events[-1]["rule33"]) == (33, ["p3"])
    t.act("p1", "next_round", host=True)
    t.act("p1", "score_round", board=board, goals=goals)
    assert (t.events[-2]["scores"]["p3"], t.events[-2]["rule33"]) == (0, [])
    assert ENGINE.public_players(t.state)["p3"] == {"round_scores": [33, 0], "total": 33}
