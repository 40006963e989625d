"""Every worked example of the spec (section 5) as a scenario through the engine."""

from __future__ import annotations

from typing import Any

import pytest

from engines.base import EngineError
from engines.camelup import ENGINE
from engines.camelup.board import ranking, select_crazy, track_from
from engines.camelup.state import Roll

SIX = ("ann", "ben", "cal", "dee", "eli", "fay")


class ScriptedRng:
    """Hands out fixed outcomes, each one of the items a draw chooses from (a
    die's value, the grey die's colour); ``order`` is the placement order a
    shuffle gives."""

    def __init__(self, picks: list[Any], order: list[str] | None = None) -> None:
        self.picks = list(picks)
        self.order = order

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise AssertionError("not used by setup")

    def choice(self, seq: Any) -> Any:
        pick = self.picks.pop(0)
        assert pick in seq, (pick, seq)
        return pick

    def shuffle(self, x: list[Any]) -> None:
        if self.order is not None:
            x[:] = self.order

    def sample(self, population: Any, k: int) -> list[Any]:
        raise AssertionError("not used by setup")


def stacks(state: Any) -> dict[int, list[str]]:
    return {i + 1: list(s) for i, s in enumerate(state.track) if s}


def test_example_1_setup() -> None:
    # Racing values in colour order blue, green, yellow, red, purple: 2, 1, 3, 2, 1;
    # grey: B3, then B1. The table stacked green under purple and red under
    # blue, which is the placement order the shuffle gives.
    order = ["green", "purple", "red", "blue", "yellow"]
    rng = ScriptedRng([2, 1, 3, 2, 1, "black", 3, "black", 1], order)
    opts = ENGINE.draw_setup(["a", "b", "c"], {}, rng)
    assert opts["setup"] == {
        "racing": [["green", 1], ["purple", 1], ["red", 2], ["blue", 2], ["yellow", 3]],
        "crazy": [["black", 14], ["white", 16]],
    }
    state = ENGINE.setup(["a", "b", "c"], opts)
    assert stacks(state) == {
        1: ["green", "purple"], 2: ["red", "blue"], 3: ["yellow"], 14: ["black"], 16: ["white"],
    }  # fmt: skip
    assert ranking(state.track) == ("yellow", "blue", "red", "purple", "green")
    assert ENGINE.public_players(state) == {p: {"money": 3} for p in "abc"}


def test_example_1_both_grey_rolls_show_two() -> None:
    rng = ScriptedRng([1, 1, 1, 1, 1, "white", 2, "black", 2])  # W2 then B2
    opts = ENGINE.draw_setup(["a", "b", "c"], {"setupStackOrder": "manual"}, rng)
    state = ENGINE.setup(["a", "b", "c"], opts)
    assert stacks(state)[15] == ["white", "black"]
    assert stacks(state)[1] == ["blue", "green", "yellow", "red", "purple"]


def test_example_1_manual_crazy_assignment() -> None:
    rng = ScriptedRng([1, 1, 1, 1, 1, "black", 3, "black", 1])  # B3 then B1
    opts = ENGINE.draw_setup(["a", "b", "c"], {"setupCrazyAssignment": "manual"}, rng)
    assert opts["setup"]["crazy"] == [["white", 14], ["black", 16]]


def test_example_2_racing_camel_carries_a_stack(mk, do) -> None:
    s = mk(
        board={1: ["yellow", "purple"], 4: ["blue", "green", "white"], 6: ["red"], 15: ["black"]}
    )
    s, events = do(s, "pyramid", "p1", die="blue", value=2)
    assert stacks(s) == {
        1: ["yellow", "purple"],
        6: ["red", "blue", "green", "white"],
        15: ["black"],
    }
    assert ranking(s.track) == ("green", "blue", "red", "purple", "yellow")
    moved = events[1]
    assert (moved["from"], moved["to"], moved["unit"]) == (4, 6, ["blue", "green", "white"])


def test_example_3_grey_die_rule_b(mk, do) -> None:
    s = mk(
        board={3: ["blue", "purple"], 9: ["green"], 10: ["white", "yellow", "red"], 12: ["black"]}
    )
    assert ranking(s.track) == ("red", "yellow", "green", "purple", "blue")
    s, events = do(s, "pyramid", "p1", die="grey", value=2, color="black")
    assert events[0]["camel"] == "white"
    assert stacks(s)[8] == ["white", "yellow", "red"]
    assert ranking(s.track) == ("green", "red", "yellow", "purple", "blue")


