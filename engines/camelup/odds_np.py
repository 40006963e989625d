"""The exact leg solver and the race simulator, vectorised with NumPy.

Same forward level-by-level enumeration as ``odds_py``, but a level is a
set of arrays: ``P[n, camel] = space * 8 + height``, the dice still in the
pyramid as a bit mask and the path count. One level's children (every state
x every die left x value 1-3, grey twice when R17(c) decides by colour) are
moved in one batch of array operations, then identical (board, dice left)
rows are merged by sorting a 62-bit key. The simulator moves thousands of
races at once the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import (
    BLACK,
    BOO,
    CHEER,
    FORWARD_PROGRESS,
    GREY_DIE,
    SLOT,
    WHITE,
    Position,
)
from engines.camelup.odds_sim import leg_draws

N_RACING = 5
N_CAMELS = 7
N_DICE = 6
#: Tile-kind lookup is indexed by destination + _PAD; moves reach -3..20.
_PAD = 8
_VALUES = np.array([1, 2, 3], dtype=np.int16)
_DIE_BITS = np.arange(N_DICE, dtype=np.int16)
_MASKS = range(1 << N_DICE)
_BIT_COUNT = np.array([m.bit_count() for m in _MASKS])
#: ``_SET_BITS[k][mask]``: the dice in a ``mask`` of ``k`` dice, ascending.
_SET_BITS = [
    np.array([([d for d in range(N_DICE) if m >> d & 1] + [0] * k)[:k] for m in _MASKS])
    for k in range(N_DICE + 1)
]


def tile_table(tiles: dict[int, int]) -> np.ndarray:
    """Kind (0, CHEER, BOO) per destination + _PAD."""
    table = np.zeros(SPACES + 2 * _PAD + 1, dtype=np.int8)
    for space, side in tiles.items():
        table[space + _PAD] = side
    return table


def select_crazy(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R17 per row: the crazy camel (column) the grey die moves when it shows
    white, and when it shows black."""
    # Camel-major inside: long inner loops.
    Pt = np.ascontiguousarray(P.T)
    pw, pk = Pt[WHITE], Pt[BLACK]
    sw, sk = pw >> 3, pk >> 3
    stacked = (sw == sk) & (np.abs(pw - pk) == 1)
    upper = np.where(pw > pk, WHITE, BLACK)
    racers = Pt[:N_RACING]
    rs = racers >> 3
    white = ((rs == sw) & (racers > pw)).any(0)
    black = ((rs == sk) & (racers > pk)).any(0)
    carrier = np.where(white, WHITE, BLACK)
    one = white != black
    on_white = np.where(stacked, upper, np.where(one, carrier, WHITE))
    on_black = np.where(stacked, upper, np.where(one, carrier, BLACK))
    return on_white, on_black


def board_keys(P: np.ndarray, M: np.ndarray) -> np.ndarray:
    """One 64-bit key per (board, dice left) row: the seven places (8..134
    on the track) and the dice mask, one byte each."""
    packed = np.empty((len(P), N_CAMELS + 1), dtype=np.uint8)
    packed[:, :N_CAMELS] = P
    packed[:, N_CAMELS] = M
    keys: np.ndarray = packed.view(np.uint64).ravel()
    return keys


@dataclass
class Moved:
    """One batch of moves: new places, which rows ended the race (with their
    ranking keys) and where tiles were hit."""

    places: np.ndarray
    ended: np.ndarray
    keys: np.ndarray
    hit: np.ndarray
    hit_space: np.ndarray


