"""The worked examples of the spec (section 5), one scenario each."""

from __future__ import annotations

from itertools import combinations

from engines.kingup import ENGINE
from engines.kingup.castle import legal_moves
from engines.kingup.constants import CHARACTERS, DECK, INDEX, THRONE


def test_example_1_placement_five_players_and_first_moves(table):
    t = table(5, first_seat=3)
    assert t.view(None)["turn"] == "p3"
    for player, char, level in [("p3", "A", 4), ("p4", "B", 4), ("p5", "C", 4), ("p1", "D", 4)]:
        t.act(player, "place", char=char, level=level)
    # P2 wants E on level 4, which is full.
    t.refused("level_full", "p2", "place", char="E", level=4)
    t.act("p2", "place", char="E", level=3)
    for player, char, level in [
        ("p3", "F", 1),
        ("p4", "G", 2),
        ("p5", "H", 3),
        ("p1", "I", 1),
        ("p2", "J", 2),
    ]:
        t.act(player, "place", char=char, level=level)
    castle = t.view(None)["castle"]
    assert castle["levels"] == [
        ["K", "L", "M"],
        ["F", "I"],
        ["G", "J"],
        ["E", "H"],
        list("ABCD"),
        [],
    ]
    assert t.events[-1] == {"type": "placement_done", "leftovers": ["K", "L", "M"], "next": "p3"}
    # 2 No cards each; 2 of the 12 stay in the box.
    assert all(t.view(p)["me"]["no_left"] == 2 for p in t.players)
    v = t.view("p3")
    assert (v["phase"], v["turn"]) == ("movement", "p3")
    assert sorted(legal_moves(t.state.positions)) == sorted("ABCDGJFIKLM")
    assert {a["char"] for a in ENGINE.legal_actions(t.state, "p3") if a["type"] == "move"} == set(
        "ABCDGJFIKLM"
    )
    for illegal in "EH":
        t.refused("level_full", "p3", "move", char=illegal)


def _example_2(table):
    t = table(4)
    t.board(
        {5: "ADGK", 4: "BCEF", 3: "HIJ", 2: "LM"},
        turn=1,
    )
    t.act("p2", "move", char="D")
    return t


def test_example_2_rejected_candidate(table):
    t = _example_2(table)
    v = t.view("p1")
    assert v["crown"] == "p2"
    assert v["election"]["candidate"] == "D"
    for player, vote in [("p1", "yes"), ("p2", "yes"), ("p3", "no")]:
        t.act(player, "vote", vote=vote)
        assert t.events[-1]["type"] == "vote_cast"
    events = t.act("p4", "vote", vote="yes")
    assert events[-1] == {
        "type": "votes_revealed",
        "candidate": "D",
        "votes": {"p1": "yes", "p2": "yes", "p3": "no", "p4": "yes"},
        "result": "eliminated",
        "crown": "p2",
        "next": "p3",
    }
    assert t.state.positions[INDEX["D"]] == -2
    assert t.view("p3")["me"]["no_left"] == 2
    assert [t.view(p)["me"]["no_left"] for p in ("p1", "p2", "p4")] == [3, 3, 3]
    v = t.view(None)
    assert v["castle"]["levels"][5] == ["A", "G", "K"]
    assert v["castle"]["eliminated"] == ["D"]
    assert (v["phase"], v["turn"], v["crown"]) == ("movement", "p3", "p2")


def test_example_2_all_yes_crowns_and_next_round_starts_left_of_crown(table):
    t = _example_2(table)
    t.goals({"p1": "ABCDEF", "p2": "ABCDEF", "p3": "GHIJKL", "p4": "ABCDEM"})
    for player in t.players:
        t.act(player, "vote", vote="yes")
    assert t.events[-2]["result"] == "crowned"
    assert t.events[-1]["type"] == "round_scored"
    v = t.view(None)
    assert (v["phase"], v["king"]) == ("scored", "D")
    t.act("p1", "next_round", host=True)
    v = t.view(None)
    assert (v["round"], v["phase"], v["turn"], v["start_player"]) == (2, "placement", "p3", "p3")


EXAMPLE_3_BOARD = {
    "throne": "D",
    5: "AGK",
    4: "BH",
    3: "CEM",
    2: "I",
    1: "J",
    0: "L",
    "eliminated": "F",
}
EXAMPLE_3_GOALS = {"p1": "DABCIL", "p2": "GKHFJL", "p3": "AGMEJF", "p4": "FLJICE"}


