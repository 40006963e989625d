"""The odds solvers against a plain brute-force oracle and the golden
positions of issue 6.

The oracle below is deliberately naive and independent of the solvers: a
recursive walk over every die order and face, each die moved by the engine's
own rules (``board.move``, ``board.select_crazy`` and ``board.ranking``: R14-R25, R27,
R30, CU-1/3/4/5), so every solver is checked against the one movement the
game itself plays.
"""

from __future__ import annotations

import random
from math import factorial
from typing import Any

import pytest

from engines.camelup import odds, odds_py
from engines.camelup.board import Track, move, ranking, select_crazy, track_from
from tests.engines.camelup import golden

RACING = ("blue", "green", "yellow", "red", "purple")
CRAZY = ("white", "black")
DICE = RACING + ("grey",)
FULL = 5_598_720
BACKENDS = ["python", "numpy"]


# --- the oracle -------------------------------------------------------------


def _move(track: Track, tiles, camel, value, lone_ends, income):
    """The engine's own move (``board.move``, R14-R25): (new track, None) or
    (None, the final ranking) when the unit crossed the line."""
    new, moved = move(track, tiles, camel, value, lone_ends)
    if moved.tile is not None:
        income[moved.tile[0]] = income.get(moved.tile[0], 0) + 1
    if moved.space is None:
        return None, list(ranking(new, moved.unit, moved.crossed))
    return new, None


def oracle(position: dict[str, Any], lone_ends: bool = True) -> tuple[dict, dict, int]:
    """(colour -> 5 rank counts, tile space -> landings, race-end outcomes)."""
    track = track_from({int(s): list(st) for s, st in position["track"].items() if st})
    tiles = {int(s): tuple(t) for s, t in position.get("tiles", {}).items()}
    counts = {c: [0] * 5 for c in RACING}
    landings: dict[int, int] = {}
    ends = [0]

    def completions(dice_left: int) -> int:
        return factorial(dice_left) * 6 ** (dice_left - 1)

    def walk(track, dice, paths):
        if len(dice) == 1:
            for place, camel in enumerate(ranking(track)):
                counts[camel][place] += paths
            return
        for die in dice:
            left = [x for x in dice if x != die]
            if die == "grey":
                faces = [(select_crazy(track, col), v, 1) for col in CRAZY for v in (1, 2, 3)]
            else:
                faces = [(die, v, 2) for v in (1, 2, 3)]
            for camel, value, weight in faces:
                hits: dict[int, int] = {}
                new, final = _move(track, tiles, camel, value, lone_ends, hits)
                for space, n in hits.items():
                    landings[space] = landings.get(space, 0) + n * paths * weight * completions(
                        len(left)
                    )
                if final is None:
                    walk(new, left, paths * weight)
                else:
                    every = paths * weight * completions(len(left))
                    ends[0] += every
                    for place, c in enumerate(final):
                        counts[c][place] += every

    walk(track, list(position["pyramid"]), 1)
    return counts, landings, ends[0]


# --- random positions -------------------------------------------------------


def random_board(rng: random.Random, dice: int) -> dict[str, Any]:
    """Camels crowded into a window (so stacks, crazy camels on and under
    racers, and both kinds of crossing are common), random tiles."""
    style = rng.choice(["start", "window", "finish", "backward", "spread"])
    if style == "start":
        spaces = {c: rng.randint(1, 3) for c in RACING} | {c: rng.randint(14, 16) for c in CRAZY}
    elif style == "finish":
        spaces = {c: rng.randint(11, 16) for c in RACING + CRAZY}
    elif style == "backward":
        spaces = {c: rng.randint(1, 5) for c in RACING + CRAZY}
    elif style == "window":
        low = rng.randint(1, 12)
        spaces = {c: rng.randint(low, low + 4) for c in RACING + CRAZY}
    else:
        spaces = {c: rng.randint(1, 16) for c in RACING + CRAZY}
    order = list(RACING + CRAZY)
    rng.shuffle(order)
    track: dict[int, list[str]] = {}
    for camel in order:
        track.setdefault(spaces[camel], []).append(camel)
    tiles: dict[int, list[str]] = {}
    free = [s for s in range(1, 17) if s not in track]
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        if free:
            space = free.pop(rng.randrange(len(free)))
            tiles[space] = [rng.choice(["p1", "p2", "p3"]), rng.choice(["cheer", "boo"])]
    return {"track": track, "pyramid": rng.sample(DICE, dice), "tiles": tiles}


def _sizes() -> list[tuple[int, int]]:
    # (seed, dice in the pyramid): mostly 3-5 dice, where the oracle is quick.
    sizes = [1, 2, 3, 3, 4, 4, 4, 4, 5, 5]
    return [(seed, sizes[seed % len(sizes)]) for seed in range(300)]


def _check(board: dict[str, Any], lone: bool, backend: str) -> None:
    ranks, landings, ends = oracle(board, lone)
    counts = odds.count_leg(odds.position(board, {"crazyLoneCrossingEndsGame": lone}), backend)
    assert counts.ranks == {c: tuple(r) for c, r in ranks.items()}
    assert counts.landings == {int(s): landings.get(int(s), 0) for s in board["tiles"]}
    assert counts.race_ends == ends