def move(
    Pc: np.ndarray,
    cam: np.ndarray,
    d: np.ndarray,
    val: np.ndarray,
    table: np.ndarray,
    lone_ends: bool,
    tag: np.ndarray | None = None,
) -> Moved:
    """R14-R25: in row q of ``Pc``, camel column ``cam[q]`` moves ``val[q, v]``
    spaces in direction ``d[q]`` carrying everything above it. ``val`` has
    shape (rows or 1, V); the results have one row per (q, v), q-major.
    With ``tag``, ``table`` holds one tile table per tag and row q uses
    ``table[tag[q]]`` (the what-ifs solve many tile layouts in one batch).

    Everything that does not depend on the value (the unit, heights inside
    it) is computed once per row and broadcast over the V values. The work
    per camel runs camel-major, ``[camel, value, row]``: long inner loops
    instead of seven-element ones, several times faster in NumPy."""
    V = val.shape[1]
    rows = np.arange(len(Pc))
    pc = Pc[rows, cam]
    sc = pc >> 3
    Pt = np.ascontiguousarray(Pc.T)
    S = Pt >> 3
    unit = (S == sc) & (Pt >= pc)
    has_racer = unit[:N_RACING].any(0)[:, None]
    dest = sc[:, None] + d[:, None] * val
    out = (dest < 1) | (dest > SPACES)
    if lone_ends:
        end1 = out
    else:
        # R20 with the flag off: a lone crazy unit wraps around.
        end1 = out & has_racer
        dest = np.where(out & ~has_racer, np.where(dest < 1, dest + SPACES, dest - SPACES), dest)
    if tag is None:
        kind = table.take(dest + _PAD)
    else:
        # One flat lookup: far cheaper than two-dimensional fancy indexing.
        kind = table.ravel().take(tag[:, None] * table.shape[1] + (dest + _PAD))
    kind[end1] = 0
    hit = kind > 0
    dest2 = dest + d[:, None] * ((kind == CHEER).astype(np.int16) - (kind == BOO))
    bottom = kind == BOO
    out2 = ~end1 & ((dest2 < 1) | (dest2 > SPACES))
    if lone_ends:
        end2 = out2
    else:
        end2 = out2 & has_racer
        dest2 = np.where(
            out2 & ~has_racer, np.where(dest2 < 1, dest2 + SPACES, dest2 - SPACES), dest2
        )
    ended = end1 | end2
    landing = np.ascontiguousarray(dest2.T)
    at_dest = (S[:, None, :] == landing) & ~unit[:, None, :]
    lift = at_dest.sum(0, dtype=np.int16)
    booed = np.flatnonzero(bottom.T)
    if len(booed):
        # R23 booing: the unit goes underneath (no lift) ...
        lift.ravel()[booed] = 0
    # A unit moves as one: each of its camels by the same number of places.
    moved = unit[:, None, :] * ((landing - sc) * SLOT + lift - (pc & 7))
    moved += Pt[:, None, :]
    if 16 * len(booed) > bottom.size:
        # ... and the camels there move up by its size: over the whole batch
        # when many moves boo (the what-ifs' booing tiles), ...
        moved += at_dest * (bottom.T * unit.sum(0, dtype=np.int16))
    elif len(booed):
        # ... else only for the moves that boo.
        bv, bq = booed // len(Pc), booed % len(Pc)
        size = unit[:, bq].sum(0, dtype=np.int16)
        moved[:, bv, bq] += at_dest[:, bv, bq] * size
    places = moved.transpose(2, 1, 0).reshape(-1, N_CAMELS)
    ended = ended.ravel()
    keys = np.zeros((0, N_CAMELS), dtype=np.int16)
    if ended.any():
        # R30: a unit over the line has progress 17 (forward) or 0 (backward).
        source = np.flatnonzero(ended) // V
        crossed = np.where(end1, dest, dest2).ravel()[ended]
        progress = np.where(crossed > SPACES, FORWARD_PROGRESS, 0) * SLOT
        rel = (Pt[:, source] & 7) - (pc[source] & 7)
        keys = np.where(unit[:, source], progress + rel, Pt[:, source]).T
    return Moved(places, ended, keys, hit.ravel(), dest.ravel())


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


def _leg_root(position: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The leg's one starting row: places ``P``, dice left ``M`` (a bit per
    die) and weight ``W``."""
    P = np.array([position.places], dtype=np.int16)
    M = np.array([sum(1 << d for d in position.dice)], dtype=np.int16)
    # Float weights; the stubs give bincount(weights=...) an integer dtype.
    W: np.ndarray = np.ones(1)
    return P, M, W


def _roll(
    P: np.ndarray, M: np.ndarray, W: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One roll from every row: ``_children``'s rows, dice and camels, each
    die's direction (grey backwards) and each child's weight per face value
    (rows of ``len(_VALUES)``, as ``move`` lays them out)."""
    rows, dies, cam, fac = _children(P, M)
    d = np.where(dies == GREY_DIE, -1, 1).astype(np.int16)
    return rows, dies, cam, d, np.repeat(W[rows] * fac, len(_VALUES))


def solve(position: Position, ranks: bool = True, boards: bool = False) -> NpCounts:
    """All leg outcomes of ``position`` (see ``odds_py.solve``)."""
    table = tile_table({space: side for space, (side, _) in position.tiles.items()})
    lone = position.lone_crossing_ends
    out = NpCounts()
    P, M, W = _leg_root(position)
    for rolled in range(1, position.rolls + 1):
        mult = position.multiplier(rolled)
        rows, dies, cam, d, Wc = _roll(P, M, W)
        moved = move(P[rows], cam, d, _VALUES[None, :], table, lone)
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
            M = np.repeat(M[rows] & ~(np.int16(1) << dies.astype(np.int16)), len(_VALUES))[going]
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
