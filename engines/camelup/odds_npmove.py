"""Camel movement (R14-R25) on NumPy place arrays, many moves in one batch.

A board is a row ``P[row, camel] = space * 8 + height`` (``odds_board.SLOT``):
``move`` moves one camel of every row by every value asked, carrying what is
above it, with the tiles' cheer and boo, the lone crazy unit's wrap-around
(CU-1 off) and the race's end; ``select_crazy`` is R17's choice of the crazy
camel. The exact leg solver and the race simulator (``odds_np``) and the tile
what-ifs (``odds_whatif``) move through it; ``tests/engines/camelup/test_movement.py``
holds it to ``board.move`` move by move.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import BLACK, BOO, CHEER, FORWARD_PROGRESS, SLOT, WHITE

N_RACING = 5
N_CAMELS = 7
N_DICE = 6
#: Tile-kind lookup is indexed by destination + PAD; moves reach -3..20.
PAD = 8
#: A die's face values, the columns of ``move``'s results.
VALUES = np.array([1, 2, 3], dtype=np.int16)


def tile_table(tiles: dict[int, int]) -> np.ndarray:
    """Kind (0, CHEER, BOO) per destination + PAD."""
    table = np.zeros(SPACES + 2 * PAD + 1, dtype=np.int8)
    for space, side in tiles.items():
        table[space + PAD] = side
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
        kind = table.take(dest + PAD)
    else:
        # One flat lookup: far cheaper than two-dimensional fancy indexing.
        kind = table.ravel().take(tag[:, None] * table.shape[1] + (dest + PAD))
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
