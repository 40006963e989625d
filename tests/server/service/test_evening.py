"""An evening, not one game (issue 41): after "play again", the lobby says
which game of the evening comes next and who set it up, and the results of
the second game on carry every game's figures and the running total."""

from __future__ import annotations

from tests.server.conftest import Phone
from tests.server.service.test_results import (
    EX3_GOALS,
    EX5_ROUNDS,
    get_result,
    kingup_table,
    play_kingup,
)

# One round each: p1 24, p2 15, p3 17, p4 9 (King Up! Example 3).
ONE_ROUND = [EX3_GOALS]


def finish(host: Phone, rounds: list[dict[str, str]]) -> None:
    assert host.act("start").status_code == 200
    play_kingup(host, rounds)


def test_the_evening_adds_up_game_after_game(client) -> None:
    phones = kingup_table(client, rounds=1)
    host, guest = phones[0], phones[1]
    finish(host, ONE_ROUND)
    assert "evening" not in get_result(host).json, "one game is not yet an evening"
    assert "evening" not in guest.get().json

    assert host.act("play_again").status_code == 200
    # The guests' phones say which game comes next and who set it up.
    assert guest.get().json["evening"] == {"game": 2, "by": "p1"}
    finish(host, [{**EX3_GOALS, "p1": "FLJICE", "p4": "DABCIL"}])  # p4 24, p1 9 this time
    assert "evening" not in guest.get().json, "over: the results say it"
    res = get_result(guest).json
    ev = res["evening"]
    assert [g["n"] for g in ev["games"]] == [1, 2]
    assert {p: (f["score"], f["rank"], f["winner"]) for p, f in ev["games"][0]["players"].items()} == {
        "p1": (24, 1, True), "p2": (15, 3, False), "p3": (17, 2, False), "p4": (9, 4, False)}
    assert {p: f["score"] for p, f in ev["games"][1]["players"].items()} == {"p1": 9, "p2": 15, "p3": 17, "p4": 24}
    assert ev["totals"] == {"p1": {"score": 33, "wins": 1}, "p2": {"score": 30, "wins": 0},
                            "p3": {"score": 34, "wins": 0}, "p4": {"score": 33, "wins": 1}}
    # This game's own sheet is this game's alone.
    assert [(p["id"], p["score"]) for p in res["players"]][0] == ("p4", 24)

    assert host.act("play_again").status_code == 200
    assert guest.get().json["evening"] == {"game": 3, "by": "p1"}
    assert host.act("start").status_code == 200
    assert "evening" not in guest.get().json


def test_a_game_undone_and_a_longer_game_count_as_played(client) -> None:
    phones = kingup_table(client)
    host = phones[0]
    finish(host, EX5_ROUNDS)
    first = get_result(host).json
    host.act("play_again")
    assert host.act("start").status_code == 200
    play_kingup(host, EX5_ROUNDS[:1])
    assert host.act("next_round").status_code == 200
    assert host.act("undo").status_code == 200, "taken back: replayed without it"
    assert host.act("next_round").status_code == 200
    play_kingup(host, EX5_ROUNDS[1:])
    ev = get_result(host).json["evening"]
    again = {p["id"]: p["score"] for p in first["players"]}
    assert {p: f["score"] for p, f in ev["games"][0]["players"].items()} == again
    assert {p: f["score"] for p, f in ev["games"][1]["players"].items()} == again
    assert {p: t["score"] for p, t in ev["totals"].items()} == {p: 2 * s for p, s in again.items()}
