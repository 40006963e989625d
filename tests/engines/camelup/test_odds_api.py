"""The odds module's public API: moves on the spec's worked examples (both
back ends), ticket and tile values, spectator what-ifs, the race estimate,
input checking."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from engines.camelup import odds, odds_backend, odds_npmove, odds_py
from engines.camelup.constants import CAMELS, RACING
from engines.camelup.odds_board import CHEER, SLOT, Position, parse_board

DICE = list(RACING) + ["grey"]
START = {1: ["blue", "green"], 2: ["red", "yellow"], 3: ["purple"], 14: ["black"], 15: ["white"]}


def _board(
    track: dict[int, list[str]], pyramid: list[str] | None = None, **more: Any
) -> dict[str, Any]:
    return {"track": track, "pyramid": pyramid or DICE, **more}


# --- single moves on the spec's worked examples ----------------------------


def _move(track, die: str, value: int, tiles=None, lone: bool = True, backend: str = "python"):
    """Rolls ``die`` ("white"/"black" = the grey die showing that colour):
    returns (track after or None, ranking leader first, tile space hit)."""
    pos = parse_board(_board(track, tiles=tiles or {}), lone)
    kinds = {s: side for s, (side, _) in pos.tiles.items()}
    grey = die in ("white", "black")
    if backend == "python":
        board = odds_py.encode(pos.places)
        camel = (
            odds_py.select_crazy(board, str(CAMELS.index(die))) if grey else str(RACING.index(die))
        )
        new, ended, hit = odds_py.step(board, camel, -1 if grey else 1, value, kinds, lone)
        if new is None:
            return None, [RACING[int(c)] for c in ended], hit
        places = odds_py.decode(new)
    else:
        P = np.array([pos.places], dtype=np.int16)
        if grey:
            on_white, on_black = odds_npmove.select_crazy(P)
            cam = (on_white if die == "white" else on_black).astype(np.int16)
        else:
            cam = np.array([RACING.index(die)], dtype=np.int16)
        d = np.array([-1 if grey else 1], dtype=np.int16)
        moved = odds_npmove.move(
            P, cam, d, np.array([[value]], dtype=np.int16), odds_npmove.tile_table(kinds), lone
        )
        hit = int(moved.hit_space[0]) if moved.hit[0] else 0
        if moved.ended[0]:
            keys = moved.keys[0][: len(RACING)]
            return None, [RACING[i] for i in np.argsort(-keys)], hit
        places = tuple(int(x) for x in moved.places[0])
    after = Position(places, (), {}).stacks()
    new_track = {space: [CAMELS[c] for c in stack] for space, stack in after.items()}
    order = sorted(range(len(RACING)), key=lambda c: -places[c])
    return new_track, [RACING[c] for c in order], hit


BACKENDS = ["python", "numpy"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_2_racing_camel_carries_a_crazy_camel(backend: str) -> None:
    track = {1: ["yellow", "purple"], 4: ["blue", "green", "white"], 6: ["red"], 15: ["black"]}
    after, rank, _ = _move(track, "blue", 2, backend=backend)
    assert after[6] == ["red", "blue", "green", "white"] and 4 not in after
    assert rank == ["green", "blue", "red", "purple", "yellow"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_3_crazy_camel_carrying_racers_moves(backend: str) -> None:
    track = {3: ["blue", "purple"], 9: ["green"], 10: ["white", "yellow", "red"], 12: ["black"]}
    after, rank, _ = _move(track, "black", 2, backend=backend)
    assert after[8] == ["white", "yellow", "red"]
    assert rank == ["green", "red", "yellow", "purple", "blue"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_4_upper_crazy_camel_moves(backend: str) -> None:
    track = {5: ["blue", "green", "yellow", "red"], 13: ["black", "white", "purple"]}
    after, rank, _ = _move(track, "black", 3, backend=backend)
    assert after[10] == ["white", "purple"] and after[13] == ["black"]
    assert rank == ["purple", "red", "yellow", "green", "blue"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("stack", "on_white", "on_black"),
    [
        (["white", "black", "red"], "black", "black"),
        (["black", "white", "red"], "white", "white"),
        (["white", "red", "black"], "white", "white"),
        (["red", "white", "black"], "black", "black"),
        (["white", "red", "black", "green"], "white", "black"),
    ],
)
def test_example_4_selection_table(
    stack: list[str], on_white: str, on_black: str, backend: str
) -> None:
    track = {8: stack, 1: [c for c in RACING if c not in stack]}
    for colour, expected in (("white", on_white), ("black", on_black)):
        after, _, _ = _move(track, colour, 1, backend=backend)
        assert expected in after[7] and after[7][0] == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_5_booing_tile(backend: str) -> None:
    track = {
        2: ["purple"],
        5: ["green", "blue"],
        6: ["yellow", "red"],
        15: ["white"],
        16: ["black"],
    }
    after, rank, hit = _move(track, "green", 2, {7: ["dana", "boo"]}, backend=backend)
    assert hit == 7 and after[6] == ["green", "blue", "yellow", "red"]
    assert rank == ["red", "yellow", "blue", "green", "purple"]
    after, rank, hit = _move(track, "green", 2, {7: ["dana", "cheer"]}, backend=backend)
    assert hit == 7 and after[8] == ["green", "blue"]
    assert rank == ["blue", "green", "red", "yellow", "purple"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_booed_back_onto_its_own_space_goes_underneath(backend: str) -> None:
    track = {5: ["red", "green", "blue"], 1: ["yellow", "purple"], 14: ["white"], 15: ["black"]}
    after, _, _ = _move(track, "green", 1, {6: ["dana", "boo"]}, backend=backend)
    assert after[5] == ["green", "blue", "red"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_6_crazy_camels_on_tiles(backend: str) -> None:
    track = {3: ["green", "yellow", "red"], 8: ["blue"], 11: ["white", "purple"], 14: ["black"]}
    after, rank, hit = _move(track, "white", 2, {9: ["eve", "cheer"]}, backend=backend)
    assert hit == 9 and after[8] == ["blue", "white", "purple"]
    assert rank == ["purple", "blue", "red", "yellow", "green"]
    track = {
        3: ["yellow", "red"],
        8: ["blue"],
        10: ["green"],
        11: ["white", "purple"],
        14: ["black"],
    }
    after, rank, hit = _move(track, "black", 2, {9: ["eve", "boo"]}, backend=backend)
    assert hit == 9 and after[10] == ["white", "purple", "green"]
    assert rank == ["green", "purple", "blue", "red", "yellow"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_9_racers_carried_backward_across_the_line(backend: str) -> None:
    track = {2: ["black", "purple", "green"], 9: ["blue"], 12: ["yellow", "red"], 14: ["white"]}
    after, rank, _ = _move(track, "white", 3, backend=backend)
    assert after is None
    assert rank == ["red", "yellow", "blue", "green", "purple"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_10_lone_crazy_camel_crosses(backend: str) -> None:
    track = {
        2: ["white"],
        5: ["green", "purple"],
        9: ["blue"],
        12: ["yellow", "red"],
        13: ["black"],
    }
    after, rank, _ = _move(track, "white", 2, backend=backend)
    assert after is None and rank == ["red", "yellow", "blue", "purple", "green"]
    after, _, _ = _move(track, "white", 2, lone=False, backend=backend)
    assert after[16] == ["white"] and 2 not in after


@pytest.mark.parametrize("backend", BACKENDS)
def test_example_11_cheering_tile_on_16_pushes_over_the_line(backend: str) -> None:
    track = {
        4: ["purple"],
        10: ["blue", "green"],
        12: ["white"],
        13: ["red"],
        14: ["yellow", "black"],
    }
    after, rank, hit = _move(track, "yellow", 2, {16: ["ben", "cheer"]}, backend=backend)
    assert after is None and hit == 16
    assert rank == ["yellow", "red", "green", "blue", "purple"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_cu1_off_lone_crazy_camel_wraps_then_tiles_act(backend: str) -> None:
    track = {1: ["red"], 3: ["blue", "green", "yellow", "purple"], 14: ["black"], 2: ["white"]}
    # 2 - 3 = -1 wraps to 15 (R20, flag off), where a booing tile pushes it
    # clockwise (against its direction) to 16.
    after, _, hit = _move(track, "white", 3, {15: ["ann", "boo"]}, lone=False, backend=backend)
    assert hit == 15 and after[16] == ["white"]
    # CU-5: 2 - 2 = 0 wraps to 16; booed past 16 it wraps to 1, underneath.
    after, _, hit = _move(track, "white", 2, {16: ["ann", "boo"]}, lone=False, backend=backend)
    assert hit == 16 and after[1] == ["white", "red"]
    # With the flag on, the same roll simply ends the race.
    after, rank, _ = _move(track, "white", 2, {16: ["ann", "boo"]}, backend=backend)
    assert after is None and rank[-1] == "red"


# --- leg odds: tickets, pyramid ticket, tile income --------------------------


def test_ticket_values_follow_the_leg_payout() -> None:
    board = _board(START, tickets={"green": [3, 2, 2], "red": [], "blue": [5, 3, 2, 2]})
    result = odds.leg_odds(board)
    den = result.denominator
    assert set(result.tickets) == {"blue", "green", "yellow", "purple"}  # red's stack is empty
    for colour, (value, num) in result.tickets.items():
        first, second = result.counts.ranks[colour][:2]
        assert num == value * first + second - (den - first - second)
        assert result.ticket_value(colour) == pytest.approx(
            value * first / den + second / den - (1 - (first + second) / den)
        )
    assert result.tickets["green"][0] == 3 and result.tickets["yellow"][0] == 5
    data = result.as_dict()
    assert data["pyramidTicket"] == {"ev": 1.0}
    json.dumps(data)


def test_tile_income_per_owner_equals_landings() -> None:
    tiles = {5: ["ann", "cheer"], 7: ["ann", "boo"], 9: ["ben", "boo"]}
    board = _board(START, ["green", "yellow", "grey"], tiles=tiles)
    result = odds.leg_odds(board)
    landings = result.counts.landings
    assert result.tile_income == {"ann": landings[5] + landings[7], "ben": landings[9]}
    assert landings[5] > 0


def test_backends_agree_on_leg_odds() -> None:
    board = _board(START, tiles={5: ["ann", "cheer"], 9: ["ben", "boo"]})
    py = odds.leg_odds(board, backend="python")
    nump = odds.leg_odds(board, backend="numpy")
    assert py == nump


# --- spectator what-ifs --------------------------------------------------


EXAMPLE_12 = {3: ["blue", "green"], 7: ["red", "white"], 12: ["yellow", "purple"], 15: ["black"]}
EXAMPLE_12_TILES = {5: ["ann", "cheer"], 10: ["ben", "boo"]}


def test_example_12_legal_spaces() -> None:
    pos = odds.position(_board(EXAMPLE_12, tiles=EXAMPLE_12_TILES))
    assert sorted({s for s, _ in odds.tile_targets(pos, "cal")}) == [2, 8, 13, 14, 16]
    assert sorted({s for s, _ in odds.tile_targets(pos, "ann")}) == [2, 4, 6, 8, 13, 14, 16]
    assert len(odds.tile_targets(pos, "cal")) == 10  # both sides everywhere
    flipped = odds.tile_targets(pos, "ann", flip_in_place=True)
    assert (5, CHEER) not in flipped and (5, 2) in flipped


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_ifs_equal_solving_with_the_tile(backend: str) -> None:
    board = _board(EXAMPLE_12, ["blue", "red", "yellow", "grey"], tiles=EXAMPLE_12_TILES)
    what_ifs = odds.tile_what_ifs(board, "ann", backend=backend)
    assert [(w.space, w.side) for w in what_ifs] != []
    assert {w.space for w in what_ifs} == {2, 4, 6, 8, 13, 14, 16}
    incomes = [w.landings for w in what_ifs]
    assert incomes == sorted(incomes, reverse=True)
    for w in what_ifs:
        # Ann's tile moves: her old one on 5 is gone.
        trial = {**board, "tiles": {10: ["ben", "boo"], w.space: ["ann", w.side]}}
        assert w.landings == odds.count_leg(odds.position(trial), "python").landings[w.space]


def test_what_ifs_respect_the_flip_option() -> None:
    board = _board(EXAMPLE_12, ["blue", "red", "grey"], tiles=EXAMPLE_12_TILES)
    plain = {(w.space, w.side) for w in odds.tile_what_ifs(board, "ann")}
    flip = {
        (w.space, w.side) for w in odds.tile_what_ifs(board, "ann", {"spectatorFlipInPlace": True})
    }
    assert flip - plain == {(5, "boo")}


# --- race winner / loser ---------------------------------------------------


def test_race_estimate_is_seeded_and_has_an_uncertainty() -> None:
    board = _board(START)
    one = odds.race_odds(board, races=2000, seed=7)
    assert one == odds.race_odds(board, races=2000, seed=7)
    assert one != odds.race_odds(board, races=2000, seed=8)
    assert not one.exact and one.races == 2000
    assert sum(one.winner.values()) == pytest.approx(1)
    assert sum(one.loser.values()) == pytest.approx(1)
    for colour in RACING:
        p = one.winner[colour]
        assert 0 < one.winner_error[colour] < 0.02
        assert one.winner_error[colour] == pytest.approx(math.sqrt(p * (1 - p) / 2000), rel=1e-9)
    json.dumps(one.as_dict())


def test_race_that_must_end_this_leg_is_exact() -> None:
    # Every racer is on 15-16, so the first racing die rolled ends the race.
    board = _board(
        {15: ["blue", "green"], 16: ["red", "yellow", "purple"], 2: ["white"], 3: ["black"]}
    )
    race = odds.race_odds(board)
    leg = odds.count_leg(odds.position(board))
    assert race.exact and race.races == 0 and race.ends_this_leg == 1
    assert all(e == 0 for e in race.winner_error.values())
    for colour in RACING:
        assert race.winner[colour] == leg.ranks[colour][0] / leg.denominator
        assert race.loser[colour] == leg.ranks[colour][4] / leg.denominator


def test_race_exact_part_is_the_leg_end_mass() -> None:
    board = _board(
        {13: ["blue"], 14: ["red", "white"], 12: ["green", "yellow"], 11: ["purple"], 3: ["black"]}
    )
    race = odds.race_odds(board, races=3000)
    leg = odds.count_leg(odds.position(board))
    assert race.ends_this_leg == pytest.approx(leg.race_ends / leg.denominator)
    assert 0 < race.ends_this_leg < 1
    share = 1 - race.ends_this_leg
    for colour in RACING:
        exact = leg.end_ranks[colour][0] / leg.denominator
        assert exact <= race.winner[colour] <= exact + share


@pytest.mark.parametrize("lone", [True, False])
def test_python_and_numpy_races_agree_statistically(lone: bool) -> None:
    board = _board(
        {4: ["blue", "green"], 5: ["red"], 6: ["yellow", "purple"], 3: ["black"], 7: ["white"]}
    )
    options = {"crazyLoneCrossingEndsGame": lone}
    py = odds.race_odds(board, options, races=1500, seed=1, backend="python")
    nump = odds.race_odds(board, options, races=4000, seed=1, backend="numpy")
    for colour in RACING:
        for a, b, ea, eb in (
            (py.winner, nump.winner, py.winner_error, nump.winner_error),
            (py.loser, nump.loser, py.loser_error, nump.loser_error),
        ):
            assert abs(a[colour] - b[colour]) < 4.5 * math.hypot(ea[colour], eb[colour]) + 1e-9


def test_without_numpy_everything_falls_back_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    board = _board(START, tiles={6: ["ann", "boo"]})
    expected = odds.leg_odds(board)
    monkeypatch.setattr(odds_backend, "odds_np", None)  # the one place NumPy is looked for
    assert odds.leg_odds(board) == expected
    assert odds.tile_what_ifs(_board(START, ["red", "grey"]))[0].landings > 0
    race = odds.race_odds(board, races=200)
    assert race.races == 200 and sum(race.winner.values()) == pytest.approx(1)
    with pytest.raises(RuntimeError, match="NumPy"):
        odds.leg_odds(board, backend="numpy")


def test_analyse_is_json_ready() -> None:
    board = _board(START, ["blue", "red", "grey"], tiles={6: ["ann", "boo"]})
    data = odds.analyse(board, "ben", races=500)
    assert json.loads(json.dumps(data)) == data
    assert data["tileSpots"][0]["ev"] >= data["tileSpots"][-1]["ev"]
    assert data["leg"]["tileIncome"]["ann"]["evCount"] >= 0


# --- input checking ------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "message"),
    [
        ({"track": {**START, 4: ["pink"]}, "pyramid": DICE}, "unknown camel"),
        ({"track": {1: ["blue"]}, "pyramid": DICE}, "missing"),
        ({"track": {**START, 4: ["blue"]}, "pyramid": DICE}, "twice"),
        ({"track": {**START, 17: []}, "pyramid": DICE}, "off the track"),
        ({"track": START, "pyramid": []}, "empty"),
        ({"track": START, "pyramid": ["red", "red"]}, "twice"),
        ({"track": START, "pyramid": ["orange"]}, "unknown die"),
        ({"track": START, "pyramid": DICE, "tiles": {5: ["ann", "clap"]}}, "cheer or boo"),
    ],
)
def test_bad_boards_are_refused(board: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        odds.leg_odds(board)


def test_string_space_keys_are_accepted() -> None:
    board = {
        "track": {str(k): v for k, v in START.items()},
        "pyramid": ["red", "grey"],
        "tiles": {"6": ["a", "boo"]},
    }
    assert odds.leg_odds(board) == odds.leg_odds(
        _board(START, ["red", "grey"], tiles={6: ["a", "boo"]})
    )


def test_places_encoding() -> None:
    pos = parse_board(_board(START))
    assert pos.places[RACING.index("green")] == 1 * SLOT + 1