def test_example_4_grey_die_rule_a(mk, do) -> None:
    s = mk(board={5: ["blue", "green", "yellow", "red"], 13: ["black", "white", "purple"]})
    s, _ = do(s, "pyramid", "p1", die="grey", value=3, color="black")
    assert stacks(s) == {
        5: ["blue", "green", "yellow", "red"],
        10: ["white", "purple"],
        13: ["black"],
    }
    assert ranking(s.track) == ("purple", "red", "yellow", "green", "blue")


def test_example_4_selection_table() -> None:
    table = [
        (["white", "black", "red"], "black", "black"),
        (["black", "white", "red"], "white", "white"),
        (["white", "red", "black"], "white", "white"),
        (["red", "white", "black"], "black", "black"),
        (["white", "red", "black", "green"], "white", "black"),
    ]
    for stack, on_w, on_b in table:
        track = track_from({7: stack})
        assert (select_crazy(track, "white"), select_crazy(track, "black")) == (on_w, on_b), stack


def test_example_5_booing_tile_puts_the_unit_underneath(mk, do) -> None:
    board = {
        2: ["purple"],
        5: ["green", "blue"],
        6: ["yellow", "red"],
        15: ["white"],
        16: ["black"],
    }
    players = ("ann", "ben", "dana")
    s = mk(players, board, seats={"dana": {"tile": (7, "boo")}})
    s, events = do(s, "pyramid", "ann", die="green", value=2)
    assert stacks(s)[6] == ["green", "blue", "yellow", "red"]
    assert 7 not in stacks(s)
    assert ranking(s.track) == ("red", "yellow", "blue", "green", "purple")
    assert s.seat("dana").money == 4
    assert events[1]["tile"] == {"space": 7, "owner": "dana", "side": "boo"}

    s = mk(players, board, seats={"dana": {"tile": (7, "cheer")}})
    s, _ = do(s, "pyramid", "ann", die="green", value=2)
    assert stacks(s)[8] == ["green", "blue"]
    assert ranking(s.track) == ("blue", "green", "red", "yellow", "purple")
    assert s.seat("dana").money == 4


def test_example_6a_crazy_camel_on_cheering_tile(mk, do) -> None:
    board = {3: ["green", "yellow", "red"], 8: ["blue"], 11: ["white", "purple"], 14: ["black"]}
    s = mk(("ann", "ben", "eve"), board, seats={"eve": {"tile": (9, "cheer")}})
    s, _ = do(s, "pyramid", "ann", die="grey", value=2, color="white")
    assert stacks(s)[8] == ["blue", "white", "purple"]
    assert s.seat("eve").money == 4
    assert ranking(s.track) == ("purple", "blue", "red", "yellow", "green")


def test_example_6b_crazy_camel_on_booing_tile(mk, do) -> None:
    board = {
        3: ["yellow", "red"],
        8: ["blue"],
        10: ["green"],
        11: ["white", "purple"],
        14: ["black"],
    }
    s = mk(("ann", "ben", "eve"), board, seats={"eve": {"tile": (9, "boo")}})
    s, _ = do(s, "pyramid", "ann", die="grey", value=2, color="black")
    assert stacks(s)[10] == ["white", "purple", "green"]
    assert s.seat("eve").money == 4
    assert ranking(s.track) == ("green", "purple", "blue", "red", "yellow")


def example_7_state(mk: Any) -> Any:
    # The race stands Ye, Bl, Gr, Re, Pu; Fay rolls the purple die for the 5th
    # pyramid ticket and purple stays last.
    board = {
        5: ["purple"],
        11: ["red"],
        12: ["green"],
        13: ["blue"],
        14: ["yellow"],
        15: ["white"],
        16: ["black"],
    }
    seats = {
        "ann": {"money": 3, "bets": (("yellow", 5),), "pyramid_tickets": 1},
        "ben": {"money": 5, "bets": (("yellow", 3), ("blue", 5)), "partner": "fay"},
        "cal": {"money": 2, "bets": (("green", 5),), "pyramid_tickets": 2, "partner": "dee"},
        "dee": {"money": 0, "bets": (("green", 2), ("purple", 5)), "partner": "cal"},
        "eli": {"money": 1, "bets": (("yellow", 2), ("blue", 3)), "pyramid_tickets": 1},
        "fay": {"money": 0, "bets": (("green", 3), ("red", 5)), "partner": "ben"},
    }
    tents = tuple(Roll(d, 1, None, d) for d in ("blue", "green", "yellow", "red"))
    tickets = ((2,), (2,), (2,), (3, 2, 2), (3, 2, 2))
    return mk(SIX, board, seats=seats, tents=tents, tickets=tickets, current=5, leg=3)


