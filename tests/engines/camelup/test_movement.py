"""Camel movement is written once as the rules (``board.move``, R14-R25, and
``board.select_crazy``, R17) and again, for speed, in each odds solver's own
board form: ``odds_py`` on strings, ``odds_npmove`` on int16 place arrays (and,
with tags, one tile table per what-if), ``odds_sim`` on camel-major bytes.
Sharing one implementation would cost the solvers a conversion per move, so
each solver's move of one die is checked here against ``board.move`` itself,
on seeded random boards with stacks, crazy camels on and under racers, both
crossings (CU-1 on and off) and spectator tiles on both sides."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping

import numpy as np
import pytest

from engines.camelup import odds, odds_np, odds_npmove, odds_py, odds_sim, odds_whatif
from engines.camelup.board import Move, Track, move, ranking, select_crazy, track_from
from engines.camelup.constants import CAMELS, CRAZY, RACING, is_racing
from engines.camelup.odds_board import FORWARD_PROGRESS, GREY_DIE, SIDE_NAMES, SLOT
from tests.engines.camelup.test_odds import oracle, random_board

Tiles = Mapping[int, tuple[str, str]]


def places(track: Track) -> tuple[int, ...]:
    """The solvers' ``space * 8 + height`` per camel column."""
    out = dict.fromkeys(CAMELS, -1)
    for i, stack in enumerate(track):
        for h, camel in enumerate(stack):
            out[camel] = (i + 1) * SLOT + h
    return tuple(out[c] for c in CAMELS)


def final_keys(track: Track, moved: Move) -> tuple[int, ...]:
    """``places`` after a crossing, the unit at progress 17 or 0 (R30), as the
    NumPy solvers key a finished race."""
    out = list(places(track))
    progress = FORWARD_PROGRESS if moved.crossed > 0 else 0
    for h, camel in enumerate(moved.unit):
        out[CAMELS.index(camel)] = progress * SLOT + h
    return tuple(out)


def boards(seed: int, count: int) -> Iterator[tuple[Track, dict[int, tuple[str, str]]]]:
    rng = random.Random(seed)
    for _ in range(count):
        b = random_board(rng, 1)
        track = track_from({int(s): st for s, st in b["track"].items()})
        yield track, {int(s): (t[0], t[1]) for s, t in b["tiles"].items()}


def sides(tiles: Tiles) -> dict[int, int]:
    return {space: SIDE_NAMES[side] for space, (_, side) in tiles.items()}


def direction(camel: str) -> int:
    return 1 if is_racing(camel) else -1


@pytest.mark.parametrize("seed", range(6))
def test_odds_py_moves_as_board_move(seed: int) -> None:
    for track, tiles in boards(seed, 60):
        board = odds_py.encode(places(track))
        for lone in (True, False):
            for camel in CAMELS:
                digit = str(CAMELS.index(camel))
                boards_: Counter[str] = Counter()
                ends: Counter[str] = Counter()
                hits: Counter[int] = Counter()
                for value in (1, 2, 3):
                    new, moved = move(track, tiles, camel, value, lone)
                    got = odds_py.step(board, digit, direction(camel), value, sides(tiles), lone)
                    hit = 0 if moved.tile is None else moved.tile[0]
                    if moved.space is None:
                        rank = "".join(
                            str(CAMELS.index(c)) for c in ranking(new, moved.unit, moved.crossed)
                        )
                        assert got == (None, rank, hit), (track, tiles, camel, value, lone)
                        ends[rank] += 1
                    else:
                        assert got == (odds_py.encode(places(new)), None, hit), (
                            track, tiles, camel, value, lone)
                        boards_[odds_py.encode(places(new))] += 1
                    if hit:
                        hits[hit] += 1
                # The solver's fast path moves all three values at once.
                counts = odds_py.LegCounts()
                target: dict[str, int] = {}
                leg = odds_py._Leg(sides(tiles), lone, counts)
                leg.moves(board, digit, direction(camel), 1, 1, target)
                assert target == dict(boards_), (track, tiles, camel, lone)
                assert counts.end_rankings == dict(ends), (track, tiles, camel, lone)
                assert counts.landings == dict(hits), (track, tiles, camel, lone)


