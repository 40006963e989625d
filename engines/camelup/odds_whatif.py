"""Every spectator-tile what-if of a position in one NumPy pass.

Trying a tile on space ``s`` changes nothing until a move first lands on
``s``: up to then the leg runs exactly as without it. So one enumeration
carries two kinds of rows, merged level by level like ``odds_np.solve``:

- **shared** rows (tag 0) move with the tiles already on the board and
  remember, as a bit mask, which candidate spaces their path has landed on.
  A shared row stands for every what-if whose space is not in its mask;
- **diverged** rows (tag ``j``) belong to what-if ``j`` alone and move with
  its tile added. A shared move that first lands on candidate ``s`` counts one
  landing for each what-if on ``s`` and forks into one diverged child per
  what-if there (cheering or booing), while the shared child goes on with
  ``s`` in its mask.

The last roll builds no boards at all: only where each move lands matters.
The counts are the same integers as one ``odds_np.solve`` per placement (the
tests check it on random positions); ``docs/performance.md`` has timings.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import BOO, CHEER, GREY_DIE, WHITE, Position
from engines.camelup.odds_np import board_keys, groups, leg_root, roll
from engines.camelup.odds_npmove import (
    N_CAMELS,
    N_DICE,
    N_RACING,
    PAD,
    VALUES,
    move,
    select_crazy,
    tile_table,
)

_SIDES = (CHEER, BOO)
_SPACE_SHIFTS = (4 * np.arange(N_CAMELS, dtype=np.int32))[:, None]
#: A row's tag (< 32: at most 15 spaces x 2 sides) and mask (< 2**15) in one key.
_SIDE_BITS = 21


def _dests(
    P: np.ndarray, rows: np.ndarray, cam: np.ndarray, d: np.ndarray, lone_ends: bool
) -> np.ndarray:
    """Where each (row ``rows[q]`` of ``P``, value 1-3) move lands before any
    tile acts (the space that earns a tile its coin, R23), wrapped for a lone
    crazy unit when CU-1 is off; off-track values stay off the track."""
    # Only the moving camel's place matters, unless a unit may wrap.
    pc = P[rows, cam]
    sc = pc >> 3
    dest = sc[:, None] + d[:, None] * VALUES[None, :]
    if not lone_ends:
        Pc = P[rows]
        S = Pc >> 3
        unit = (S == sc[:, None]) & (Pc >= pc[:, None])
        lone = ~unit[:, :N_RACING].any(1)[:, None]
        out = (dest < 1) | (dest > SPACES)
        dest = np.where(out & lone, np.where(dest < 1, dest + SPACES, dest - SPACES), dest)
    # The stubs type an int16 broadcast sum as Any.
    landed: np.ndarray = dest
    return landed


def _last_roll_keys(P: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Before the last roll only where each camel stands matters, not the
    stacking (the roll's landings are where a die's camel lands), plus the
    crazy camel the grey die would move either way (R17, ``_children``): a
    key of the spaces (4 bits each), the dice left and those two choices.
    Boards equal in it give the same landings, so they merge too. Not with
    CU-1 off: there whether a lone crazy unit wraps depends on the stack."""
    # Camel-major, in int32 (7 x 4 bits fit), one reduction: an integer
    # matrix product has no BLAS behind it and was most of this function.
    spaces = (np.ascontiguousarray(P.T) >> 3).astype(np.int32) - 1
    spaces <<= _SPACE_SHIFTS
    key: np.ndarray = np.bitwise_or.reduce(spaces, axis=0).astype(np.int64)
    key |= M.astype(np.int64) << (4 * N_CAMELS)
    grey = np.flatnonzero((M >> GREY_DIE) & 1)
    if len(grey):
        on_white, on_black = select_crazy(P[grey])
        crazy = (on_white - WHITE) | (on_black - WHITE) << 1
        key[grey] |= crazy.astype(np.int64) << (4 * N_CAMELS + N_DICE)
    return key