def test_example_7_full_leg_payout(mk, do) -> None:
    before = example_7_state(mk)
    frozen = ENGINE.dump(before)
    s, events = do(before, "pyramid", "fay", die="purple", value=1)
    assert ENGINE.dump(before) == frozen  # apply never mutates its input
    report = s.last_leg
    assert report.ranking == ("yellow", "blue", "green", "red", "purple")
    after = {line.player: line.new for line in report.players}
    assert after == {"ann": 9, "ben": 10, "cal": 3, "dee": 0, "eli": 5, "fay": 2}
    copies = {line.player: (line.copy.kind, line.copy.camel, line.copy.reward) if line.copy else None
              for line in report.players}  # fmt: skip
    assert copies == {
        "ann": None, "ben": ("pyramid", None, 1), "cal": None,
        "dee": ("pyramid", None, 1), "eli": None, "fay": ("bet", "yellow", 3),
    }  # fmt: skip
    assert {p: m["money"] for p, m in ENGINE.public_players(s).items()} == after
    # R28, R29: the player left of Fay starts leg 4, everything is reset.
    assert (s.leg, s.seats[s.start].id, s.seats[s.current].id) == (4, "ann", "ann")
    assert s.tents == () and all(t == (5, 3, 2, 2) for t in s.tickets)
    assert all(x.partner is None and not x.bets and x.pyramid_tickets == 0 for x in s.seats)
    assert [e["type"] for e in events] == ["die_rolled", "camel_moved", "leg_scored", "leg_started"]
    view = ENGINE.view(s, "ann")["last_leg"]
    fay = next(p for p in view["players"] if p["player"] == "fay")
    assert [t["why"] for t in fay["tickets"]] == ["other", "other", "pyramid"]
    assert fay["copy"] == {
        "kind": "bet",
        "camel": "yellow",
        "value": 3,
        "place": 1,
        "why": "first",
        "reward": 3,
    }
    assert (fay["old"], fay["new"]) == (0, 2)


WINNER_PILE = [("ann", "red"), ("ben", "blue"), ("cal", "red"), ("dee", "red"), ("ben", "red"),
               ("eli", "red"), ("fay", "yellow")]  # fmt: skip
LOSER_PILE = [("fay", "green"), ("dee", "purple"), ("cal", "green"), ("eli", "blue")]


def example_8_state(mk: Any, final_clamp: str = "perCard") -> Any:
    # Ann rolls red across the line with the leg's first die; her pyramid ticket
    # (+1) is the only leg reward, so she enters final scoring with 12.
    board = {
        1: ["green"],
        5: ["blue"],
        8: ["purple"],
        10: ["white"],
        11: ["black"],
        12: ["yellow"],
        15: ["red"],
    }
    money = {"ann": 11, "ben": 0, "cal": 4, "dee": 0, "eli": 2, "fay": 1}
    seats = {}
    for p in SIX:
        placed = {c for o, c in WINNER_PILE + LOSER_PILE if o == p}
        hand = tuple(c for c in ("blue", "green", "yellow", "red", "purple") if c not in placed)
        seats[p] = {"money": money[p], "hand": hand}
    return mk(SIX, board, {"finalClamp": final_clamp}, seats=seats,
              winner_pile=tuple(WINNER_PILE), loser_pile=tuple(LOSER_PILE))  # fmt: skip


def test_example_8_final_bets_card_by_card(mk, do) -> None:
    s, events = do(example_8_state(mk), "pyramid", "ann", die="red", value=2)
    assert s.result.winner_camel == "red" and s.result.loser_camel == "green"
    money = [(c.player, c.paid) for c in s.result.winner_pile]
    assert money == [
        ("ann", 8),
        ("ben", 0),
        ("cal", 5),
        ("dee", 3),
        ("ben", 2),
        ("eli", 1),
        ("fay", -1),
    ]
    assert [c.k for c in s.result.winner_pile] == [1, None, 2, 3, 4, 5, None]
    assert [(c.player, c.paid) for c in s.result.loser_pile] == [
        ("fay", 8),
        ("dee", -1),
        ("cal", 5),
        ("eli", -1),
    ]
    final = {p: m["money"] for p, m in ENGINE.public_players(s).items()}
    assert final == {"ann": 20, "ben": 2, "cal": 14, "dee": 2, "eli": 2, "fay": 8}
    result = ENGINE.view(s, "ben")["result"]
    assert result["winners"] == ["ann"]
    # Places by final money, a tie sharing one (as on the results sheet).
    assert {m["player"]: m["rank"] for m in result["money"]} == {
        "ann": 1, "cal": 2, "fay": 3, "ben": 4, "dee": 4, "eli": 4}
    assert (result["winner_camel"], result["loser_camel"]) == ("red", "green")
    assert [c["camel"] for c in result["piles"]["winner"]] == [c for _, c in WINNER_PILE]
    types = [e["type"] for e in events]
    assert types == ["die_rolled", "camel_moved", "race_ended", "leg_scored", "pile_revealed", "pile_revealed",
                     "game_over"]  # fmt: skip
    assert ENGINE.status(s) == {"round": 1, "over": True}


