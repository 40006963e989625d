"""The exact leg solver and the race simulator, vectorised with NumPy.

Same forward level-by-level enumeration as ``odds_py``, but a level is a
set of arrays: ``P[n, camel] = space * 8 + height``, the dice still in the
pyramid as a bit mask and the path count. One level's children (every state
x every die left x value 1-3, grey twice when R17(c) decides by colour) are
moved in one batch by ``odds_npmove.move``, then identical (board, dice left)
rows are merged by sorting a 62-bit key. The simulator moves thousands of
races at once the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import GREY_DIE, Position
from engines.camelup.odds_npmove import (
    N_CAMELS,
    N_DICE,
    N_RACING,
    VALUES,
    move,
    select_crazy,
    tile_table,
)
from engines.camelup.odds_sim import leg_draws

_DIE_BITS = np.arange(N_DICE, dtype=np.int16)
_MASKS = range(1 << N_DICE)
_BIT_COUNT = np.array([m.bit_count() for m in _MASKS])
#: ``_SET_BITS[k][mask]``: the dice in a ``mask`` of ``k`` dice, ascending.
_SET_BITS = [
    np.array([([d for d in range(N_DICE) if m >> d & 1] + [0] * k)[:k] for m in _MASKS])
    for k in range(N_DICE + 1)
]


def board_keys(P: np.ndarray, M: np.ndarray) -> np.ndarray:
    """One 64-bit key per (board, dice left) row: the seven places (8..134
    on the track) and the dice mask, one byte each."""
    packed = np.empty((len(P), N_CAMELS + 1), dtype=np.uint8)
    packed[:, :N_CAMELS] = P
    packed[:, N_CAMELS] = M
    keys: np.ndarray = packed.view(np.uint64).ravel()
    return keys


def _rank_table() -> np.ndarray:
    # Row ``code`` of this table is the (camel, rank) one-hot of the ranking
    # whose pairwise comparisons ``key[a] > key[b]`` (a < b) are the bits of code.
    table = np.zeros((1 << len(_PAIRS), N_RACING * N_RACING))
    for code in range(1 << len(_PAIRS)):
        rank = [0] * N_RACING
        for bit, (a, b) in enumerate(_PAIRS):
            if code >> bit & 1:
                rank[b] += 1
            else:
                rank[a] += 1
        if sorted(rank) == list(range(N_RACING)):
            for camel, place in enumerate(rank):
                table[code, camel * N_RACING + place] = 1
    return table


_PAIRS = [(a, b) for a in range(N_RACING) for b in range(a + 1, N_RACING)]
_PAIR_A = np.array([a for a, _ in _PAIRS])
_PAIR_B = np.array([b for _, b in _PAIRS])
_RANK_TABLE = _rank_table()
_PAIR_BITS = (1 << np.arange(len(_PAIRS), dtype=np.int16))[:, None]


def rank_counts(keys: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Sum of ``weights`` per (camel, rank), rank 0 = leader (R30).

    Each row's ranking is identified by its 10 pairwise comparisons, so the
    rows are binned once and the bins mapped to ranks by a fixed table."""
    # Camel-major: ten comparisons of long rows, then their bits OR-ed into
    # one code (fancy column indexing of the row-major keys was 3x slower).
    racers = np.ascontiguousarray(keys[:, :N_RACING].T)
    greater = racers[_PAIR_A] > racers[_PAIR_B]
    code = np.bitwise_or.reduce(greater * _PAIR_BITS, axis=0)
    per_code = np.bincount(code, weights=weights, minlength=len(_RANK_TABLE))
    # The stubs type a matrix product as Any.
    counts: np.ndarray = (per_code @ _RANK_TABLE).reshape(N_RACING, N_RACING)
    return counts


