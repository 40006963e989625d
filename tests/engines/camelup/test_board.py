"""Movement, stacking, tiles and ranking edge cases (R14-R25, R30, CU-3 to CU-5)."""

from __future__ import annotations

import doctest

import pytest

from engines.camelup import board, board_of, constants, options, scoring
from engines.camelup.board import move, ranking, set_stack, track_from


@pytest.mark.parametrize("module", [board, constants, options, scoring])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


def test_unit_takes_only_camels_above() -> None:
    t = track_from({3: ["red", "blue", "green"]})
    t, mv = move(t, {}, "blue", 1, True)
    assert t[2] == ("red",) and t[3] == ("blue", "green")
    assert mv.unit == ("blue", "green") and mv.space == 4 and mv.crossed == 0


def test_boo_with_a_one_goes_under_the_camels_left_behind() -> None:
    # R23: the unit was lifted off before it moved.
    t = track_from({5: ["red", "blue"]})
    t, mv = move(t, {6: ("ann", "boo")}, "blue", 1, True)
    assert t[4] == ("blue", "red") and mv.tile == (6, "ann", "boo") and not mv.on_top


def test_boo_on_space_2_sends_racing_camels_to_space_1_underneath() -> None:
    t, mv = move(track_from({1: ["green", "red"]}), {2: ("ann", "boo")}, "red", 1, True)
    assert t[0] == ("red", "green") and mv.space == 1


def test_racing_camel_crossing_forward() -> None:
    t, mv = move(track_from({15: ["red", "white"], 16: ["blue"]}), {}, "red", 2, True)
    assert mv.crossed == 1 and mv.unit == ("red", "white") and mv.space is None
    assert ranking(t, mv.unit, mv.crossed)[:2] == ("red", "blue")


def test_crossed_backward_racing_camels_rank_last_in_unit_order() -> None:
    t = track_from({2: ["black", "purple", "green"], 3: ["blue", "yellow", "red"]})
    t, mv = move(t, {}, "black", 3, True)
    assert ranking(t, mv.unit, mv.crossed) == ("red", "yellow", "blue", "green", "purple")


def test_lone_crazy_camel_wraps_onto_a_tile_when_flag_is_off() -> None:
    # R20 with the flag off: the wrapped camel is placed as in R18, tile included.
    t = track_from({2: ["white"], 14: ["red"]})
    t, mv = move(t, {15: ("ann", "cheer")}, "white", 3, False)
    assert mv.wrapped and mv.tile == (15, "ann", "cheer") and t[13] == ("red", "white")


def test_cu5_lone_crazy_booed_past_16_wraps_to_space_1_underneath() -> None:
    t = track_from({1: ["red"], 2: ["white"]})
    t, mv = move(t, {16: ("ann", "boo")}, "white", 2, False)
    assert t[0] == ("white", "red") and mv.space == 1 and mv.crossed == 0


def test_cu5_lone_crazy_booed_past_16_ends_the_race_by_default() -> None:
    # Reachable only through a correction: white stands on 1 and rolls a 1.
    t = track_from({1: ["white"]})
    t, mv = move(t, {}, "white", 1, True)
    assert mv.crossed == -1 and mv.unit == ("white",)


def test_mixed_unit_is_pushed_in_the_moved_camels_direction() -> None:
    # CU-12: a racing camel carrying a crazy camel is cheered clockwise.
    t, mv = move(track_from({4: ["red", "black"]}), {6: ("ann", "cheer")}, "red", 2, True)
    assert t[6] == ("red", "black") and mv.direction == 1


def test_flip_in_place_option() -> None:
    t = track_from({})
    tiles = {5: ("ann", "cheer")}
    assert (5, "boo") not in board.tile_targets(t, tiles, "ann", False)
    assert (5, "boo") in board.tile_targets(t, tiles, "ann", True)
    assert (5, "cheer") not in board.tile_targets(t, tiles, "ann", True)


def test_set_stack_lifts_camels_and_refuses_to_lose_any() -> None:
    t = track_from({5: ["red"], 6: ["blue"]})
    t = set_stack(t, 6, ["red", "blue"])
    assert t[4] == () and t[5] == ("red", "blue")
    with pytest.raises(ValueError, match="blue would leave the board"):
        set_stack(t, 6, ["red"])
    with pytest.raises(ValueError):
        set_stack(t, 3, ["red", "red"])


def test_board_of(mk) -> None:
    s = mk(seats={"p2": {"tile": (9, "boo")}})
    b = board_of(s)
    assert set(b) == {"track", "pyramid", "tiles"}
    assert sorted(b["track"]) == list(range(1, 17))
    assert (
        b["track"][1] == ["green", "purple"] and b["track"][16] == ["white"] and b["track"][5] == []
    )
    assert b["pyramid"] == ["blue", "green", "yellow", "red", "purple", "grey"]
    assert b["tiles"] == {9: ["p2", "boo"]}