@pytest.mark.parametrize(("seed", "dice"), _sizes())
def test_solvers_equal_the_oracle(seed: int, dice: int) -> None:
    rng = random.Random(seed)
    board = random_board(rng, dice)
    lone = rng.random() < 0.7
    for backend in BACKENDS:
        _check(board, lone, backend)


FULL_PYRAMID_CASES = [
    # Racers on a crazy camel near the start (backward crossing), a leader
    # near the line and a cheering tile on 16 (forward crossing), a boo tile.
    (
        {
            "track": {
                1: ["yellow"],
                2: ["black", "purple", "green"],
                13: ["blue"],
                14: ["red", "white"],
            },
            "tiles": {4: ["p1", "boo"], 16: ["p2", "cheer"]},
        },
        True,
    ),
    # Stacked crazy camels carrying a racer, a lone crazy camel that can
    # wrap around (CU-1 off), tiles on both sides of the pack.
    (
        {
            "track": {
                2: ["black"],
                3: ["white", "blue"],
                5: ["green", "red"],
                6: ["yellow", "purple"],
            },
            "tiles": {8: ["p3", "cheer"], 10: ["p1", "boo"]},
        },
        False,
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("board", "lone"), FULL_PYRAMID_CASES)
def test_full_pyramid_equals_the_oracle(board: dict[str, Any], lone: bool) -> None:
    for backend in BACKENDS:
        _check({**board, "pyramid": list(DICE)}, lone, backend)


def test_random_positions_cover_the_hard_cases() -> None:
    """The sample really holds what the issue lists."""
    seen = set()
    for seed, dice in _sizes():
        rng = random.Random(seed)
        board = random_board(rng, dice)
        lone = rng.random() < 0.7
        track = board["track"]
        for stack in track.values():
            for i, camel in enumerate(stack):
                if camel in CRAZY and any(c in RACING for c in stack[i + 1 :]):
                    seen.add("racers on a crazy camel")
                if camel in CRAZY and i + 1 < len(stack) and stack[i + 1] in CRAZY:
                    seen.add("stacked crazy camels")
        seen.add("grey in" if "grey" in board["pyramid"] else "grey out")
        if board["tiles"]:
            seen.add("tiles")
        if not lone:
            seen.add("CU-1 off")
        # Crossings on the first roll (the solvers see them at any depth).
        pos = odds.position(board, {"crazyLoneCrossingEndsGame": lone})
        start = odds_py.encode(pos.places)
        for die in pos.dice:
            grey = die == 5
            camel = odds_py.select_crazy(start, "5") if grey else str(die)
            carries = odds_py.ranking(start[start.find(camel) : start.find(".", start.find(camel))])
            for value in (1, 2, 3):
                _, ended, _ = odds_py.step(start, camel, -1 if grey else 1, value, {}, lone)
                if ended is not None:
                    seen.add("race ends")
                    seen.add(
                        ("backward" if grey else "forward")
                        + (" crossing" if carries or not grey else "")
                    )
    assert seen >= {
        "racers on a crazy camel",
        "stacked crazy camels",
        "grey in",
        "grey out",
        "tiles",
        "CU-1 off",
        "race ends",
        "forward crossing",
        "backward crossing",
    }


# --- golden positions (issue 6) --------------------------------------------

GOLDEN_A = {"track": golden.TRACK_A, "pyramid": list(DICE)}
GOLDEN_B = {"track": golden.TRACK_B, "pyramid": list(DICE)}
# colour: (1st, 2nd, last) out of 5,598,720
EXPECTED_A = golden.COUNTS_A
EXPECTED_B = golden.COUNTS_B


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("board", "expected"), [(GOLDEN_A, EXPECTED_A), (GOLDEN_B, EXPECTED_B)])
def test_golden_positions(
    board: dict[str, Any], expected: dict[str, tuple[int, int, int]], backend: str
) -> None:
    counts = odds.count_leg(odds.position(board), backend)
    assert counts.denominator == FULL
    assert {c: (r[0], r[1], r[4]) for c, r in counts.ranks.items()} == expected
    for colour in RACING:
        assert sum(counts.ranks[colour]) == FULL
    for place in range(5):
        assert sum(counts.ranks[c][place] for c in RACING) == FULL


@pytest.mark.slow
def test_oracle_agrees_with_golden_a() -> None:
    """The oracle itself is checked against the issue, once (it takes ~2 s)."""
    ranks, _, ends = oracle(GOLDEN_A)
    assert {c: (r[0], r[1], r[4]) for c, r in ranks.items()} == EXPECTED_A
    assert ends == 0


@pytest.mark.parametrize(
    ("pyramid", "denominator"),
    [(DICE, FULL), (RACING, 120 * 6**4), (("red", "grey"), 12), (("grey",), 1)],
)
def test_denominator_counts_one_die_left(pyramid: tuple[str, ...], denominator: int) -> None:
    board = {"track": GOLDEN_A["track"], "pyramid": list(pyramid)}
    counts = odds.count_leg(odds.position(board))
    assert counts.denominator == denominator
    assert all(sum(r) == denominator for r in counts.ranks.values())