def groups(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows with equal ``key`` side by side: ``(order, starts)``, the rows in
    key order and where each group of equal keys starts in it. Any order of
    equal keys will do (their weights are whole numbers in floats, summed
    exactly either way), so a plain argsort: several times faster than the
    stable sort of ``np.unique`` or ``np.lexsort``."""
    order = np.argsort(key)
    ordered = key[order]
    start = np.ones(len(order), dtype=bool)
    start[1:] = ordered[1:] != ordered[:-1]
    return order, np.flatnonzero(start)


@dataclass
class NpCounts:
    """Raw solver output, counts out of ``Position.denominator`` (floats that
    hold exact integers: every partial sum stays far below 2**53)."""

    ranks: np.ndarray = field(default_factory=lambda: np.zeros((N_RACING, N_RACING)))
    #: The part of ``ranks`` from outcomes that end the race.
    end_ranks: np.ndarray = field(default_factory=lambda: np.zeros((N_RACING, N_RACING)))
    landings: np.ndarray = field(default_factory=lambda: np.zeros(SPACES + 1))
    ended: float = 0.0
    #: Leg-end boards of races still running, and their counts.
    boards: np.ndarray = field(default_factory=lambda: np.zeros((0, N_CAMELS), dtype=np.int16))
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))


def _children(
    P: np.ndarray, M: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (row, die, camel, face weight) a roll can give, grey split by
    colour only where R17(c) makes the colour matter."""
    counts = _BIT_COUNT[M]
    k = int(counts[0]) if len(M) else 0
    if (counts == k).all():
        # Every row of a level has the same number of dice left: a table
        # lists them, in the order np.nonzero would.
        rows = np.repeat(np.arange(len(M)), k)
        dies = _SET_BITS[k][M].ravel()
    else:
        rows, dies = np.nonzero((M[:, None] >> _DIE_BITS) & 1)
    cam = dies.astype(np.int16)
    fac = np.full(len(rows), 2.0)
    g = np.flatnonzero(dies == GREY_DIE)
    if len(g):
        g_rows = rows[g]
        on_white, on_black = select_crazy(P[g_rows])
        cam[g] = on_white
        split = on_white != on_black
        fac[g[split]] = 1.0
        extra = g_rows[split]
        rows = np.concatenate([rows, extra])
        dies = np.concatenate([dies, np.full(len(extra), GREY_DIE)])
        cam = np.concatenate([cam, on_black[split].astype(np.int16)])
        fac = np.concatenate([fac, np.ones(len(extra))])
    return rows, dies, cam, fac


def leg_root(position: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The leg's one starting row: places ``P``, dice left ``M`` (a bit per
    die) and weight ``W``."""
    P = np.array([position.places], dtype=np.int16)
    M = np.array([sum(1 << d for d in position.dice)], dtype=np.int16)
    # Float weights; the stubs give bincount(weights=...) an integer dtype.
    W: np.ndarray = np.ones(1)
    return P, M, W


def roll(
    P: np.ndarray, M: np.ndarray, W: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One roll from every row: ``_children``'s rows, dice and camels, each
    die's direction (grey backwards) and each child's weight per face value
    (rows of ``len(VALUES)``, as ``move`` lays them out)."""
    rows, dies, cam, fac = _children(P, M)
    d = np.where(dies == GREY_DIE, -1, 1).astype(np.int16)
    return rows, dies, cam, d, np.repeat(W[rows] * fac, len(VALUES))


def solve(position: Position, ranks: bool = True, boards: bool = False) -> NpCounts:
    """All leg outcomes of ``position`` (see ``odds_py.solve``)."""
    table = tile_table({space: side for space, (side, _) in position.tiles.items()})
    lone = position.lone_crossing_ends
    out = NpCounts()
    P, M, W = leg_root(position)
    for rolled in range(1, position.rolls + 1):
        mult = position.multiplier(rolled)
        rows, dies, cam, d, Wc = roll(P, M, W)
        moved = move(P[rows], cam, d, VALUES[None, :], table, lone)
        if moved.hit.any():
            out.landings += np.bincount(
                moved.hit_space[moved.hit], weights=Wc[moved.hit] * mult, minlength=SPACES + 1
            )
        going = ~moved.ended
        if not going.all():
            w_end = Wc[moved.ended] * mult
            out.ended += float(w_end.sum())
            if ranks:
                out.end_ranks += rank_counts(moved.keys, w_end)
        P = moved.places[going]
        W = Wc[going]
        if rolled < position.rolls:
            M = np.repeat(M[rows] & ~(np.int16(1) << dies.astype(np.int16)), len(VALUES))[going]
            order, starts = groups(board_keys(P, M))
            W = np.add.reduceat(W[order], starts)
            heads = order[starts]
            P, M = P[heads], M[heads]
    out.ranks += out.end_ranks
    if ranks and len(P):
        out.ranks += rank_counts(P, W)
    if boards:
        out.boards, out.weights = P, W
    return out


def simulate(
    P: np.ndarray, lone_ends: bool, rng: np.random.Generator, max_legs: int = 1000
) -> np.ndarray:
    """Plays every row of ``P`` to the race's end with fresh legs and no tiles
    (R29); returns the final ranking keys per race (rows of -1 for races
    still running after ``max_legs`` legs)."""
    n = len(P)
    finals = np.full((n, N_CAMELS), -1, dtype=np.int16)
    alive = np.arange(n)
    P = P.copy()
    table = tile_table({})
    for _ in range(max_legs):
        if not len(alive):
            break
        # The lean simulator (odds_sim) draws the same numbers: same races.
        order, faces = leg_draws(rng, len(alive))
        for step in range(N_DICE - 1):
            die = order[step]
            face = faces[step]
            on_white, on_black = select_crazy(P)
            cam = np.where(die == GREY_DIE, np.where(face < 3, on_white, on_black), die).astype(
                np.int16
            )
            d = np.where(die == GREY_DIE, -1, 1).astype(np.int16)
            moved = move(P, cam, d, (face % 3 + 1).astype(np.int16)[:, None], table, lone_ends)
            going = ~moved.ended
            finals[alive[moved.ended]] = moved.keys
            alive, P = alive[going], moved.places[going]
            order, faces = order[:, going], faces[:, going]
            if not len(alive):
                break
    return finals
