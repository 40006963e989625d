"""Who may send what, for every game: ``dispatch``, the checks before any
game's own handler."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from engines.contract import Event, Handler, S
from engines.errors import refusal


def dispatch(
    handlers: Mapping[str, Handler[S]],
    state: S,
    action: Any,
    *,
    game: str,
    seats: Collection[str],
    over: bool,
    host_first: Collection[str] = (),
) -> tuple[S, list[Event]]:
    """Runs the handler of ``action["type"]`` after the checks every game makes,
    in this order: a known type (``bad_action``), a seated player
    (``not_seated``) and a game still running (``game_over``). Once the game
    is over, a non-host sending one of ``host_first`` hears ``not_host``
    instead (e.g. the platform's next-round button on a guest's phone)."""
    kind = action.get("type") if isinstance(action, dict) else None
    handler = handlers.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise refusal("bad_action", f"{game} has no action {kind!r}.")
    player = action.get("player")
    if not isinstance(player, str) or player not in seats:
        raise refusal("not_seated", f"{player!r} has no seat at this table.")
    if over:
        if kind in host_first and action.get("host") is not True:
            raise refusal("not_host", f"Only the host may send {kind}.")
        raise refusal("game_over")
    return handler(state, action)
