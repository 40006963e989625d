"""The castle: who stands where, what may be placed or moved, and which final
boards are possible (score-only entry)."""

from __future__ import annotations

from collections.abc import Sequence

from engines.kingup.constants import (
    CHARACTERS,
    ELIMINATED,
    INDEX,
    LEVEL_CAP,
    PLACE_LEVELS,
    PLACEMENTS,
    THRONE,
    TOP_LEVEL,
    UNPLACED,
)
from engines.kingup.state import State


def count_at(positions: Sequence[int], pos: int) -> int:
    return sum(1 for p in positions if p == pos)


def chars_at(positions: Sequence[int], pos: int) -> list[str]:
    return [c for c, p in zip(CHARACTERS, positions, strict=True) if p == pos]


def leftovers(players: int) -> int:
    """R7: characters that go to level 0 after placement.

    >>> [leftovers(n) for n in (3, 4, 5, 6)]
    [1, 1, 3, 1]
    """
    return len(CHARACTERS) - players * PLACEMENTS[players]


def level_counts(positions: Sequence[int]) -> list[int]:
    """Characters on each level 0..5 and the throne (index 6).

    >>> level_counts([0, 0, 3, THRONE, ELIMINATED, UNPLACED])
    [2, 0, 0, 1, 0, 0, 1]
    """
    counts = [0] * (THRONE + 1)
    for p in positions:
        if 0 <= p <= THRONE:
            counts[p] += 1
    return counts


def legal_placements(positions: Sequence[int]) -> list[tuple[str, int]]:
    """R6: (character, level) pairs a placement may choose."""
    counts = level_counts(positions)
    open_levels = [lv for lv in PLACE_LEVELS if counts[lv] < LEVEL_CAP]
    return [(c, lv) for c in chars_at(positions, UNPLACED) for lv in open_levels]


def target(pos: int) -> int:
    """R10: where a character on ``pos`` (0..5) moves; the throne from level 5."""
    return THRONE if pos == TOP_LEVEL else pos + 1


def _movable(pos: int, counts: Sequence[int]) -> bool:
    if not 0 <= pos <= TOP_LEVEL:
        return False
    # The throne is always empty while characters move (R10).
    return pos == TOP_LEVEL or counts[pos + 1] < LEVEL_CAP


def can_move(positions: Sequence[int], char: str) -> bool:
    return _movable(positions[INDEX[char]], level_counts(positions))


def legal_moves(positions: Sequence[int]) -> list[str]:
    counts = level_counts(positions)
    return [c for c, p in zip(CHARACTERS, positions, strict=True) if _movable(p, counts)]


def end_caps(players: int, no_each: int) -> dict[int, int]:
    """The most each position may hold when a round ends (the throne exactly 1).

    >>> end_caps(4, 3)
    {6: 1, 5: 3, 4: 4, 3: 4, 2: 4, 1: 4, 0: 1, -2: 12}
    """
    caps = {THRONE: 1}
    for level in range(TOP_LEVEL, 0, -1):
        # Level 5 keeps at most 3: the King has just left it.
        caps[level] = LEVEL_CAP - 1 if level == TOP_LEVEL else LEVEL_CAP
    caps[0] = leftovers(players)
    caps[ELIMINATED] = players * no_each
    return caps


def play_cap(pos: int) -> int | None:
    """R6, R10: the most a row holds during play; level 0 and the eliminated have no cap."""
    if pos == THRONE:
        return 1
    return LEVEL_CAP if 1 <= pos <= TOP_LEVEL else None


def board_problem(state: State, positions: Sequence[int]) -> str | None:
    """Why an entered final board (score-only mode) cannot be a round's end, if it cannot."""
    caps = end_caps(state.n, state.no_each)
    if count_at(positions, THRONE) != caps[THRONE]:
        return "Exactly one character must be on the throne: every round ends with a King."
    for level in range(1, TOP_LEVEL + 1):
        if count_at(positions, level) > caps[level]:
            return f"Level {level} holds at most {caps[level]} characters at the end of a round."
    if count_at(positions, 0) > caps[0]:
        return f"Level 0 holds at most {caps[0]} with {state.n} players (only the left-overs)."
    if count_at(positions, ELIMINATED) > caps[ELIMINATED]:
        return (f"At most {caps[ELIMINATED]} characters can be eliminated: "
                "each takes a No card.")
    return None
