"""One test driver for every engine: actions built, drawn and applied the way
the server does, refusals checked to change nothing, views checked to be JSON.

Scenario tests use ``step``/``refuse`` on a state they built, or a ``Table``
that carries the state along; each game's conftest adds its own shorthands.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engines.base import Action, Engine, EngineError, Event
from server.service.snapshot import host_filter


def action(kind: str, player: str, host: bool = False, **payload: Any) -> Action:
    """An action as the server hands it to ``apply``."""
    return {"type": kind, "player": player, "host": host, **payload}


def step(
    engine: Engine,
    state: Any,
    kind: str,
    player: str,
    host: bool = False,
    rng: random.Random | None = None,
    **payload: Any,
) -> tuple[Any, list[Event]]:
    """``draw`` (when given an ``rng``) then ``apply`` one action."""
    act = action(kind, player, host, **payload)
    if rng is not None:
        act = engine.draw(state, act, rng)
    return engine.apply(state, act)


def refuse(
    engine: Engine, state: Any, code: str, kind: str, player: str, host: bool = False,
    **payload: Any,
) -> str:
    """Asserts that the action is refused with ``code`` and a message, and that
    the state is unchanged; returns the message."""
    before = engine.dump(state)
    with pytest.raises(EngineError) as info:
        engine.apply(state, action(kind, player, host, **payload))
    assert info.value.code == code, info.value.message
    assert info.value.message
    assert engine.dump(state) == before
    return info.value.message


def option_defaults(engine: Engine) -> dict[str, Any]:
    """Asserts the options schema is valid, gives every option a default and
    accepts the defaults; returns them."""
    Draft202012Validator.check_schema(engine.options_schema)
    props = engine.options_schema["properties"]
    assert all("default" in p for p in props.values())
    defaults = {k: p["default"] for k, p in props.items()}
    Draft202012Validator(engine.options_schema).validate(defaults)
    return defaults


def view(engine: Engine, state: Any, player: str | None) -> dict[str, Any]:
    """``engine.view``, checked to be plain JSON."""
    v = engine.view(state, player)
    json.dumps(v)
    return v


class Table:
    """A started game (options as given: no ``draw_setup``) whose ``state``
    moves on with every action, drawn with a seeded ``rng`` like the server draws. ``host`` names the seat that holds
    host powers by default (None: no seat does unless an action says so)."""

    def __init__(
        self,
        engine: Engine,
        players: Sequence[str],
        options: dict[str, Any] | None = None,
        seed: int = 0,
        host: str | None = None,
    ) -> None:
        self.engine = engine
        self.players = list(players)
        self.host = host
        self.rng = random.Random(seed)
        self.state: Any = engine.setup(self.players, engine.normalize_options(dict(options or {})))
        self.events: list[Event] = []
        #: The game so far as ``Engine.result`` replays it: setup, then each action.
        self.steps: list[tuple[Any, list[Event]]] = [(self.state, [])]

    def _host(self, player: str, host: bool | None) -> bool:
        return (player == self.host) if host is None else host

    def play(self, kind: str, player: str, host: bool | None = None, **payload: Any) -> list[Event]:
        """Applies one action and returns its events (also kept in ``events``)."""
        self.state, events = step(
            self.engine, self.state, kind, player, self._host(player, host), self.rng, **payload
        )
        self.events += events
        self.steps.append((self.state, events))
        return events

    def refuse(
        self, code: str, kind: str, player: str, host: bool | None = None, **payload: Any
    ) -> str:
        return refuse(
            self.engine, self.state, code, kind, player, self._host(player, host), **payload
        )

    def view(self, player: str | None) -> dict[str, Any]:
        return view(self.engine, self.state, player)


def valid_payload(engine: Engine, action: Action) -> bool:
    """Whether ``action``'s payload passes its type's schema, as a phone's must."""
    schema = engine.action_schemas.get(action["type"])
    if schema is None:
        return False
    payload = {k: v for k, v in action.items() if k != "type"}
    return not list(Draft202012Validator(schema).iter_errors(payload))


def legal_choices(engine: Engine, state: Any, players: Sequence[str],
                  rng: random.Random) -> list[tuple[str, Action]]:
    """Every seat's legal actions now, completed by the engine's ``sample`` and
    valid by their schemas. ``players[0]`` is the host: the server drops host
    actions from other seats' lists. The contract test's play-outs and
    bench/codec.py choose from these."""
    choices = []
    for p in players:
        for template in host_filter(engine, engine.legal_actions(state, p), p == players[0]):
            act = engine.sample(state, p, template, rng)
            if act is not None and valid_payload(engine, act):
                choices.append((p, act))
    return choices