def test_example_3_round_scoring(table):
    t = table(4)
    t.board(EXAMPLE_3_BOARD, phase="vote", crown=1)
    t.goals(EXAMPLE_3_GOALS)
    for player in t.players:
        t.act(player, "vote", vote="yes")
    scored = t.events[-1]
    assert scored["scores"] == {"p1": 24, "p2": 15, "p3": 17, "p4": 9}
    result = t.view("p2")["round_results"][0]
    assert result["players"]["p1"]["points"] == {"A": 5, "B": 4, "C": 3, "D": 10, "I": 2, "L": 0}
    assert result["players"]["p2"]["points"]["F"] == 0
    assert result["king"] == "D"
    assert ENGINE.public_players(t.state)["p1"] == {"round_scores": [24], "total": 24}


def _score_only_board(layout):
    board = {}
    for where, letters in layout.items():
        for c in letters:
            board[c] = where
    return board


def test_example_3_in_score_only_mode(table):
    t = table(4, playMode="score_only")
    t.act("p2", "goal", characters=list(EXAMPLE_3_GOALS["p2"]))
    others = {p: list(g) for p, g in EXAMPLE_3_GOALS.items() if p != "p2"}
    t.act("p4", "score_round", board=_score_only_board(EXAMPLE_3_BOARD), goals=others)
    assert t.events[-1]["scores"] == {"p1": 24, "p2": 15, "p3": 17, "p4": 9}


EXAMPLE_4_BOARD = {
    "throne": "B",
    5: "CD",
    4: "H",
    3: "I",
    2: "M",
    1: "A",
    0: "JKL",
    "eliminated": "EFG",
}
EXAMPLE_4_GOALS = {
    "p1": "BCDHIM",
    "p2": "EFGJKL",
    "p3": "ABCDEF",
    "p4": "GHIJKL",
    "p5": "EFJABC",
}


def _example_4(table, round_no):
    t = table(5)
    t.board(EXAMPLE_4_BOARD, phase="vote", crown=0, round=round_no)
    t.goals(EXAMPLE_4_GOALS)
    for player in t.players:
        t.act(player, "vote", vote="yes")
    return t.events


def test_example_4_round_3_rule(table):
    scored = [e for e in _example_4(table, 3) if e["type"] == "round_scored"][0]
    assert scored["raw"]["p2"] == 0
    assert (scored["scores"]["p2"], scored["scores"]["p5"], scored["scores"]["p1"]) == (33, 16, 29)
    assert scored["rule33"] == ["p2"]


def test_example_4_zero_stays_zero_before_round_3(table):
    for round_no in (1, 2):
        scored = [e for e in _example_4(table, round_no) if e["type"] == "round_scored"][0]
        assert scored["scores"]["p2"] == 0
        assert scored["rule33"] == []


def _example_5(table, **options):
    t = table(4, playMode="score_only", **options)
    board = _score_only_board(EXAMPLE_3_BOARD)
    rounds = [
        {"p1": "DACILF", "p2": "FLJICE", "p3": "DAGCIL", "p4": "FLJICE"},  # 20, 9, 25, 9
        {"p1": "ABCEFL", "p2": "FLJICE", "p3": "AGMEJF", "p4": "FLJICE"},  # 15, 9, 17, 9
        {**EXAMPLE_3_GOALS, "p2": "FLJICE"},  # 24, 9, 17, 9
    ]
    for i, goals in enumerate(rounds):
        if i:
            t.act("p1", "next_round", host=True)
        t.act("p1", "score_round", board=board, goals={p: list(g) for p, g in goals.items()})
    return t


def test_example_5_tie_break(table):
    t = _example_5(table)
    players = ENGINE.public_players(t.state)
    assert players["p1"] == {"round_scores": [20, 15, 24], "total": 59}
    assert players["p3"] == {"round_scores": [25, 17, 17], "total": 59}
    result = t.view("p4")["result"]
    assert result["winners"] == ["p1"]
    assert result["tie_break"]["survivors"] == {"p1": 6, "p3": 5}
    assert not result["shared"]
    assert ENGINE.status(t.state) == {"round": 3, "over": True}


