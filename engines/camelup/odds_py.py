"""The exact leg solver in plain Python, for small pyramids and without NumPy.

A board is a string: for each space 1..16 its stack bottom->top as camel
column digits (``"0"``..``"4"`` racing, ``"5"`` white, ``"6"`` black) and a
``"."`` closing the space. Lifting a unit and dropping it elsewhere is then a
few C-level string operations, strings hash once, and the ranking is the
reversed string without separators and crazy camels.

The leg is solved forward, level by level (one level per die rolled): each
level maps (dice left, board) to the number of weighted paths reaching it, so
paths that reach the same board by different orders merge before they are
expanded again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from random import Random

from engines.camelup.constants import SPACES
from engines.camelup.odds_board import (
    BLACK,
    CHEER,
    GREY_DIE,
    SLOT,
    WHITE,
    Position,
)

SEP = "."
#: Ranking: drop the separators and both crazy camels.
_RANK = str.maketrans("", "", SEP + str(WHITE) + str(BLACK))
_W, _K = str(WHITE), str(BLACK)
_NO_RACER = ("", _W, _K)
#: One racing die value weighs 2 of the 6 faces; a grey face weighs 1.
_RACING_WEIGHT = 2


def encode(places: Iterable[int]) -> str:
    """The board string of ``space * 8 + height`` places (one per camel column).

    >>> encode([8, 9, 17, 16, 24, 120, 112])[:9]
    '01.32.4..'
    """
    stacks: list[list[tuple[int, str]]] = [[] for _ in range(SPACES)]
    for camel, place in enumerate(places):
        stacks[place // SLOT - 1].append((place, str(camel)))
    return "".join("".join(c for _, c in sorted(st)) + SEP for st in stacks)


def decode(board: str) -> tuple[int, ...]:
    """Inverse of ``encode``.

    >>> decode(encode([8, 9, 17, 16, 24, 120, 112]))
    (8, 9, 17, 16, 24, 120, 112)
    """
    places = [0] * 7
    for space, stack in enumerate(board.split(SEP)[:SPACES], start=1):
        for height, camel in enumerate(stack):
            places[int(camel)] = space * SLOT + height
    return tuple(places)


def ranking(board: str) -> str:
    """Racing camel digits, leader first (R30).

    >>> ranking("01.32.4" + "." * 14)
    '42310'
    """
    return board[::-1].translate(_RANK)


def select_crazy(board: str, colour: str) -> str:
    """R17: the crazy camel the grey die moves when it shows ``colour``.

    >>> [select_crazy(b + "." * 15, _W) for b in ("563.", "653.", "536.", "356.")]
    ['6', '5', '5', '6']
    >>> select_crazy("5360." + "." * 15, _K), select_crazy("5360." + "." * 15, _W)
    ('6', '5')
    """
    iw, ik = board.find(_W), board.find(_K)
    if ik == iw + 1:
        return _K
    if iw == ik + 1:
        return _W
    white = board[iw + 1 : board.find(SEP, iw)] not in _NO_RACER
    black = board[ik + 1 : board.find(SEP, ik)] not in _NO_RACER
    if white != black:
        return _W if white else _K
    return colour


def _terminator(rest: str, i: int, start: int, space: int) -> int:
    """Index of the ``"."`` closing ``space`` in ``rest``, the board without
    the lifted unit, whose own space ``start`` is closed at index ``i``."""
    pos = i
    if space > start:
        for _ in range(space - start):
            pos = rest.find(SEP, pos + 1)
    else:
        for _ in range(start - space):
            pos = rest.rfind(SEP, 0, pos)
    return pos


def _wrap(space: int) -> int:
    return space + SPACES if space < 1 else space - SPACES


def _ended(rest: str, racers: str, dest: int) -> str:
    # R30/CU-3/CU-4: a unit past 16 leads, one before 1 trails; inside it the
    # higher camel is ahead.
    if dest > SPACES:
        return racers[::-1] + ranking(rest)
    return ranking(rest) + racers[::-1]


@dataclass
class LegCounts:
    """Raw solver output; every count is out of ``Position.denominator``."""

    #: ranking string (leader first) -> leg outcomes
    rankings: dict[str, int] = field(default_factory=dict)
    #: the same, only outcomes that end the race
    end_rankings: dict[str, int] = field(default_factory=dict)
    #: tile space -> landings summed over all leg outcomes
    landings: dict[int, int] = field(default_factory=dict)
    #: leg outcomes in which the race ends
    ended: int = 0
    #: board at leg end -> leg outcomes (only races still running)
    boards: dict[str, int] = field(default_factory=dict)

    def add_ranking(self, key: str, count: int) -> None:
        self.rankings[key] = self.rankings.get(key, 0) + count


class _Leg:
    """Movement for one solve: the tiles and the CU-1 flag are fixed, and
    results land in ``counts`` (terminal) or the caller's next level."""

    def __init__(self, tiles: dict[int, int], lone_ends: bool, counts: LegCounts) -> None:
        self.tiles = tiles
        self.lone_ends = lone_ends
        self.counts = counts

    def end(self, rest: str, racers: str, dest: int, count: int) -> None:
        counts = self.counts
        counts.ended += count
        key = _ended(rest, racers, dest)
        counts.end_rankings[key] = counts.end_rankings.get(key, 0) + count

    def moves(
        self, board: str, camel: str, direction: int, weight: int, mult: int, target: dict[str, int]
    ) -> None:
        """Moves ``camel``'s unit 1, 2 and 3 spaces in ``direction`` (R14-R25):
        ``weight`` paths per value go to ``target`` or, times ``mult`` (the
        leg outcomes sharing the path), to the race-end counts."""
        i = board.find(camel)
        j = board.find(SEP, i)
        unit = board[i:j]
        rest = board[:i] + board[j:]
        start = board.count(SEP, 0, i) + 1
        racers = unit.translate(_RANK)
        tiles = self.tiles
        pos = i
        for value in (1, 2, 3):
            dest = start + direction * value
            if not 1 <= dest <= SPACES:
                if racers or self.lone_ends:
                    # Every larger value crosses too, into the same ranking.
                    self.end(rest, racers, dest, weight * mult * (4 - value))
                    return
                self._special(
                    rest, unit, racers, i, start, _wrap(dest), direction, weight, mult, target
                )
                continue
            # Values are consecutive, so the next closing "." is one search away.
            pos = rest.find(SEP, pos + 1) if direction > 0 else rest.rfind(SEP, 0, pos)
            if dest in tiles:
                self._special(rest, unit, racers, i, start, dest, direction, weight, mult, target)
                continue
            new = rest[:pos] + unit + rest[pos:]
            target[new] = target.get(new, 0) + weight

    def _special(
        self,
        rest: str,
        unit: str,
        racers: str,
        i: int,
        start: int,
        dest: int,
        direction: int,
        weight: int,
        mult: int,
        target: dict[str, int],
    ) -> None:
        """The unit reaches ``dest`` (already wrapped if it had to be) and a
        tile may act there: the slow, general path."""
        top = True
        side = self.tiles.get(dest)
        if side:
            # R23/R24: one tile per move; the push uses the die's direction.
            landings = self.counts.landings
            landings[dest] = landings.get(dest, 0) + weight * mult
            if side == CHEER:
                dest += direction
            else:
                dest -= direction
                top = False
            if not 1 <= dest <= SPACES:
                if racers or self.lone_ends:
                    self.end(rest, racers, dest, weight * mult)
                    return
                dest = _wrap(dest)
        pos = _terminator(rest, i, start, dest)
        if not top:
            pos = rest.rfind(SEP, 0, pos) + 1
        new = rest[:pos] + unit + rest[pos:]
        target[new] = target.get(new, 0) + weight

    def roll(self, board: str, die: int, weight: int, mult: int, target: dict[str, int]) -> None:
        """Every outcome of rolling ``die`` on ``board``, weighted out of 6 faces."""
        if die != GREY_DIE:
            self.moves(board, str(die), 1, weight * _RACING_WEIGHT, mult, target)
            return
        white, black = select_crazy(board, _W), select_crazy(board, _K)
        if white == black:
            self.moves(board, white, -1, weight * 2, mult, target)
        else:
            self.moves(board, white, -1, weight, mult, target)
            self.moves(board, black, -1, weight, mult, target)


