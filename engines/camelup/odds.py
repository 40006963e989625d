"""Exact Camel Up leg odds, bet values and spectator-tile what-ifs (issue 6).

Pure: no I/O, no clock, no global randomness (the race estimate takes a
seed). It does not import the engine; it takes the board as plain data::

    board = {
        "track": {space: [camel, ...]},        # 1..16, bottom -> top; keys may be strings
        "pyramid": ["blue", ..., "grey"],      # dice still inside
        "tiles": {space: [owner, "cheer" | "boo"]},   # optional
        "tickets": {colour: [values left, top first]},  # optional, default full stacks
    }

Camels: racing blue green yellow red purple; crazy white black. ``options``
takes the engine's table options; the ones that matter here are
``crazyLoneCrossingEndsGame`` (CU-1, default true) and ``spectatorFlipInPlace``
(CU-7, default false).

The leg is enumerated exactly (R12, R27, CU-19): each die left is drawn with
equal chance, every die has 6 equally likely faces (a racing value is 2 of
them, a grey colour-value pair 1), and the leg ends with one die still in the
pyramid, whichever die that is. A race that ends inside the leg stops its
path there (R34). Counts are integers out of ``denominator`` = n! * 6^(n-1)
for n dice in the pyramid (5,598,720 for a full one).

Two interchangeable back ends compute the same numbers: ``odds_np`` (NumPy,
fast for big pyramids) and ``odds_py`` (plain Python, fast for small ones and
used when NumPy is missing). docs/performance.md has the method and timings.

Choices made here (the rules spec leaves them open for an odds tool):

- A pyramid ticket is worth exactly +1 (R32): who rolls does not change
  who earns tile income, so that is not added to it.
- Tile what-ifs lift the player's own tile first (a move, R22) and count only
  the new tile's income; the tiles of the others stay.
- The race estimate plays the legs after this one with no spectator tiles
  (they return at leg end, R29, and nobody can know where they will go next).
- A crazy unit carrying racing camels that a booing tile pushes past 16 is
  a forward crossing (progress 17), like the engine's move; it cannot happen
  under the default rules (CU-5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

from engines.camelup import odds_py, odds_race
from engines.camelup.constants import SPACES
from engines.camelup.odds_board import (
    BOO,
    CHEER,
    SLOT,
    Position,
    by_colour,
    from_rankings,
    parse_board,
    ticket_tops,
)
from engines.camelup.odds_race import RaceOdds

try:
    from engines.camelup import odds_np, odds_whatif
except ImportError:  # pragma: no cover - the NumPy path is the normal one
    odds_np = None  # type: ignore[assignment]
    odds_whatif = None  # type: ignore[assignment]

Backend = Literal["auto", "numpy", "python"]
#: Below this many dice in the pyramid the plain-Python solver is faster than
#: NumPy's per-call overhead (measured by bench/odds.py).
NUMPY_FROM_DICE = 4
DEFAULT_RACES = 10_000
_SIDE_WORD = {CHEER: "cheer", BOO: "boo"}


@dataclass(frozen=True)
class LegCounts:
    """Exact leg figures; every count is out of ``denominator``."""

    denominator: int
    #: colour -> outcomes in which it finishes the leg 1st..5th
    ranks: dict[str, tuple[int, ...]]
    #: the part of ``ranks`` from outcomes in which the race ends this leg
    end_ranks: dict[str, tuple[int, ...]]
    #: outcomes in which the race ends during this leg
    race_ends: int
    #: tile space -> landings summed over all outcomes (expected landings x denominator)
    landings: dict[int, int]


@dataclass(frozen=True)
class LegOdds:
    """What the odds panel shows for one position."""

    counts: LegCounts
    #: colour -> (top ticket value, expected reward x denominator), R32
    tickets: dict[str, tuple[int, int]]
    #: owner -> expected tile income x denominator, R23
    tile_income: dict[str, int]

    @property
    def denominator(self) -> int:
        return self.counts.denominator

    def probability(self, colour: str, place: int) -> float:
        """P(``colour`` finishes the leg in ``place``, 1-based)."""
        return self.counts.ranks[colour][place - 1] / self.denominator

    def ticket_value(self, colour: str) -> float:
        """Expected reward of taking ``colour``'s top betting ticket now."""
        return self.tickets[colour][1] / self.denominator

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: exact counts plus rounded probabilities and values."""
        den = self.denominator
        return {
            "denominator": den,
            "ranks": {c: list(r) for c, r in self.counts.ranks.items()},
            "probabilities": {
                c: [round(x / den, 6) for x in r] for c, r in self.counts.ranks.items()
            },
            "raceEnds": self.counts.race_ends,
            "raceEndProbability": round(self.counts.race_ends / den, 6),
            "tickets": {
                c: {"value": v, "ev": round(num / den, 4), "evCount": num}
                for c, (v, num) in self.tickets.items()
            },
            # R32: a pyramid ticket always pays exactly 1 at leg scoring.
            "pyramidTicket": {"ev": 1.0},
            "tileIncome": {
                o: {"ev": round(num / den, 4), "evCount": num}
                for o, num in self.tile_income.items()
            },
        }


@dataclass(frozen=True)
class TileWhatIf:
    """One legal spectator-tile placement and its expected income this leg."""

    space: int
    side: str
    #: expected landings x denominator
    landings: int
    denominator: int

    @property
    def income(self) -> float:
        return self.landings / self.denominator

    def as_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "side": self.side,
            "ev": round(self.income, 4),
            "evCount": self.landings,
        }


def position(board: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Position:
    """Checks ``board`` and packs it for the solvers; raises ValueError."""
    lone = bool((options or {}).get("crazyLoneCrossingEndsGame", True))
    return parse_board(board, lone_crossing_ends=lone)


def _numpy(backend: Backend) -> bool:
    """Whether NumPy may be used at all."""
    if backend == "numpy" and odds_np is None:
        raise RuntimeError("NumPy is not installed")
    return backend != "python" and odds_np is not None


def _use_numpy(pos: Position, backend: Backend) -> bool:
    return _numpy(backend) and (backend == "numpy" or len(pos.dice) >= NUMPY_FROM_DICE)


def count_leg(pos: Position, backend: Backend = "auto") -> LegCounts:
    """The exact rank and tile-landing counts of the current leg."""
    if _use_numpy(pos, backend):
        return _np_counts(pos, odds_np.solve(pos))
    return _py_counts(pos, odds_py.solve(pos))


def _np_counts(pos: Position, res: Any) -> LegCounts:
    landings = {s: int(round(res.landings[s])) for s in pos.tiles}
    return LegCounts(
        pos.denominator,
        by_colour(res.ranks),
        by_colour(res.end_ranks),
        int(round(res.ended)),
        landings,
    )


def _py_counts(pos: Position, py: Any) -> LegCounts:
    landings = {s: py.landings.get(s, 0) for s in pos.tiles}
    return LegCounts(
        pos.denominator,
        from_rankings(py.rankings),
        from_rankings(py.end_rankings),
        py.ended,
        landings,
    )


def leg_odds(
    board: Mapping[str, Any], options: Mapping[str, Any] | None = None, backend: Backend = "auto"
) -> LegOdds:
    """Exact leg ranking counts, the value of every available betting ticket
    and the expected income of every spectator tile on the board."""
    pos = position(board, options)
    return _leg_odds(board, pos, count_leg(pos, backend))


def _leg_odds(board: Mapping[str, Any], pos: Position, counts: LegCounts) -> LegOdds:
    den = counts.denominator
    tickets = {}
    for colour, value in ticket_tops(board).items():
        first, second = counts.ranks[colour][0], counts.ranks[colour][1]
        # R32: v if 1st, +1 if 2nd, -1 otherwise.
        tickets[colour] = (value, value * first + second - (den - first - second))
    income: dict[str, int] = {}
    for space, (_, owner) in pos.tiles.items():
        income[owner] = income.get(owner, 0) + counts.landings[space]
    return LegOdds(counts, tickets, income)


def tile_targets(
    pos: Position, player: str | None, flip_in_place: bool = False
) -> list[tuple[int, int]]:
    """R22/CU-7: every (space, CHEER | BOO) ``player`` may put their tile on.
    ``player`` None means someone with no tile on the board."""
    occupied = {p // SLOT for p in pos.places}
    own: tuple[int, int] | None = None
    others: set[int] = set()
    for space, (side, owner) in pos.tiles.items():
        if player is not None and owner == player:
            own = (space, side)
        else:
            others.add(space)
    out = []
    for space in range(2, SPACES + 1):
        if space in occupied or others & {space - 1, space, space + 1}:
            continue
        for side in (CHEER, BOO):
            if own is not None and own[0] == space and (not flip_in_place or own[1] == side):
                continue
            out.append((space, side))
    return out


def tile_what_ifs(
    board: Mapping[str, Any],
    player: str | None = None,
    options: Mapping[str, Any] | None = None,
    backend: Backend = "auto",
) -> list[TileWhatIf]:
    """Every legal placement (or move) of ``player``'s spectator tile with
    its expected income this leg, best first. The player's tile, if on the
    board, is lifted first: a tile is moved, never doubled (R22)."""
    pos = position(board, options)
    flip = bool((options or {}).get("spectatorFlipInPlace", False))
    others = {s: t for s, t in pos.tiles.items() if player is None or t[1] != player}
    targets = tile_targets(pos, player, flip)
    if _numpy(backend):
        # One pass shares the leg up to each tile's first landing (odds_whatif).
        counts = odds_whatif.landings(replace(pos, tiles=others), targets)
    else:
        counts = _landings_each(pos, others, targets, backend)
    out = [
        TileWhatIf(space, _SIDE_WORD[side], n, pos.denominator)
        for (space, side), n in zip(targets, counts, strict=True)
    ]
    out.sort(key=lambda w: (-w.landings, w.space, w.side))
    return out


def _landings_each(
    pos: Position,
    others: Mapping[int, tuple[int, str]],
    targets: list[tuple[int, int]],
    backend: Backend,
) -> list[int]:
    """One solve per placement: the plain way, kept for the Python back end
    and as the reference the one-pass what-ifs are tested against."""
    return [
        _landings(replace(pos, tiles={**others, space: (side, "?")}), space, backend)
        for space, side in targets
    ]


def _landings(pos: Position, space: int, backend: Backend) -> int:
    if _use_numpy(pos, backend):
        return int(round(odds_np.solve(pos, ranks=False).landings[space]))
    return odds_py.solve(pos, ranks=False).landings.get(space, 0)


def race_odds(
    board: Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
    races: int = DEFAULT_RACES,
    seed: int = 0,
    backend: Backend = "auto",
) -> RaceOdds:
    """Overall winner and loser probabilities.

    Stratified: the current leg is solved exactly, so races ending in it
    count with their exact weight; only races that outlast the leg are
    sampled (``races`` of them, from the exact leg-end distribution, then
    played out with fresh legs and no tiles). Exact when the race must end
    this leg. Same seed, same position, same answer."""
    pos = position(board, options)
    numpy = _numpy(backend)
    solved = odds_np.solve(pos, boards=True) if numpy else odds_py.solve(pos)
    return odds_race.estimate(pos, solved, races, seed, numpy)


def analyse(
    board: Mapping[str, Any],
    player: str | None = None,
    options: Mapping[str, Any] | None = None,
    races: int = DEFAULT_RACES,
    seed: int = 0,
) -> dict[str, Any]:
    """Everything the odds panel shows, JSON-ready: leg odds, ticket and
    pyramid-ticket values, tile income, the best tile spots for ``player``
    and the race winner/loser estimate."""
    what_ifs = tile_what_ifs(board, player, options)
    pos = position(board, options)
    tiles = tuple(sorted(pos.tiles.items()))
    counts, race = _shared(
        pos.places, pos.dice, tiles, pos.lone_crossing_ends, races, seed, _numpy("auto")
    )
    return {
        "leg": _leg_odds(board, pos, counts).as_dict(),
        "tileSpots": [w.as_dict() for w in what_ifs],
        "race": race.as_dict(),
    }


@lru_cache(maxsize=32)
def _shared(
    places: tuple[int, ...],
    dice: tuple[int, ...],
    tiles: tuple[tuple[int, tuple[int, str]], ...],
    lone: bool,
    races: int,
    seed: int,
    numpy: bool,
) -> tuple[LegCounts, RaceOdds]:
    """The part of ``analyse`` no viewer changes, kept for the next viewer of
    the same position (the server asks once per version for each seat whose
    own tile is on the board, and once for everyone else). One solve feeds
    both the leg odds and the race estimate (its leg-end boards)."""
    pos = Position(places, dice, dict(tiles), lone)
    if numpy:
        solved: Any = odds_np.solve(pos, boards=True)
        counts = _np_counts(pos, solved)
    else:
        solved = odds_py.solve(pos)
        counts = _py_counts(pos, solved)
    return counts, odds_race.estimate(pos, solved, races, seed, numpy)


__all__ = [
    "DEFAULT_RACES",
    "LegCounts",
    "LegOdds",
    "RaceOdds",
    "TileWhatIf",
    "analyse",
    "count_leg",
    "leg_odds",
    "position",
    "race_odds",
    "tile_targets",
    "tile_what_ifs",
]
