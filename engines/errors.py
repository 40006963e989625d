"""The refusals every game shares: ``EngineError`` and its stable codes.

A refused action or option raises ``EngineError(code, message)``; the code is
stable (the API's ``error.code``, translated by the web), the message names the
problem for a reader of logs and tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The refusals every game shares, with their generic English message. A game
#: raises them through ``refusal`` (it may pass a message that says more); the
#: web translates each of these codes once, in ``web/i18n/*.json``, and a game's
#: own codes in its ``web/games/<game>/strings.js``.
COMMON_ERRORS: dict[str, str] = {
    "bad_action": "That is not an action of this game.",
    "not_seated": "You have no seat at this table.",
    "not_your_turn": "It is not your turn.",
    "not_host": "Only the host can do that.",
    "game_over": "The game is over.",
    "wrong_mode": "Not possible in this table's play mode.",
    "wrong_phase": "Not possible at this point of the game.",
    "no_round_waiting": "There is no next round to start now.",
    "bad_options": "These rule options do not work together.",
    # A stalled seat (``skip``, ``set_phone``): each game says when in its stall.py.
    "not_waiting": "The game is not waiting for that seat.",
    "cannot_skip": "The rules give no fair way to go on without that seat here.",
    "paper_until_reveal": "That seat's secret is on paper until the next reveal.",
    "paper_until_round_end": "That seat's secret is on paper until the round ends.",
    "paper_until_game_end": "That seat's secret is on paper until the game ends.",
}


class EngineError(ValueError):
    """A refused action or option, with a stable machine code.

    >>> e = EngineError("not_your_turn", "It is Bo's turn, not yours.")
    >>> (e.code, str(e))
    ('not_your_turn', "It is Bo's turn, not yours.")
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def refusal(code: str, message: str | None = None) -> EngineError:
    """An ``EngineError`` with one of the ``COMMON_ERRORS`` codes.

    >>> refusal("game_over").message
    'The game is over.'
    >>> refusal("not_host", "Only the host starts the next round.").code
    'not_host'
    """
    if code not in COMMON_ERRORS:
        raise KeyError(f"{code!r} is not a common error code")
    return EngineError(code, message or COMMON_ERRORS[code])


# A payload's field refused (``bad_action``) with what it must be, or None:
# the checks' shape ``engines.legality``'s rules return.


def whole(action: Mapping[str, Any], key: str, lo: int, hi: int) -> EngineError | None:
    value = action.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        return refusal("bad_action", f"{key} must be a whole number from {lo} to {hi}, not {value!r}.")
    return None


def one_of(action: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> EngineError | None:
    value = action.get(key)
    if value not in allowed:
        return refusal("bad_action", f"{key} must be one of {', '.join(allowed)}, not {value!r}.")
    return None
