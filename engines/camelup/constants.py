"""Fixed numbers and names of Camel Up, 2nd edition (spec section 1)."""

from __future__ import annotations

RACING: tuple[str, ...] = ("blue", "green", "yellow", "red", "purple")
CRAZY: tuple[str, ...] = ("white", "black")
CAMELS: tuple[str, ...] = RACING + CRAZY
GREY = "grey"
#: Pyramid dice in display order: one per racing colour plus the grey die.
DICE: tuple[str, ...] = RACING + (GREY,)

SPACES = 16
#: R22: a spectator tile never goes on the start space.
TILE_SPACES: tuple[int, ...] = tuple(range(2, SPACES + 1))
#: R3: each colour's betting-ticket stack, top first.
TICKET_STACK: tuple[int, ...] = (5, 3, 2, 2)
#: R4, R27: five pyramid tickets; the fifth ends the leg.
PYRAMID_TICKETS = 5
#: R2.
START_MONEY = 3
#: R37: the k-th correct finish card pays FINISH_PAY[k - 1], 1 from the 5th on.
FINISH_PAY: tuple[int, ...] = (8, 5, 3, 2)
FINISH_PAY_LATER = 1
#: R5: partnership cards exist only with this many players or more.
PARTNERSHIP_MIN_PLAYERS = 6

CHEER = "cheer"
BOO = "boo"
SIDES: tuple[str, ...] = (CHEER, BOO)
WINNER = "winner"
LOSER = "loser"
PILES: tuple[str, ...] = (WINNER, LOSER)

#: CU-17: colour words a table may give its physical racing camels.
COLOUR_WORDS: tuple[str, ...] = ("blue", "green", "yellow", "red", "purple", "orange", "pink")


def is_racing(camel: str) -> bool:
    """
    >>> is_racing("red"), is_racing("white")
    (True, False)
    """
    return camel in RACING


def finish_pay(k: int) -> int:
    """Pay of the k-th correct finish card (k from 1).

    >>> [finish_pay(k) for k in range(1, 7)]
    [8, 5, 3, 2, 1, 1]
    """
    return FINISH_PAY[k - 1] if k <= len(FINISH_PAY) else FINISH_PAY_LATER
