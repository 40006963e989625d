"""The race simulator of the race estimate, lean enough for every analysis.

It plays races exactly like ``odds_np.simulate`` (which stays as the
reference the tests compare it with): both take their random numbers from
``leg_draws``, so one seed gives the same races, move for move. It is faster
because a simulated move has no spectator tiles (R29) and one value, so most
of the general ``odds_np.move`` falls away:

- boards are stored camel-major and as bytes, ``Q[camel, race]``, so every
  operation runs over long contiguous uint8 rows; a unit is
  ``0 <= Q[c] - place <= 7 - height`` in wrap-around arithmetic (one
  subtraction and one comparison), and the camels already on the destination
  are ``Q[c] - 8 * destination < 8`` (the unit is never on it);
- one bounded draw per race and leg gives the leg's die order and all five
  faces through two lookup tables, and everything that depends only on them
  (which camel row, how far and which way) is worked out once per leg;
- R17 picks the crazy camel only for the races that rolled the grey die;
- a unit that crosses the line lands on progress 0 or 17 like any move (a
  lookup table gives its place), so the finished board is the final ranking
  (R30); the race's column then stands still until the leg ends, and
  columns are dropped once per leg, not after every move.
"""

from __future__ import annotations

from itertools import permutations, product

import numpy as np

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import FORWARD_PROGRESS, GREY_DIE, SLOT, WHITE

N_RACING = 5
N_CAMELS = 7
N_DICE = 6
#: Every order of the six dice (first five steps, one column each) and every
#: five faces of a leg, as lookup tables for ``leg_draws``.
_ORDERS = np.array(list(permutations(range(N_DICE))), dtype=np.int8)[:, : N_DICE - 1].T.copy()
#: Destinations are stored plus _PAD (moves reach -2..19) to index these:
#: the place of a unit's bottom camel landing there with nobody under it
#: (progress 0 or 17 over the line, R30) and whether that ends the race.
_PAD = 8
_DEST = np.arange(-_PAD, SPACES + 2 * _PAD)
_BASE = (np.clip(_DEST, 0, FORWARD_PROGRESS) * SLOT).astype(np.uint8)
_OFF = (_DEST < 1) | (_DEST > SPACES)
#: place -> 7 - height (modulo 256: a unit is 0 <= Q - place <= 7 - height).
_ABOVE = (7 - np.arange(256) % SLOT).astype(np.uint8)
#: ``white - black`` (uint8) -> one crazy camel right on the other.
_STACKED = np.isin(np.arange(256), (1, 255))
#: A face's value (R13): 1, 2, 3, 1, 2, 3.
_VALUE = np.array([1, 2, 3, 1, 2, 3], dtype=np.int8)
_FACES = np.array(list(product(range(6), repeat=N_DICE - 1)), dtype=np.uint8)[:, ::-1].T.copy()


def leg_draws(rng: np.random.Generator, races: int) -> tuple[np.ndarray, np.ndarray]:
    """One leg's randomness for ``races`` races, as ``(order, faces)``, both
    shaped (5, races): the die rolled at each step (a uniform random order
    of the six dice, R12: the sixth stays in the pyramid) and the face it
    shows (0-5: value ``face % 3 + 1``; for the grey die, white when below 3).

    One bounded draw per race covers the whole leg: its remainder by 720 is
    the order, its quotient the five faces in base 6 (both uniform and
    independent, as ``5598720 = 720 * 6**5``). It is the one random stream of
    both simulators, so they play the same races."""
    code = rng.integers(0, _ORDERS.shape[1] * _FACES.shape[1], races, dtype=np.int32)
    faces, order = np.divmod(code, _ORDERS.shape[1])
    return _ORDERS.take(order, axis=1), _FACES.take(faces, axis=1)


def _keep(rows: np.ndarray, going: np.ndarray) -> np.ndarray:
    """``rows[:, going]``, one contiguous row at a time (far faster than a
    two-dimensional boolean index)."""
    out = np.empty((len(rows), int(going.sum())), dtype=rows.dtype)
    for k in range(len(rows)):
        out[k] = rows[k][going]
    return out


def _crazy_is_black(Q: np.ndarray, black_shown: np.ndarray) -> np.ndarray:
    """R17: whether the grey die moves the black camel (else white) in each
    race of ``Q`` (camel-major, uint8) when it shows black (``black_shown``)."""
    crazy = Q[WHITE:]
    # uint8 wrap-around: 0 <= racer - (p + 1) < 7 - height is p < racer <= p | 7.
    above = (Q[:N_RACING, None] - (crazy + 1)) < _ABOVE.take(crazy)
    carries = np.logical_or.reduce(above, axis=0)
    # One crazy camel right on the other: the upper one moves (R17 a);
    # else the one carrying racers, if only one does; else the colour shown.
    apart = crazy[0] - crazy[1]
    return np.where(
        _STACKED.take(apart), apart == 255, np.where(carries[0] != carries[1], carries[1], black_shown)
    )


def simulate(
    P: np.ndarray, lone_ends: bool, rng: np.random.Generator, max_legs: int = 1000
) -> np.ndarray:
    """Plays every row of ``P`` (race-major, as ``odds_np.simulate`` takes
    it) to the race's end with fresh legs and no tiles; returns the same
    final ranking keys (rows of -1 for races still running after
    ``max_legs`` legs)."""
    n = len(P)
    finals = np.full((n, N_CAMELS), -1, dtype=np.int16)
    # The race of each column of Q; finished columns are dropped at leg ends only.
    races = np.arange(n)
    Q = np.ascontiguousarray(P.T).astype(np.uint8)
    for _ in range(max_legs):
        width = len(races)
        if not width:
            break
        order, faces = leg_draws(rng, width)
        cols = np.arange(width)
        # Per step and column: where the die's camel sits in Q.ravel(), and
        # how far and which way it moves (the grey die backward, R17), plus
        # _PAD so that the destination can index the tables.
        at = order.astype(np.intp) * width + cols
        grey_at = order == GREY_DIE
        value = _VALUE.take(faces)
        value = np.where(grey_at, _PAD - value, _PAD + value)
        black_shown = faces >= 3
        live = np.ones(width, dtype=bool)
        for step in range(N_DICE - 1):
            idx = at[step]
            g = grey_at[step].nonzero()[0]
            if len(g):
                # The grey die's index points at white (GREY_DIE == WHITE).
                black = _crazy_is_black(Q.take(g, axis=1), black_shown[step].take(g))
                idx[g] += black * width
            pc = Q.ravel().take(idx)
            # uint8 wrap-around: Q - pc <= 7 - height is pc <= Q <= pc | 7.
            unit = (Q - pc) <= _ABOVE.take(pc)
            # uint8 + int8 gives int16: off-track values stay visible.
            dest = (pc >> 3) + value[step]
            if not lone_ends:
                # R20 with the flag off: a lone crazy unit wraps around.
                wrap = _OFF.take(dest) & ~unit[:N_RACING].any(0)
                dest = np.where(wrap, np.where(dest < _PAD + 1, dest + SPACES, dest - SPACES), dest)
            # Over the line (R30) the unit goes to progress 0 or 17, where no
            # camel stands (no lift), so Q then holds the race's final keys.
            base = _BASE.take(dest)
            lift = np.add.reduce((Q - base) < SLOT, axis=0, dtype=np.uint8)
            # Finished races stand still: their Q is their final ranking.
            Q += unit * ((base + lift - pc) * live)
            np.greater(live, _OFF.take(dest), out=live)
        done = ~live
        if done.any():
            finals[races[done]] = Q[:, done].T
            Q = _keep(Q, live)
            races = races[live]
    return finals
