"""The race simulator of the race estimate, lean enough for every analysis.

It plays races exactly like ``odds_np.simulate`` (which stays as the
reference the tests compare it with): both take their random numbers from
``leg_codes`` (``odds_np.simulate`` through ``leg_draws``, which decodes them),
so one seed gives the same races, move for move. It is faster
because a simulated move has no spectator tiles (R29) and one value, so most
of the general ``odds_np.move`` falls away:

- boards are stored camel-major and as bytes, ``Q[camel, race]``, so every
  operation runs over long contiguous uint8 rows; a unit is
  ``0 <= Q[c] - place <= 7 - height`` in wrap-around arithmetic (one
  subtraction and one comparison), and the camels already on the destination
  are ``Q[c] - 8 * destination < 8`` (the unit is never on it);
- one bounded draw per race and leg (``leg_codes``) gives the leg's die
  order and its five faces as two codes; per step, two small tables turn
  them into the die rolled and how far it moves (``_STEP_VALUE``), and the
  mover's place is read through a one-hot row mask, not a gather;
- R17 runs over all columns with few operations: stacks have no gaps, so a
  crazy camel carries racers iff a racer stands right on it, and the other
  crazy camel right on it counts as its only load; boolean algebra instead
  of ``np.where`` (several times slower on booleans);
- a unit that crosses the line lands on progress 0 or 17 like any move, so
  the finished board is the final ranking (R30); the race's column then
  stands still, and finished columns are dropped only once an eighth of
  the columns are idle (a drop costs more than carrying a few idle
  columns). The running races still take their draws in race order, so
  the random stream is the same as ``odds_np.simulate``'s.
"""

from __future__ import annotations

from itertools import permutations, product

import numpy as np

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import BLACK, FORWARD_PROGRESS, GREY_DIE, SLOT, WHITE

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
#: A face's value (R13): 1, 2, 3, 1, 2, 3.
_VALUE = np.array([1, 2, 3, 1, 2, 3], dtype=np.int8)
_FACES = np.array(list(product(range(6), repeat=N_DICE - 1)), dtype=np.uint8)[:, ::-1].T.copy()
#: Per step and faces code: _PAD plus the face's value, and whether a grey
#: die showing it is black.
_STEP_VALUE = (_PAD + _VALUE.take(_FACES)).astype(np.uint8)
_STEP_BLACK = _FACES >= 3
_ROWS = np.arange(N_CAMELS, dtype=np.int8)[:, None]


def leg_codes(rng: np.random.Generator, races: int) -> tuple[np.ndarray, np.ndarray]:
    """One leg's randomness for ``races`` races as two codes per race: the
    die order (0-719, a column of ``_ORDERS``) and the five faces (0-7775,
    a column of ``_FACES``, i.e. base-6 digits, lowest first).

    One bounded draw per race covers the whole leg: its remainder by 720 is
    the order, its quotient the five faces (both uniform and independent, as
    ``5598720 = 720 * 6**5``). It is the one random stream of both
    simulators, so they play the same races."""
    code = rng.integers(0, _ORDERS.shape[1] * _FACES.shape[1], races, dtype=np.int32)
    # A constant floor division is far cheaper than np.divmod or %.
    faces = code // _ORDERS.shape[1]
    return code - faces * _ORDERS.shape[1], faces


def leg_draws(rng: np.random.Generator, races: int) -> tuple[np.ndarray, np.ndarray]:
    """``leg_codes`` decoded, as ``(order, faces)``, both shaped (5, races):
    the die rolled at each step (a uniform random order of the six dice, R12:
    the sixth stays in the pyramid) and the face it shows (0-5: value
    ``face % 3 + 1``; for the grey die, white when below 3)."""
    order, faces = leg_codes(rng, races)
    return _ORDERS.take(order, axis=1), _FACES.take(faces, axis=1)


def _crazy_is_black(Q: np.ndarray, black_shown: np.ndarray) -> np.ndarray:
    """R17: whether the grey die moves the black camel (else white) in each
    race of ``Q`` (camel-major, uint8) when it shows black (``black_shown``)."""
    on_white = Q == Q[WHITE] + 1
    on_black = Q == Q[BLACK] + 1
    # Stacks have no gaps: a crazy camel carries racers iff one is right on
    # it. One crazy camel right on the other moves (R17 a): counted here as
    # the only one "carrying", which the next rule then picks.
    white = np.logical_or.reduce(on_white[:N_RACING], axis=0) | on_black[WHITE]
    black = np.logical_or.reduce(on_black[:N_RACING], axis=0) | on_white[BLACK]
    # The one carrying racers if only one does (R17 b), else the colour shown:
    # boolean algebra, as np.where on booleans is slow. (The stubs type the
    # result as Any.)
    picked: np.ndarray = black ^ ((white == black) & (black ^ black_shown))
    return picked


