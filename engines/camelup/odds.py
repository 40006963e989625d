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
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engines.camelup import odds_backend as solvers
from engines.camelup import odds_py, odds_race
from engines.camelup.odds_backend import Backend
from engines.camelup.odds_board import (
    Position,
    by_colour,
    from_rankings,
    position,
    ticket_tops,
)
from engines.camelup.odds_race import RaceOdds
from engines.camelup.odds_tiles import TileWhatIf, tile_targets, tile_what_ifs

DEFAULT_RACES = 10_000


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


def count_leg(pos: Position, backend: Backend = "auto") -> LegCounts:
    """The exact rank and tile-landing counts of the current leg."""
    if solvers.use_numpy(pos, backend):
        return _np_counts(pos, solvers.odds_np.solve(pos))
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
    numpy = solvers.numpy_allowed(backend)
    solved = solvers.odds_np.solve(pos, boards=True) if numpy else odds_py.solve(pos)
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
        pos.places, pos.dice, tiles, pos.lone_crossing_ends, races, seed, solvers.numpy_allowed("auto")
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
        solved: Any = solvers.odds_np.solve(pos, boards=True)
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
