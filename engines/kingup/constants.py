"""Fixed numbers and names of King Up! (spec section 1 and R1-R24)."""

from __future__ import annotations

#: The 13 courtiers, by the spec's IDs; display names are options (KU-15).
CHARACTERS: tuple[str, ...] = tuple("ABCDEFGHIJKLM")
INDEX: dict[str, int] = {c: i for i, c in enumerate(CHARACTERS)}

#: Positions are small ints so a board is a tuple of 13 ints, indexed like CHARACTERS.
UNPLACED = -1
ELIMINATED = -2
THRONE = 6
TOP_LEVEL = 5
#: R6: placement only on levels 1..4.
PLACE_LEVELS: tuple[int, ...] = (1, 2, 3, 4)
#: R6, R10: levels 1..5 hold at most 4; level 0 needs no cap (KU-10), the throne 1.
LEVEL_CAP = 4
THRONE_POINTS = 10

MIN_PLAYERS = 3
MAX_PLAYERS = 6
#: R3 / KU-2: No cards each, by player count (the default of ``noCardsPerPlayer``).
NO_CARDS: dict[int, int] = {3: 4, 4: 3, 5: 2, 6: 2}
#: R7: characters each player places, by player count.
PLACEMENTS: dict[int, int] = {3: 4, 4: 3, 5: 2, 6: 2}
#: KU-3: the virtual deck has 26 cards, dealt without replacement (KU-13).
DECK_SIZE = 26

YES = "yes"
NO = "no"
VOTES: tuple[str, ...] = (YES, NO)


def value(pos: int) -> int:
    """R19: points of a character at ``pos``.

    >>> [value(p) for p in (THRONE, 5, 4, 3, 2, 1, 0, ELIMINATED, UNPLACED)]
    [10, 5, 4, 3, 2, 1, 0, 0, 0]
    """
    if pos == THRONE:
        return THRONE_POINTS
    return pos if 0 <= pos <= TOP_LEVEL else 0


def pos_label(pos: int) -> int | str | None:
    """A position as the API shows it: a level number, ``"throne"``, ``"eliminated"``
    or ``None`` (not yet placed).

    >>> [pos_label(p) for p in (3, THRONE, ELIMINATED, UNPLACED)]
    [3, 'throne', 'eliminated', None]
    """
    if pos == THRONE:
        return "throne"
    if pos == ELIMINATED:
        return "eliminated"
    if pos == UNPLACED:
        return None
    return pos


def _card(base: tuple[int, ...], shift: int) -> tuple[str, ...]:
    return tuple(sorted(CHARACTERS[(b + shift) % 13] for b in base))


#: KU-3: the invented, non-canonical deck. Card i is {0,1,2,3,5,9}+i and card 13+i is
#: {0,1,3,6,7,11}+i (mod 13); two difference sets, so every pair shares exactly 5 cards.
DECK: tuple[tuple[str, ...], ...] = tuple(_card((0, 1, 2, 3, 5, 9), i) for i in range(13)) + tuple(
    _card((0, 1, 3, 6, 7, 11), i) for i in range(13)
)
