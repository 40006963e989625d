"""An engine built from its package's skeleton modules (docs/architecture.md,
"A game's package"): ``apply``, the views, the result and the history lines are
handed to the modules the subclass names, so it keeps only what is its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engines.contract import Action, Engine, Event, FairHooks, Step
from engines.history import Part, Value
from engines.legality import Offers

#: Every game's last phase (each package's ``state.OVER``): nothing is offered in it.
OVER = "over"


class ActionsModule(Protocol):
    def apply(self, state: Any, action: Action, /) -> tuple[Any, list[Event]]: ...


class ViewsModule(Protocol):
    def viewer(self, state: Any, /) -> Callable[[str | None], dict[str, Any]]: ...
    def public_players(self, state: Any, /) -> dict[str, dict[str, Any]]: ...


class ResultModule(Protocol):
    def result(self, state: Any, steps: Iterable[Step], /) -> dict[str, Any] | None: ...


class DescribeModule(Protocol):
    """A game's history lines (engines/history.py): each event's line, a
    retracted sealed choice's value, and where its history breaks into groups."""

    @property
    def BREAKS(self) -> frozenset[str]: ...  # noqa: N802 (a module's constant)
    @property
    def OPENERS(self) -> Mapping[str, str]: ...  # noqa: N802
    def describe(self, event: Event, names: dict[str, str], /) -> list[Part]: ...
    def sealed(self, action: Action, events: list[Event], /) -> Value | None: ...


class SchemasModule(Protocol):
    @property
    def ACTION_SCHEMAS(self) -> dict[str, dict[str, Any]]: ...  # noqa: N802
    @property
    def RANDOM_ACTION_FIELDS(self) -> dict[str, tuple[str, ...]]: ...  # noqa: N802


class OptionsModule(Protocol):
    @property
    def OPTIONS_SCHEMA(self) -> dict[str, Any]: ...  # noqa: N802


class LegalModule(Protocol):
    @property
    def offers(self) -> Offers[Any]: ...


class StallModule(Protocol):
    def waiting(self, state: Any, /) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Modules:
    """A game package's skeleton modules (docs/architecture.md, "A game's
    package"), named once by its engine: ``SkeletonEngine`` hands the contract's
    calls to them and reads its schemas, history groups and fair hooks from them."""

    actions: ActionsModule
    views: ViewsModule
    result: ResultModule
    describe: DescribeModule
    schemas: SchemasModule
    options: OptionsModule
    fair: FairHooks
    legal: LegalModule
    stall: StallModule


class SkeletonEngine(Engine):
    """An engine whose package has the skeleton's modules (docs/architecture.md):
    the subclass names them in ``modules`` and keeps only what is its own
    (options, setup, ``legal_actions``, ``status``, draws)."""

    modules: Modules

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        m = cls.modules
        cls.options_schema = m.options.OPTIONS_SCHEMA
        cls.action_schemas = m.schemas.ACTION_SCHEMAS
        cls.random_action_fields = m.schemas.RANDOM_ACTION_FIELDS
        cls.history_breaks = m.describe.BREAKS
        cls.round_openers = m.describe.OPENERS
        cls.fair = m.fair

    def apply(self, state: Any, action: Action) -> tuple[Any, list[Event]]:
        return self.modules.actions.apply(state, action)

    def seated(self, state: Any, player: str) -> bool:
        """Whether ``player`` is one of the game's seats (``state.players``' ids)."""
        return player in state.players

    def legal_actions(self, state: Any, player: str | None) -> list[Action]:
        """The offers the handlers' own rules derive (the package's ``legal.offers``).
        Host-only ones carry ``"host": True`` (the engine does not know who the
        host is; the server filters on it)."""
        if player is None or state.phase == OVER or not self.seated(state, player):
            return []
        return self.modules.legal.offers(state, player)

    def offered(self, state: Any, player: str, host: bool) -> list[Action]:
        if state.phase == OVER or not self.seated(state, player):
            return []
        return self.modules.legal.offers.offered(state, player, host, self.host_actions)

    def waiting(self, state: Any) -> tuple[str, ...]:
        return self.modules.stall.waiting(state)

    def view(self, state: Any, player: str | None) -> dict[str, Any]:
        return self.modules.views.viewer(state)(player)

    def viewer(self, state: Any) -> Callable[[str | None], dict[str, Any]]:
        return self.modules.views.viewer(state)

    def result(self, state: Any, steps: Iterable[Step]) -> dict[str, Any] | None:
        return self.modules.result.result(state, steps)

    def public_players(self, state: Any) -> dict[str, dict[str, Any]]:
        return self.modules.views.public_players(state)

    def describe(self, event: Event, names: dict[str, str]) -> list[Part]:
        return self.modules.describe.describe(event, names)

    def describe_sealed(self, action: Action, events: list[Event]) -> Value | None:
        return self.modules.describe.sealed(action, events)
