"""The race track: stacks, movement (R14-R25), crazy-camel choice (R17),
ranking (R30, R36) and spectator-tile placement (R22).

A track is a tuple of 16 stacks; index 0 is space 1 and each stack is listed
bottom -> top. Functions here are pure and know nothing about players or money.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engines.camelup.constants import (
    CAMELS,
    CHEER,
    CRAZY,
    SIDES,
    SPACES,
    TILE_SPACES,
    is_racing,
)

if TYPE_CHECKING:
    from engines.camelup.state import State

Track = tuple[tuple[str, ...], ...]
#: space -> (owner, side)
Tiles = Mapping[int, tuple[str, str]]


def build_track(placements: Iterable[tuple[str, int]]) -> Track:
    """Places camels in order, each on top of its space (R6, R7).

    >>> t = build_track([("green", 1), ("purple", 1), ("yellow", 3)])
    >>> t[0], t[2]
    (('green', 'purple'), ('yellow',))
    """
    stacks: list[list[str]] = [[] for _ in range(SPACES)]
    for camel, space in placements:
        stacks[space - 1].append(camel)
    return tuple(tuple(s) for s in stacks)


def track_from(spaces: Mapping[int, Sequence[str]]) -> Track:
    """A track from {space: [bottom..top]}; handy for tests and corrections.

    >>> track_from({6: ["red", "blue"]})[5]
    ('red', 'blue')
    """
    return tuple(tuple(spaces.get(i, ())) for i in range(1, SPACES + 1))


def locate(track: Track, camel: str) -> tuple[int, int]:
    """(space, height) of a camel on the track; height 0 is the bottom.

    >>> locate(track_from({4: ["blue", "green"]}), "green")
    (4, 1)
    """
    for i, stack in enumerate(track):
        if camel in stack:
            return i + 1, stack.index(camel)
    raise KeyError(camel)


def _carries_racing(stack: Sequence[str], height: int) -> bool:
    return any(is_racing(c) for c in stack[height + 1 :])


def select_crazy(track: Track, colour: str) -> str:
    """R17: which crazy camel the grey die moves when it shows ``colour``.

    >>> select_crazy(track_from({13: ["black", "white", "purple"]}), "black")
    'white'
    >>> select_crazy(track_from({10: ["white", "yellow"], 12: ["black"]}), "black")
    'white'
    >>> select_crazy(track_from({10: ["white"], 12: ["black"]}), "black")
    'black'
    """
    (ws, wh), (bs, bh) = locate(track, CRAZY[0]), locate(track, CRAZY[1])
    if ws == bs and abs(wh - bh) == 1:
        return CRAZY[0] if wh > bh else CRAZY[1]
    white_carries = _carries_racing(track[ws - 1], wh)
    black_carries = _carries_racing(track[bs - 1], bh)
    if white_carries != black_carries:
        return CRAZY[0] if white_carries else CRAZY[1]
    return colour


@dataclass(frozen=True)
class Move:
    """What one die did to the track."""

    camel: str
    start: int
    unit: tuple[str, ...]
    direction: int
    #: The tile the unit landed on, (space, owner, side), or None.
    tile: tuple[int, str, str] | None
    #: Where the unit ended (None when it crossed the line).
    space: int | None
    on_top: bool
    #: +1 crossed clockwise past 16, -1 counterclockwise before 1, 0 none.
    crossed: int
    #: A lone crazy camel wrapped around (crazyLoneCrossingEndsGame=false).
    wrapped: bool


def move(
    track: Track, tiles: Tiles, camel: str, value: int, lone_crossing_ends: bool
) -> tuple[Track, Move]:
    """Moves ``camel`` and everything above it ``value`` spaces in its own
    direction (R14-R21), applying a spectator tile where it lands (R23-R25)."""
    start, height = locate(track, camel)
    stacks = [list(s) for s in track]
    unit = tuple(stacks[start - 1][height:])
    del stacks[start - 1][height:]
    direction = 1 if is_racing(camel) else -1
    dest = start + direction * value
    on_top = True
    tile: tuple[int, str, str] | None = None
    wrapped = False
    carries_racing = any(is_racing(c) for c in unit)
    while True:
        if not 1 <= dest <= SPACES:
            if carries_racing or lone_crossing_ends:
                crossed = 1 if dest > SPACES else -1
                new = tuple(tuple(s) for s in stacks)
                return new, Move(
                    camel, start, unit, direction, tile, None, on_top, crossed, wrapped
                )
            # R20 / CU-5 with the flag off: only a lone crazy camel gets here.
            dest = dest - SPACES if dest > SPACES else dest + SPACES
            wrapped = True
            continue
        # R24: a tile acts at most once per move.
        if tile is None and dest in tiles:
            owner, side = tiles[dest]
            tile = (dest, owner, side)
            if side == CHEER:
                dest += direction
            else:
                dest -= direction
                on_top = False
            continue
        break
    if on_top:
        stacks[dest - 1].extend(unit)
    else:
        stacks[dest - 1][:0] = unit
    new = tuple(tuple(s) for s in stacks)
    return new, Move(camel, start, unit, direction, tile, dest, on_top, 0, wrapped)


def ranking(track: Track, past: Sequence[str] = (), past_dir: int = 0) -> tuple[str, ...]:
    """R30: racing camels by (progress, height), leader first. ``past`` is the
    unit that crossed the line (progress 17 clockwise, 0 counterclockwise).

    >>> ranking(track_from({6: ["red", "blue", "green", "white"], 1: ["yellow", "purple"]}))
    ('green', 'blue', 'red', 'purple', 'yellow')
    """
    keyed: list[tuple[int, int, str]] = []
    for i, stack in enumerate(track):
        for h, c in enumerate(stack):
            if is_racing(c):
                keyed.append((i + 1, h, c))
    beyond = SPACES + 1 if past_dir > 0 else 0
    for h, c in enumerate(past):
        if is_racing(c):
            keyed.append((beyond, h, c))
    keyed.sort(reverse=True)
    return tuple(c for _, _, c in keyed)


def tile_targets(
    track: Track, tiles: Tiles, player: str | None, flip_in_place: bool
) -> list[tuple[int, str]]:
    """R22 and CU-7: every (space, side) ``player`` may put their tile on
    (None: someone with no tile on the board, as the odds panel asks).

    >>> t = track_from({3: ["red"], 7: ["blue"], 12: ["green"], 15: ["yellow"]})
    >>> tiles = {5: ("ann", "cheer"), 10: ("ben", "boo")}
    >>> sorted({s for s, _ in tile_targets(t, tiles, "cal", False)})
    [2, 8, 13, 14, 16]
    >>> sorted({s for s, _ in tile_targets(t, tiles, "ann", False)})
    [2, 4, 6, 8, 13, 14, 16]
    """
    own: tuple[int, str] | None = None
    others: set[int] = set()
    for space, (owner, side) in tiles.items():
        if owner == player:
            own = (space, side)
        else:
            others.add(space)
    out: list[tuple[int, str]] = []
    for space in TILE_SPACES:
        if track[space - 1] or space in others or space - 1 in others or space + 1 in others:
            continue
        for side in SIDES:
            if own is not None and own[0] == space and (not flip_in_place or own[1] == side):
                continue
            out.append((space, side))
    return out


def set_stack(track: Track, space: int, camels: Sequence[str]) -> Track:
    """Host correction: ``camels`` (bottom -> top) now stand on ``space``; each
    is lifted from wherever it was. Raises ValueError naming the problem."""
    if len(set(camels)) != len(camels) or any(c not in CAMELS for c in camels):
        raise ValueError(f"camels must be distinct camels from {', '.join(CAMELS)}")
    lost = [c for c in track[space - 1] if c not in camels]
    if lost:
        raise ValueError(
            f"{', '.join(lost)} would leave the board: put them on another space first"
        )
    stacks = [[c for c in s if c not in camels] for s in track]
    stacks[space - 1] = list(camels)
    return tuple(tuple(s) for s in stacks)


def board_of(state: State) -> dict[str, Any]:
    """The board for the odds solver and the UI:
    ``{"track": {space: [camels bottom -> top]} for spaces 1-16 (empty lists
    included), "pyramid": [dice left], "tiles": {space: [owner, side]}}``."""
    return {
        "track": {i + 1: list(stack) for i, stack in enumerate(state.track)},
        "pyramid": list(state.pyramid),
        "tiles": {space: [owner, side] for space, (owner, side) in sorted(state.tiles().items())},
    }


def tile_refusal(track: Track, tiles: Tiles, own: tuple[int, str] | None, space: int, side: str) -> str:
    """Why (space, side) is not among ``tile_targets`` for the seat whose tile is ``own``."""
    if space == 1:
        return "Space 1 never takes a spectator tile."
    if track[space - 1]:
        return f"Space {space} holds camels."
    if own is not None and own[0] == space:
        if own[1] == side:
            return f"Your tile already lies on space {space} with that side up."
        return "A tile may not be turned over in place; move it to a different space."
    if space in tiles:
        return f"Space {space} already holds a spectator tile."
    return f"Space {space} is next to another player's spectator tile."
