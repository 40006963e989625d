"""The result sheet of a finished race (Engine.result): Example 7's leg, Example 8's final bets."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engines.camelup import ENGINE
from tests.engines.camelup.test_examples import example_7_state, example_8_state


def _by_id(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in result["players"]}


def test_running_race_has_no_result(mk) -> None:
    state = mk()
    assert ENGINE.result(state, [(state, [])]) is None


def test_example_8_final_money_ranks_and_bets(mk, do) -> None:
    before = example_8_state(mk)
    after, events = do(before, "pyramid", "ann", die="red", value=2)
    result = ENGINE.result(after, [(before, []), (after, events)])
    players = _by_id(result)
    assert {p: v["score"] for p, v in players.items()} == {
        "ann": 20, "ben": 2, "cal": 14, "dee": 2, "eli": 2, "fay": 8}
    # Ties share a rank, and the next rank skips (1, 2, 3, 4, 4, 4).
    assert {p: v["rank"] for p, v in players.items()} == {
        "ann": 1, "cal": 2, "fay": 3, "ben": 4, "dee": 4, "eli": 4}
    assert [p for p, v in players.items() if v["winner"]] == ["ann"]
    assert result["start_player"] == "ann"
    leg, bets = result["rounds"]
    # The last leg: Ann's pyramid ticket (+1) before the piles are paid.
    assert leg["leg"] == 1 and leg["money"]["ann"] == 12 and leg["gains"]["ann"] == 1
    assert bets["final"] is True and (bets["winner_camel"], bets["loser_camel"]) == ("red", "green")
    assert [(c["player"], c["paid"]) for c in bets["piles"]["loser"]] == [
        ("fay", 8), ("dee", -1), ("cal", 5), ("eli", -1)]
    assert bets["money"] == {p: v["score"] for p, v in players.items()}


def test_a_tie_for_the_most_money_shares_the_victory(mk, do) -> None:
    # R39: Cal enters the final scoring with 10 instead of 4 and ends on 20, like Ann.
    before = example_8_state(mk)
    seats = tuple(replace(s, money=10) if s.id == "cal" else s for s in before.seats)
    before = replace(before, seats=seats)
    after, events = do(before, "pyramid", "ann", die="red", value=2)
    players = _by_id(ENGINE.result(after, [(before, []), (after, events)]))
    assert (players["ann"]["score"], players["cal"]["score"]) == (20, 20)
    assert players["ann"]["rank"] == players["cal"]["rank"] == 1 and players["fay"]["rank"] == 3
    assert players["ann"]["winner"] and players["cal"]["winner"] and not players["fay"]["winner"]


def test_money_after_each_leg_from_the_replay(mk, do) -> None:
    # Example 7's leg, then Example 8's race end: one line per leg, then the bets.
    leg7 = example_7_state(mk)
    s1, ev1 = do(leg7, "pyramid", "fay", die="purple", value=1)
    start = example_8_state(mk)
    s2, ev2 = do(start, "pyramid", "ann", die="red", value=2)
    result = ENGINE.result(s2, [(leg7, []), (s1, ev1), (s2, ev2)])
    legs = [r for r in result["rounds"] if "leg" in r]
    assert legs[0]["leg"] == 3
    assert legs[0]["money"] == {"ann": 9, "ben": 10, "cal": 3, "dee": 0, "eli": 5, "fay": 2}
    assert legs[1]["money"]["ann"] == 12
    assert result["rounds"][-1]["final"] is True