def landings(pos: Position, targets: Sequence[tuple[int, int]]) -> list[int]:
    """Expected landings x denominator on the new tile, one per ``(space,
    CHEER | BOO)`` in ``targets``, each as if that tile alone were added to
    ``pos.tiles`` (none of which may be on or next to a target space)."""
    if not targets or pos.rolls < 1:
        return [0] * len(targets)
    spaces = sorted({s for s, _ in targets})
    bit_of = np.zeros(SPACES + 2 * PAD + 1, dtype=np.int32)
    # Per candidate space: the tag (1-based what-if) of each side, 0 if absent.
    tag_at = np.zeros((len(_SIDES), SPACES + 2 * PAD + 1), dtype=np.int16)
    for i, s in enumerate(spaces):
        bit_of[s + PAD] = 1 << i
    base = {space: side for space, (side, _) in pos.tiles.items()}
    tables = [tile_table(base)]
    space_of = [0]
    for j, (s, side) in enumerate(targets, start=1):
        tables.append(tile_table({**base, s: side}))
        space_of.append(s)
        tag_at[_SIDES.index(side), s + PAD] = j
    table = np.stack(tables)
    own = np.array(space_of, dtype=np.int16)
    lone = pos.lone_crossing_ends
    # Landings per tag (diverged rows) and per candidate space (first landings).
    per_tag = np.zeros(len(targets) + 1)
    first = np.zeros(SPACES + 2 * PAD + 1)

    P, M, W = leg_root(pos)
    G = np.zeros(1, dtype=np.int16)
    L = np.zeros(1, dtype=np.int32)
    for rolled in range(1, pos.rolls + 1):
        mult = pos.multiplier(rolled)
        rows, dies, cam, d, Wc = roll(P, M, W)
        Gc = np.repeat(G[rows], len(VALUES))
        Lc = np.repeat(L[rows], len(VALUES))
        last = rolled == pos.rolls
        if last:
            dest = _dests(P, rows, cam, d, lone).ravel()
        else:
            moved = move(P[rows], cam, d, VALUES[None, :], table, lone, G[rows])
            dest = moved.hit_space
        safe = np.clip(dest, -PAD, SPACES + PAD) + PAD
        # A diverged row earns a landing on its own tile's space.
        mine = (Gc > 0) & (dest == own[Gc])
        per_tag += np.bincount(Gc[mine], weights=Wc[mine] * mult, minlength=len(per_tag))
        # A shared row's first landing on a candidate space.
        new = (Gc == 0) & ((bit_of[safe] & ~Lc) != 0)
        if new.any():
            first += np.bincount(safe[new], weights=Wc[new] * mult, minlength=len(first))
        if last:
            break
        Mc = np.repeat(M[rows] & ~(np.int16(1) << dies.astype(np.int16)), len(VALUES))
        Lc = Lc | np.where(new, bit_of[safe], 0)
        going = ~moved.ended
        parts_P, parts_M, parts_G, parts_L, parts_W = (
            [moved.places[going]],
            [Mc[going]],
            [Gc[going]],
            [Lc[going]],
            [Wc[going]],
        )
        fork = np.flatnonzero(new)
        for side in range(len(_SIDES)):
            tags = tag_at[side, safe[fork]]
            sel = fork[tags > 0]
            if not len(sel):
                continue
            q, v = sel // len(VALUES), sel % len(VALUES)
            forked = move(
                P[rows[q]], cam[q], d[q], VALUES[v][:, None], table, lone, tags[tags > 0]
            )
            ok = ~forked.ended
            parts_P.append(forked.places[ok])
            parts_M.append(Mc[sel][ok])
            parts_G.append(tags[tags > 0][ok])
            parts_L.append(np.zeros(int(ok.sum()), dtype=np.int32))
            parts_W.append(Wc[sel][ok])
        P = np.concatenate(parts_P)
        M = np.concatenate(parts_M)
        G = np.concatenate(parts_G)
        L = np.concatenate(parts_L)
        W = np.concatenate(parts_W)
        # Merge identical (board, dice left, tag, mask) rows.
        if lone and rolled == pos.rolls - 1:
            board_no = _last_roll_keys(P, M)
        else:
            # Two keys do not fit one int64: number the boards first (one
            # argsort), then group (board number, tag, mask) with another.
            order, starts = groups(board_keys(P, M))
            board_no = np.zeros(len(order), dtype=np.int64)
            board_no[starts[1:]] = 1
            board_no[order] = np.cumsum(board_no)
        order, starts = groups((board_no << _SIDE_BITS) | (G.astype(np.int64) << 16) | L)
        heads = order[starts]
        W = np.add.reduceat(W[order], starts)
        P, M, G, L = P[heads], M[heads], G[heads], L[heads]
    out = []
    for j, (s, _) in enumerate(targets, start=1):
        out.append(int(round(per_tag[j] + first[s + PAD])))
    return out
