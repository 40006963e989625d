"""The race simulator of the race estimate, lean enough for every analysis.

It plays races exactly like ``odds_np.simulate`` (which stays as the
reference the tests compare it with) and draws the same random numbers in
the same order, so one seed gives the same races, move for move. It is
faster because a simulated move has no spectator tiles (R29) and one value,
so most of the general ``odds_np.move`` falls away:

- boards are stored camel-major, ``Q[camel, race]``, so every operation runs
  over long contiguous rows;
- a unit is ``Q[c] <= place <= Q[c] | 7`` (heights never reach 7), and the
  camels already on the destination are the ones whose ``place >> 3`` is the
  destination (the unit is never on it), so a move is a handful of array
  operations;
- R17 picks the crazy camel only for the races that rolled the grey die;
- the die order of a leg comes from ranking the leg's six uniform draws with
  15 comparisons instead of a per-race ``argsort`` (the same order: float
  ties have probability nil);
- finished races are dropped one contiguous row at a time.
"""

from __future__ import annotations

import numpy as np

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import BLACK, FORWARD_PROGRESS, GREY_DIE, SLOT, WHITE

N_RACING = 5
N_CAMELS = 7
N_DICE = 6
_PAIRS = [(a, b) for a in range(N_DICE) for b in range(a + 1, N_DICE)]


def _leg_ranks(draws: np.ndarray) -> np.ndarray:
    """``rank[die, race]``: the step at which ``die`` is rolled in each
    race's leg, i.e. the inverse of ``argsort(draws, axis=1)`` (draws shaped
    (races, 6)): how many of the six draws are smaller than the die's own."""
    cols = np.ascontiguousarray(draws.T)
    rank = np.zeros((N_DICE, cols.shape[1]), dtype=np.int8)
    for a, b in _PAIRS:
        later = cols[a] > cols[b]
        # In place and int8: a bool-to-int64 add is a slow casting loop.
        np.add(rank[a], later, out=rank[a], casting="unsafe")
        np.add(rank[b], ~later, out=rank[b], casting="unsafe")
    return rank


def _order(rank: np.ndarray) -> np.ndarray:
    """``order[step, race]``: the die rolled at ``step`` (the inverse of ``rank``)."""
    n = rank.shape[1]
    order = np.empty(N_DICE * n, dtype=np.int8)
    order[(rank.astype(np.intp) * n + np.arange(n)).ravel()] = np.repeat(
        np.arange(N_DICE, dtype=np.int8), n
    )
    return order.reshape(N_DICE, n)[: N_DICE - 1]


def _keep(rows: np.ndarray, going: np.ndarray) -> np.ndarray:
    """``rows[:, going]``, one contiguous row at a time (far faster than a
    two-dimensional boolean index)."""
    out = np.empty((len(rows), int(going.sum())), dtype=rows.dtype)
    for k in range(len(rows)):
        out[k] = rows[k][going]
    return out


def _crazy(Q: np.ndarray, shows_white: np.ndarray) -> np.ndarray:
    """R17: the crazy camel (column) the grey die moves in each race of ``Q``
    (camel-major) when its colour is white (``shows_white``) or black."""
    pw, pk = Q[WHITE], Q[BLACK]
    tw, tk = pw | 7, pk | 7
    white = np.zeros(len(pw), dtype=bool)
    black = np.zeros(len(pw), dtype=bool)
    for racer in Q[:N_RACING]:
        white |= (racer > pw) & (racer <= tw)
        black |= (racer > pk) & (racer <= tk)
    # One crazy camel right on the other: the upper one moves (R17 a).
    stacked = np.abs(pw - pk) == 1
    upper = np.where(pw > pk, WHITE, BLACK)
    shown = np.where(shows_white, WHITE, BLACK)
    return np.where(stacked, upper, np.where(white != black, np.where(white, WHITE, BLACK), shown))


def simulate(
    P: np.ndarray, lone_ends: bool, rng: np.random.Generator, max_legs: int = 1000
) -> np.ndarray:
    """Plays every row of ``P`` (race-major, as ``odds_np.simulate`` takes
    it) to the race's end with fresh legs and no tiles; returns the same
    final ranking keys (rows of -1 for races still running after
    ``max_legs`` legs)."""
    n = len(P)
    finals = np.full((n, N_CAMELS), -1, dtype=np.int16)
    alive = np.arange(n)
    Q = np.ascontiguousarray(P.T, dtype=np.int16)
    for _ in range(max_legs):
        if not len(alive):
            break
        order = _order(_leg_ranks(rng.random((len(alive), N_DICE))))
        for step in range(N_DICE - 1):
            m = len(alive)
            face = rng.integers(0, 6, m)
            cam = order[step].astype(np.intp)
            grey = cam == GREY_DIE
            g = np.flatnonzero(grey)
            if len(g):
                cam[g] = _crazy(np.stack([row.take(g) for row in Q]), face[g] < 3)
            pc = Q.ravel().take(cam * m + np.arange(m))
            top = pc | 7
            unit = (Q >= pc) & (Q <= top)
            value = (face % 3 + 1).astype(np.int16)
            start = pc >> 3
            dest = np.where(grey, start - value, start + value)
            out = (dest < 1) | (dest > SPACES)
            if lone_ends:
                ended = out
            else:
                # R20 with the flag off: a lone crazy unit wraps around.
                carries = unit[:N_RACING].any(0)
                ended = out & carries
                wrap = out & ~carries
                dest = np.where(wrap, np.where(dest < 1, dest + SPACES, dest - SPACES), dest)
            lift = ((Q >> 3) == dest).sum(0, dtype=np.int16)
            shift = dest * SLOT + lift - pc
            if ended.any():
                e = np.flatnonzero(ended)
                # R30: a unit over the line has progress 17 (forward) or 0 (backward).
                progress = np.where(dest[e] > SPACES, FORWARD_PROGRESS, 0) * SLOT
                keys = np.where(unit[:, e], progress + Q[:, e] - pc[e], Q[:, e])
                finals[alive[e]] = keys.T
                going = ~ended
                alive = alive[going]
                Q = _keep(Q + unit * shift, going)
                order = _keep(order, going)
                if not len(alive):
                    break
            else:
                Q = Q + unit * shift
    return finals