def test_example_5_without_level_0_the_victory_is_shared(table):
    result = _example_5(table, tieBreakCountsLevel0=False).view(None)["result"]
    assert result["tie_break"]["survivors"] == {"p1": 5, "p3": 5}
    assert (result["winners"], result["shared"]) == (["p1", "p3"], True)


def test_example_5_without_tie_break_the_victory_is_shared(table):
    result = _example_5(table, tieBreak="none").view(None)["result"]
    assert (result["winners"], result["shared"]) == (["p1", "p3"], True)


def test_example_6_forced_yes_and_no_card_exhaustion(table):
    t = table(3)
    t.board({5: "HK", 4: "ABCD", 3: "EFG", 2: "IJ", 1: "LM"}, turn=0, no_left=(0, 1, 0))
    t.act("p1", "move", char="H")
    t.refused("no_card_left", "p1", "vote", vote="no")
    t.act("p1", "vote", vote="yes")
    t.act("p2", "vote", vote="no")
    t.refused("no_card_left", "p3", "vote", vote="no")
    t.act("p3", "vote", vote="yes")
    assert t.events[-1]["result"] == "eliminated"
    assert t.view("p2")["me"]["no_left"] == 0
    # The next candidate is necessarily crowned: every vote is forced Yes.
    assert t.view(None)["turn"] == "p2"
    t.act("p2", "move", char="K")
    for p in t.players:
        # Each phone's own choices (the host's skip templates aside).
        assert [a for a in ENGINE.legal_actions(t.state, p) if not a.get("host")] == [
            {"type": "goal"},
            {"type": "vote", "vote": "yes"},
        ]
        t.refused("no_card_left", p, "vote", vote="no")
        t.act(p, "vote", vote="yes")
    assert t.events[-1]["result"] == "crowned"


def test_example_6_at_most_12_eliminations_with_3_players(table):
    t = table(3)
    t.goals({"p1": "ABCDEF", "p2": "ABCDEF", "p3": "ABCDEF"})
    while t.state.phase != "scored":
        election = t.state.election
        if election is None:
            p = t.view(None)["turn"]
            pick = ENGINE.legal_actions(t.state, p)[-1]
            t.act(p, pick["type"], **{k: v for k, v in pick.items() if k != "type"})
            continue
        # One No per election, from the first seat that still has one: most eliminations.
        p = t.players[election.votes.index(None)]
        vote = "no" if "no" not in election.votes and t.view(p)["me"]["can_vote_no"] else "yes"
        t.act(p, "vote", vote=vote)
        assert len(t.view(None)["castle"]["eliminated"]) <= 12
    assert len(t.view(None)["castle"]["eliminated"]) == 12
    assert t.view(None)["king"] is not None
    assert all(t.view(p)["me"]["no_left"] == 0 for p in t.players)


def test_example_7_capacity_and_maximum_score(table):
    t = table(4)
    t.board({5: "ABCD", 4: "EFG", 2: "HIJK", 1: "LM"}, turn=0)
    # Level 2 holds 4, so nothing on level 1 may move; level 5 always may, to the throne.
    t.refused("level_full", "p1", "move", char="L")
    t.refused("level_full", "p1", "move", char="E")
    assert set(legal_moves(t.state.positions)) == set("ABCDHIJK")
    t.act("p1", "move", char="A")
    assert t.view(None)["castle"]["levels"][5] == ["B", "C", "D"]
    t.goals({"p1": "ABCDEF", "p2": "ABCDEF", "p3": "HIJKLM", "p4": "ABCDEM"})
    for p in t.players:
        t.act(p, "vote", vote="yes")
    # King + 3 on level 5 + 2 on level 4.
    assert t.events[-1]["scores"]["p1"] == 10 + 3 * 5 + 2 * 4 == 33
    positions = t.state.positions
    best = max(
        sum(10 if positions[INDEX[c]] == THRONE else max(positions[INDEX[c]], 0) for c in six)
        for six in combinations(CHARACTERS, 6)
    )
    assert best == 33


def test_example_8_virtual_deck():
    assert DECK[0] == tuple("ABCDFJ")
    assert DECK[1] == tuple("BCDEGK")
    assert DECK[13] == tuple("ABDGHL")
    assert DECK[25] == tuple("ACFGKM")
    assert len(set(DECK)) == 26
    assert all(sum(c in card for card in DECK) == 12 for c in CHARACTERS)
    assert all(
        sum(a in card and b in card for card in DECK) == 5 for a, b in combinations(CHARACTERS, 2)
    )