def solve(position: Position, ranks: bool = True) -> LegCounts:
    """All leg outcomes of ``position``, merged level by level."""
    result = LegCounts()
    leg = _Leg(
        {space: side for space, (side, _) in position.tiles.items()},
        position.lone_crossing_ends,
        result,
    )
    roll = leg.roll
    level: dict[tuple[int, ...], dict[str, int]] = {position.dice: {encode(position.places): 1}}
    for rolled in range(1, position.rolls + 1):
        mult = position.multiplier(rolled)
        nxt: dict[tuple[int, ...], dict[str, int]] = {}
        for dice, boards in level.items():
            for die in dice:
                left = tuple(d for d in dice if d != die) if rolled < position.rolls else ()
                target = nxt.setdefault(left, {})
                for board, weight in boards.items():
                    roll(board, die, weight, mult, target)
        level = nxt
    (result.boards,) = level.values()
    result.rankings.update(result.end_rankings)
    if ranks:
        for board, count in result.boards.items():
            result.add_ranking(ranking(board), count)
    return result


def simulate(
    starts: list[str],
    lone_ends: bool,
    rng: Random,
    max_legs: int = 1000,
) -> Iterable[str | None]:
    """Plays each start board to the race's end with fresh legs and no tiles
    (they return to their owners at leg end, R29); yields the final ranking,
    or None if a race is still running after ``max_legs`` legs."""
    dice = list(range(GREY_DIE + 1))
    for board in starts:
        final: str | None = None
        for _ in range(max_legs):
            rng.shuffle(dice)
            for die in dice[:-1]:
                final, board = _sim_step(board, die, lone_ends, rng)
                if final is not None:
                    break
            if final is not None:
                break
        yield final


def step(
    board: str, camel: str, direction: int, value: int, tiles: dict[int, int], lone_ends: bool
) -> tuple[str | None, str | None, int]:
    """One move, the slow plain way: (new board or None, the ranking if the
    race ended, the tile space hit or 0)."""
    counts = LegCounts()
    leg = _Leg(tiles, lone_ends, counts)
    i = board.find(camel)
    j = board.find(SEP, i)
    unit, rest = board[i:j], board[:i] + board[j:]
    start = board.count(SEP, 0, i) + 1
    racers = unit.translate(_RANK)
    dest = start + direction * value
    target: dict[str, int] = {}
    if not 1 <= dest <= SPACES:
        if racers or lone_ends:
            return None, _ended(rest, racers, dest), 0
        dest = _wrap(dest)
    leg._special(rest, unit, racers, i, start, dest, direction, 1, 1, target)
    hit = next(iter(counts.landings), 0)
    if counts.end_rankings:
        return None, next(iter(counts.end_rankings)), hit
    return next(iter(target)), None, hit


def _sim_step(board: str, die: int, lone_ends: bool, rng: Random) -> tuple[str | None, str]:
    face = rng.randrange(6)
    value = face % 3 + 1
    if die == GREY_DIE:
        camel, direction = select_crazy(board, _W if face < 3 else _K), -1
    else:
        camel, direction = str(die), 1
    new, ended, _ = step(board, camel, direction, value, {}, lone_ends)
    return ended, (new if new is not None else board)