def test_example_8_net_clamp(mk, do) -> None:
    s, _ = do(example_8_state(mk, "net"), "pyramid", "ann", die="red", value=2)
    final = {p: m["money"] for p, m in ENGINE.public_players(s).items()}
    assert final == {"ann": 20, "ben": 1, "cal": 14, "dee": 2, "eli": 2, "fay": 8}


def test_example_9_crazy_camel_carries_racing_camels_backward(mk, do) -> None:
    board = {2: ["black", "purple", "green"], 9: ["blue"], 12: ["yellow", "red"], 14: ["white"]}
    seats = {"p2": {"bets": (("red", 5),)}, "p3": {"bets": (("yellow", 3),)}}
    s, events = do(
        mk(board=board, seats=seats), "pyramid", "p1", die="grey", value=3, color="white"
    )
    assert events[0]["camel"] == "black"
    assert events[1]["crossed"] == -1
    assert s.past == ("black", "purple", "green") and s.past_dir == -1
    assert s.result.ranking == ("red", "yellow", "blue", "green", "purple")
    assert (s.result.winner_camel, s.result.loser_camel) == ("red", "purple")
    rewards = {line.player: line.own for line in s.last_leg.players}
    assert rewards == {"p1": 1, "p2": 5, "p3": 1}


EX10 = {2: ["white"], 5: ["green", "purple"], 9: ["blue"], 12: ["yellow", "red"], 13: ["black"]}


def test_example_10_lone_crazy_camel_crossing_ends_the_race(mk, do) -> None:
    s, _ = do(mk(board=EX10), "pyramid", "p1", die="grey", value=2, color="white")
    assert ENGINE.status(s)["over"]
    assert s.result.ranking == ("red", "yellow", "blue", "purple", "green")
    assert (s.result.winner_camel, s.result.loser_camel) == ("red", "green")


def test_example_10_lone_crazy_camel_wraps_when_the_flag_is_off(mk, do) -> None:
    s = mk(board=EX10, options={"crazyLoneCrossingEndsGame": False})
    s, events = do(s, "pyramid", "p1", die="grey", value=2, color="white")
    assert not ENGINE.status(s)["over"]
    assert stacks(s)[16] == ["white"] and events[1]["wrapped"]
    assert s.seats[s.current].id == "p2"


def test_example_11_cheering_tile_on_16_pushes_across(mk, do) -> None:
    board = {
        4: ["purple"],
        10: ["blue", "green"],
        12: ["white"],
        13: ["red"],
        14: ["yellow", "black"],
    }
    s = mk(("ann", "ben", "cal"), board, seats={"ben": {"tile": (16, "cheer")}})
    s, events = do(s, "pyramid", "ann", die="yellow", value=2)
    assert events[1]["tile"]["owner"] == "ben" and events[1]["crossed"] == 1
    assert s.result.ranking == ("yellow", "red", "green", "blue", "purple")
    assert s.past == ("yellow", "black")
    before = {p: a for p, a, _ in s.result.money}
    assert before["ben"] == 4  # the +1 was paid before the race ended


def test_example_12_legal_spectator_spaces(mk, do) -> None:
    board = {3: ["blue", "green"], 7: ["yellow"], 12: ["red", "purple"], 15: ["white", "black"]}
    tiles = {"ann": {"tile": (5, "cheer")}, "ben": {"tile": (10, "boo")}}
    s = mk(("ann", "ben", "cal"), board, seats=tiles, current=2)

    def spaces(state: Any, player: str) -> set[int]:
        return {a["space"] for a in ENGINE.legal_actions(state, player) if a["type"] == "spectator"}

    assert spaces(s, "cal") == {2, 8, 13, 14, 16}
    for space in (1, 3, 4, 5, 6, 7, 9, 10, 11, 12, 15):
        with pytest.raises(EngineError) as info:
            do(s, "spectator", "cal", space=space, side="cheer")
        assert info.value.code == "space_not_allowed", space
    s = mk(("ann", "ben", "cal"), board, seats=tiles, current=0)
    assert spaces(s, "ann") == {2, 4, 6, 8, 13, 14, 16}
    s2, _ = do(s, "spectator", "ann", space=4, side="boo")
    assert s2.tiles() == {4: ("ann", "boo"), 10: ("ben", "boo")}
