"""An engine built from its package's skeleton modules (docs/architecture.md,
"A game's package"): ``apply``, the views, the result and the history lines are
handed to the modules the subclass names, so it keeps only what is its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from engines.contract import Action, Engine, Event, Step
from engines.history import Part


@dataclass(frozen=True)
class Modules:
    """The functions of a game package's skeleton modules that its engine hands on:
    ``actions.apply``, ``views.viewer``, ``views.public_players``, ``result.result``,
    ``describe.describe``."""

    apply: Callable[[Any, Action], tuple[Any, list[Event]]]
    viewer: Callable[[Any], Callable[[str | None], dict[str, Any]]]
    public_players: Callable[[Any], dict[str, dict[str, Any]]]
    result: Callable[[Any, Iterable[Step]], dict[str, Any] | None]
    describe: Callable[[Event, dict[str, str]], list[Part]]


class SkeletonEngine(Engine):
    """An engine whose package has the skeleton's modules (docs/architecture.md):
    the subclass names them in ``modules`` and keeps only what is its own
    (options, setup, ``legal_actions``, ``status``, draws)."""

    modules: Modules

    def apply(self, state: Any, action: Action) -> tuple[Any, list[Event]]:
        return self.modules.apply(state, action)

    def view(self, state: Any, player: str | None) -> dict[str, Any]:
        return self.modules.viewer(state)(player)

    def viewer(self, state: Any) -> Callable[[str | None], dict[str, Any]]:
        return self.modules.viewer(state)

    def result(self, state: Any, steps: Iterable[Step]) -> dict[str, Any] | None:
        return self.modules.result(state, steps)

    def public_players(self, state: Any) -> dict[str, dict[str, Any]]:
        return self.modules.public_players(state)

    def describe(self, event: Event, names: dict[str, str]) -> list[Part]:
        return self.modules.describe(event, names)
