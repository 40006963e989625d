"""Spectator-tile what-ifs (R22, R23, CU-7): every spot a seat may put its tile
on and the income it would earn this leg, for the odds panel's tile spots.
The seat's own tile is lifted first (a tile is moved, never doubled)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engines.camelup import odds_backend as solvers
from engines.camelup import odds_py
from engines.camelup.board import tile_targets as offered_targets
from engines.camelup.board import track_from
from engines.camelup.constants import CAMELS
from engines.camelup.odds_backend import Backend
from engines.camelup.odds_board import SIDE_NAMES, SIDE_WORDS, Position, position


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


def tile_targets(
    pos: Position, player: str | None, flip_in_place: bool = False
) -> list[tuple[int, int]]:
    """R22/CU-7: every (space, CHEER | BOO) ``player`` may put their tile on,
    as the game offers it (``board.tile_targets``, here on the solvers' form).
    ``player`` None means someone with no tile on the board."""
    track = track_from(
        {space: [CAMELS[c] for c in camels] for space, camels in pos.stacks().items()}
    )
    tiles = {space: (owner, SIDE_WORDS[side]) for space, (side, owner) in pos.tiles.items()}
    return [
        (space, SIDE_NAMES[side])
        for space, side in offered_targets(track, tiles, player, flip_in_place)
    ]


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
    if solvers.numpy_allowed(backend):
        # One pass shares the leg up to each tile's first landing (odds_whatif).
        counts = solvers.odds_whatif.landings(replace(pos, tiles=others), targets)
    else:
        counts = _landings_each(pos, others, targets, backend)
    out = [
        TileWhatIf(space, SIDE_WORDS[side], n, pos.denominator)
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
    if solvers.use_numpy(pos, backend):
        return int(round(solvers.odds_np.solve(pos, ranks=False).landings[space]))
    return odds_py.solve(pos, ranks=False).landings.get(space, 0)