@pytest.mark.parametrize("seed", range(6))
def test_odds_np_moves_as_board_move(seed: int) -> None:
    values = np.array([[1, 2, 3]], dtype=np.int16)
    for track, tiles in boards(100 + seed, 60):
        P = np.array([places(track)], dtype=np.int16)
        real = odds_npmove.tile_table(sides(tiles))
        # With tags, row q moves on table[tag[q]]: 0 has no tiles, 1 the board's.
        stacked = np.stack([odds_npmove.tile_table({}), real])
        for lone in (True, False):
            for camel in CAMELS:
                c = np.array([CAMELS.index(camel)], dtype=np.int16)
                d = np.array([direction(camel)], dtype=np.int16)
                for layout, got in (
                    (tiles, odds_npmove.move(P, c, d, values, real, lone)),
                    (tiles, odds_npmove.move(P, c, d, values, stacked, lone, np.array([1]))),
                    ({}, odds_npmove.move(P, c, d, values, stacked, lone, np.array([0]))),
                ):
                    ended = list(got.ended)
                    for v, value in enumerate((1, 2, 3)):
                        new, moved = move(track, layout, camel, value, lone)
                        where = (track, layout, camel, value, lone)
                        assert ended[v] == (moved.space is None), where
                        assert got.hit[v] == (moved.tile is not None), where
                        if moved.tile is not None:
                            assert got.hit_space[v] == moved.tile[0], where
                        if moved.space is None:
                            key = tuple(got.keys[sum(ended[:v])])
                            assert key == final_keys(new, moved), where
                        else:
                            assert tuple(got.places[v]) == places(new), where


@pytest.mark.parametrize("seed", range(4))
def test_every_solver_picks_the_crazy_camel_as_board(seed: int) -> None:
    tracks = [track for track, _ in boards(200 + seed, 150)]
    P = np.array([places(t) for t in tracks], dtype=np.int16)
    on_white, on_black = odds_npmove.select_crazy(P)
    Q = np.ascontiguousarray(P.T).astype(np.uint8)
    for shown, np_pick in ((CRAZY[0], on_white), (CRAZY[1], on_black)):
        black_shown = np.full(len(tracks), shown == CRAZY[1])
        sim_black = odds_sim._crazy_is_black(Q, black_shown)
        for q, track in enumerate(tracks):
            want = select_crazy(track, shown)
            digit = str(CAMELS.index(shown))
            assert CAMELS[int(odds_py.select_crazy(odds_py.encode(places(track)), digit))] == want
            assert CAMELS[int(np_pick[q])] == want, track
            assert (CRAZY[1] if sim_black[q] else CRAZY[0]) == want, track


def reference_races(
    tracks: list[Track], lone: bool, rng: np.random.Generator, max_legs: int = 1000
) -> np.ndarray:
    """The simulators' races played by ``board.move`` with the same draws
    (``leg_draws``: each leg, one code per running race, in race order)."""
    finals = np.full((len(tracks), len(CAMELS)), -1, dtype=np.int16)
    alive = list(range(len(tracks)))
    tracks = list(tracks)
    for _ in range(max_legs):
        if not alive:
            break
        order, faces = odds_sim.leg_draws(rng, len(alive))
        running = []
        for k, race in enumerate(alive):
            track = tracks[race]
            for step in range(GREY_DIE):
                die, face = int(order[step, k]), int(faces[step, k])
                if die == GREY_DIE:
                    camel = select_crazy(track, CRAZY[0] if face < 3 else CRAZY[1])
                else:
                    camel = RACING[die]
                track, moved = move(track, {}, camel, face % 3 + 1, lone)
                if moved.space is None:
                    finals[race] = final_keys(track, moved)
                    break
            else:
                running.append(race)
            tracks[race] = track
        alive = running
    return finals


@pytest.mark.parametrize("seed", range(4))
def test_simulators_play_the_races_board_move_plays(seed: int) -> None:
    # Simulated legs have no tiles (R29): every board starts bare.
    tracks = [track for track, _ in boards(300 + seed, 40)]
    P = np.array([places(t) for t in tracks], dtype=np.int16)
    for lone in (True, False):
        want = reference_races(tracks, lone, np.random.default_rng(seed))
        assert np.array_equal(odds_sim.simulate(P, lone, np.random.default_rng(seed)), want)
        assert np.array_equal(odds_np.simulate(P, lone, np.random.default_rng(seed)), want)


@pytest.mark.parametrize("seed", range(8))
def test_what_if_landings_are_board_move_landings(seed: int) -> None:
    rng = random.Random(400 + seed)
    board = random_board(rng, rng.choice([2, 3, 3, 4]))
    lone = seed % 2 == 0
    pos = odds.position(board, {"crazyLoneCrossingEndsGame": lone})
    taken = {int(s) for s in board["tiles"]}
    free = [
        s for s in range(2, 17)
        if not board["track"].get(s) and not taken & {s - 1, s, s + 1}
    ]
    targets = [(s, side) for s in free for side in (1, 2)]
    got = odds_whatif.landings(pos, targets)
    for (space, side), n in zip(targets, got, strict=True):
        tried = {**board, "tiles": {**board["tiles"], space: ["me", ("cheer", "boo")[side - 1]]}}
        _, landings, _ = oracle(tried, lone)
        assert n == landings.get(space, 0), (board, space, side, lone)