def simulate(
    P: np.ndarray, lone_ends: bool, rng: np.random.Generator, max_legs: int = 1000
) -> np.ndarray:
    """Plays every row of ``P`` (race-major, as ``odds_np.simulate`` takes
    it) to the race's end with fresh legs and no tiles; returns the same
    final ranking keys (rows of -1 for races still running after
    ``max_legs`` legs)."""
    n = len(P)
    finals = np.full((n, N_CAMELS), -1, dtype=np.int16)
    # The race of each column of Q, and whether it still runs. A finished
    # column stands still; columns are dropped only once an eighth are idle
    # (a drop copies every row, dearer than carrying a few idle columns).
    races = np.arange(n)
    running = np.ones(n, dtype=bool)
    Q = np.ascontiguousarray(P.T).astype(np.uint8)
    for _ in range(max_legs):
        width = len(races)
        count = int(np.count_nonzero(running))
        if not count:
            break
        if 8 * (width - count) > width:
            _record(finals, races, Q, running)
            keep = np.flatnonzero(running)
            Q = Q.take(keep, axis=1)
            races = races.take(keep)
            running = np.ones(count, dtype=bool)
            width = count
        order, faces = leg_codes(rng, count)
        if count < width:
            # The still-running races take the draws in race order, as in
            # odds_np.simulate; finished columns get a dummy draw.
            order_all = np.zeros(width, dtype=order.dtype)
            faces_all = np.zeros(width, dtype=faces.dtype)
            order_all[running] = order
            faces_all[running] = faces
            order, faces = order_all, faces_all
        live = running.copy()
        for step in range(N_DICE - 1):
            die = _ORDERS[step].take(order)
            # Destination space + _PAD: forward by the face's value, or
            # backward for the grey die (R17).
            shift = _STEP_VALUE[step].take(faces)
            mover = _ROWS == die
            grey = mover[GREY_DIE]
            if np.logical_or.reduce(grey):
                # 2 * _PAD - shift for the grey die in uint8 arithmetic (np.where
                # is several times slower): -g is 255 where grey, and
                # (x ^ 255) + 2 * _PAD + 1 is 2 * _PAD - x modulo 256.
                g = grey.view(np.uint8)
                shift ^= -g
                shift += g * (2 * _PAD + 1)
                # The die's row is white's (GREY_DIE == WHITE): R17 may pick black.
                # Over all columns: cheaper than gathering the grey ones.
                np.logical_and(
                    grey, _crazy_is_black(Q, _STEP_BLACK[step].take(faces)), out=mover[BLACK]
                )
                grey ^= mover[BLACK]
            # One mover per column: its place, without a gather.
            pc = np.bitwise_or.reduce(Q * mover, axis=0)
            # uint8 wrap-around: Q - pc <= 7 - height is pc <= Q <= pc | 7.
            unit = (Q - pc) <= 7 - (pc & 7)
            dest = (pc >> 3) + shift
            if not lone_ends:
                # R20 with the flag off: a lone crazy unit wraps around.
                wrap = _OFF.take(dest) & ~np.logical_or.reduce(unit[:N_RACING], axis=0)
                dest = np.where(
                    wrap, np.where(dest < _PAD + 1, dest + SPACES, dest - SPACES), dest
                ).astype(np.uint8)
            # Over the line (R30) the unit goes to progress 0 or 17, where no
            # camel stands (no lift), so Q then holds the race's final keys.
            base = _BASE.take(dest)
            lift = np.add.reduce((Q - base) < SLOT, axis=0, dtype=np.uint8)
            # Finished races stand still: their Q is their final ranking.
            Q += unit * ((base + lift - pc) * live)
            # Off the track (R30): dest - _PAD outside 1..16, in uint8 wrap-around.
            np.greater(live, (dest - (_PAD + 1)) >= SPACES, out=live)
        running = live
    _record(finals, races, Q, running)
    return finals


def _record(finals: np.ndarray, races: np.ndarray, Q: np.ndarray, running: np.ndarray) -> None:
    """Copies the finished columns of ``Q`` into their races' rows of
    ``finals`` (by index: a two-dimensional boolean index is far slower)."""
    over = np.flatnonzero(~running)
    finals[races.take(over)] = Q.take(over, axis=1).T
