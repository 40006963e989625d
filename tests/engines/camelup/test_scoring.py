"""Leg scoring (R32, CU-8) and final scoring (R37-R39, CU-6) as pure functions."""

from __future__ import annotations

from engines.camelup.scoring import final_scoring, pick_copy, score_leg, winners
from engines.camelup.state import Copy, Seat, TicketReward

RANK = ("yellow", "blue", "green", "red", "purple")


def test_example_7_by_the_formula() -> None:
    seats = [
        Seat("ann", money=3, bets=(("yellow", 5),), pyramid_tickets=1),
        Seat("ben", money=5, bets=(("yellow", 3), ("blue", 5)), partner="fay"),
        Seat("cal", money=2, bets=(("green", 5),), pyramid_tickets=2, partner="dee"),
        Seat("dee", money=0, bets=(("green", 2), ("purple", 5)), partner="cal"),
        Seat("eli", money=1, bets=(("yellow", 2), ("blue", 3)), pyramid_tickets=1),
        Seat("fay", money=0, bets=(("green", 3), ("red", 5)), pyramid_tickets=1, partner="ben"),
    ]
    report = score_leg(seats, RANK, 1, "auto")
    got = {p.player: (p.own, p.copy.reward if p.copy else 0, p.new) for p in report.players}
    assert got == {
        "ann": (6, 0, 9), "ben": (4, 1, 10), "cal": (1, 0, 3),
        "dee": (-2, 1, 0), "eli": (4, 0, 5), "fay": (-1, 3, 2),
    }  # fmt: skip


def test_copy_auto_picks_reward_not_face_value() -> None:
    tickets = [TicketReward("bet", "purple", 5, 5, -1), TicketReward("bet", "blue", 2, 2, 1)]
    assert pick_copy(None, "auto", tickets) == tickets[1]
    assert pick_copy(None, "auto", tickets[:1]) is None


def test_copy_ask_follows_the_declared_choice() -> None:
    tickets = [TicketReward("bet", "purple", 5, 5, -1), TicketReward("pyramid", None, 1, None, 1)]
    assert pick_copy(None, "ask", tickets) is None
    assert pick_copy(Copy("none"), "ask", tickets) is None
    assert pick_copy(Copy("best"), "ask", tickets) == tickets[1]
    assert pick_copy(Copy("pyramid"), "ask", tickets) == tickets[1]
    # A declared losing ticket is copied as declared: the player chose it.
    assert pick_copy(Copy("bet", "purple", 5), "ask", tickets) == tickets[0]


def test_leg_clamp_is_applied_once_after_the_copy() -> None:
    seats = [
        Seat("a", money=0, bets=(("red", 5), ("purple", 5)), partner="b"),
        Seat("b", money=0, bets=(("yellow", 5),), partner="a"),
        Seat("c", money=0),
    ]
    report = score_leg(seats, RANK, 1, "auto")
    assert [p.new for p in report.players] == [3, 5, 0]


def test_final_scoring_per_card_and_net() -> None:
    money = {"a": 0, "b": 0}
    pile = [("a", "blue"), ("a", "red"), ("b", "red")]
    w, lo, final = final_scoring(money, pile, [], "red", "green", "perCard")
    assert [c.paid for c in w] == [0, 8, 5] and lo == () and final == {"a": 8, "b": 5}
    _, _, final = final_scoring(money, pile, [], "red", "green", "net")
    assert final == {"a": 7, "b": 5}


def test_fifth_and_later_correct_cards_pay_one() -> None:
    pile = [(p, "red") for p in "abcdefg"]
    w, _, final = final_scoring({p: 0 for p in "abcdefg"}, pile, [], "red", "green", "perCard")
    assert [c.delta for c in w] == [8, 5, 3, 2, 1, 1, 1]


def test_shared_victory() -> None:
    assert winners({"a": 3, "b": 3, "c": 1}) == ("a", "b")
