"""Stateful property tests for every registered engine (Hypothesis state machines).

Random sequences of legal and illegal actions from random seats, with the host
flag right and wrong, unknown types, wrong-phase actions and payloads that pass
the JSON schema but not the rules. Properties:

- a refused action raises ``EngineError`` with a snake_case code (the same code
  when sent again) and leaves the state byte-identical;
- a host-only action (``engine.host_actions``) sent with ``host: False`` is refused,
  with ``not_host`` whenever the host would have been allowed;
- ``draw`` never raises and never mutates; ``apply`` never mutates its input;
- after every accepted action: ``load(dump(s)) == s`` through JSON, every view
  (each seat and the spectator) and ``public_players`` serialize, ``status()`` is
  well formed (round never goes back, ``over`` stays over), events serialize and
  describe themselves in both languages, and the engine's own ``check_invariants``
  holds when its package exposes one.

Candidate illegal actions are mutations of legal ones; a mutation that turns out
to be legal is applied and checked like any legal action. Every failure message
ends with the exact reproduction: seats, options and the accepted action log.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from jsonschema import Draft202012Validator

from engines import registry
from engines.base import Engine, EngineError
from server.errors import ServiceError
from server.service import host_filter, schemas
from tests.toy_engine import TOY
from tests.words import check_parts

SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
# Types no engine may know: platform actions, near misses, junk.
UNKNOWN_TYPES = ("no_such_action", "start", "undo", "seats", "host", "", "Next_Round",
                 "next-round", "__init__", "apply", "type")
# No shrinking: long play-outs shrink for minutes, and every failure message already
# carries the exact reproduction (seats, options, accepted actions, the failing one).
# TABLEMATE_FUZZ_EXAMPLES=1000 runs a deeper search locally.
SETTINGS = settings(
    max_examples=int(os.environ.get("TABLEMATE_FUZZ_EXAMPLES", "40")), stateful_step_count=50,
    deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)

_VALIDATORS: dict[int, Draft202012Validator] = {}


def valid(schema: dict[str, Any], value: Any) -> bool:
    v = _VALIDATORS.get(id(schema))
    if v is None:
        v = _VALIDATORS[id(schema)] = Draft202012Validator(schema)
    return v.is_valid(value)


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, allow_nan=False)


# -- values from JSON Schemas ---------------------------------------------------------

_ANY_JSON = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4))


def from_schema(schema: dict[str, Any], strings: tuple[str, ...] = ()) -> st.SearchStrategy[Any]:
    """Values for the subset of JSON Schema the engines use. Mostly valid, not
    always (``oneOf``, ``uniqueItems``): callers check with ``valid``.
    ``strings`` are likely string values (seat ids) mixed into free text."""
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, strings) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, strings) for k in kind])
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else None
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum", -10**6), schema.get("maximum", 10**6))
    if kind == "string":
        lo, hi = schema.get("minLength", 0), min(schema.get("maxLength", 12), 12)
        text = st.text(min_size=lo, max_size=max(lo, hi))
        hints = [s for s in strings if lo <= len(s) <= schema.get("maxLength", 10**6)]
        return st.one_of(st.sampled_from(hints), text) if hints else text
    if kind == "array":
        return _array(schema, strings)
    if kind == "object":
        return _object(schema, strings)
    return _ANY_JSON


def _array(schema: dict[str, Any], strings: tuple[str, ...]) -> st.SearchStrategy[Any]:
    prefix = [from_schema(s, strings) for s in schema.get("prefixItems", [])]
    items = schema.get("items", {})
    lo = max(schema.get("minItems", 0) - len(prefix), 0)
    hi = max(min(schema.get("maxItems", lo + len(prefix) + 5) - len(prefix), lo + 5), lo)
    rest: st.SearchStrategy[list[Any]] = st.just([])
    if items is not False:
        rest = st.lists(from_schema(items, strings) if items else _ANY_JSON, min_size=lo,
                        max_size=hi, unique_by=canon if schema.get("uniqueItems") else None)
    return st.tuples(st.tuples(*prefix), rest).map(lambda pr: [*pr[0], *pr[1]])


def _object(schema: dict[str, Any], strings: tuple[str, ...]) -> st.SearchStrategy[Any]:
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    fixed = st.fixed_dictionaries(
        {k: from_schema(s, strings) for k, s in props.items() if k in required},
        optional={k: from_schema(s, strings) for k, s in props.items() if k not in required},
    )
    extra = schema.get("additionalProperties")
    if not isinstance(extra, dict):
        return fixed
    keys = st.sampled_from(strings) if strings else st.text(max_size=6)
    more = st.dictionaries(keys, from_schema(extra, strings), max_size=3)
    return st.tuples(fixed, more).map(lambda fm: {**fm[1], **fm[0]})


# -- the machine --------------------------------------------------------------------


def own_invariants(engine: Engine) -> Any:
    """The engine's ``check_invariants(state)``, on the engine or its package."""
    found = getattr(engine, "check_invariants", None)
    if found is None:
        package = importlib.import_module(type(engine).__module__.rsplit(".", 1)[0])
        found = getattr(package, "check_invariants", None)
    return found


class EngineMachine(RuleBasedStateMachine):
    engine: Engine

    # -- setup ----------------------------------------------------------------------

    @initialize(data=st.data(), rng=st.randoms(use_true_random=False))
    def open_table(self, data: st.DataObject, rng: Any) -> None:
        e = self.engine
        self.rng = rng
        self.checker = own_invariants(e)
        defaults = e.normalize_options(schemas.options_with_defaults(e, {}))
        options = self._random_options(data) or defaults
        lo, hi = e.player_limits(options)
        n = data.draw(st.integers(lo, min(hi, 8)), label="seats")
        # Seat ids as the server makes them, with gaps (removed seats) and any order.
        ids = data.draw(st.lists(st.integers(1, n + 3), min_size=n, max_size=n, unique=True),
                        label="seat numbers")
        self.players = [f"p{i}" for i in ids]
        self.host = data.draw(st.sampled_from(self.players), label="host")
        try:
            options = e.draw_setup(self.players, options, rng)
            self.state = e.setup(self.players, options)
        except EngineError as exc:
            # Options valid alone but not for this seat count: the server refuses the
            # start with this code; play the defaults instead.
            assert SNAKE.match(exc.code), exc.code
            lo, hi = e.player_limits(defaults)
            self.players = self.players[:max(lo, min(hi, len(self.players)))]
            while len(self.players) < lo:
                self.players.append(f"p{100 + len(self.players)}")
            self.host = self.players[0]
            options = e.draw_setup(self.players, defaults, rng)
            self.state = e.setup(self.players, options)
        self.options = options
        self.log: list[dict[str, Any]] = []
        self.status = e.status(self.state)
        self.check_state()

    def _random_options(self, data: st.DataObject) -> dict[str, Any] | None:
        """Some options changed to random schema-valid values; None when the
        server would refuse them (then the test plays the defaults)."""
        e = self.engine
        chosen: dict[str, Any] = {}
        for name, prop in e.options_schema.get("properties", {}).items():
            if name in e.random_option_fields or not data.draw(st.booleans(), label=f"set {name}"):
                continue
            value = data.draw(from_schema(prop), label=name)
            if valid(prop, value):
                chosen[name] = value
        try:
            options = schemas.options_with_defaults(e, chosen)
            return e.normalize_options(options)
        except ServiceError:
            return None
        except EngineError as exc:
            assert exc.code == "bad_options", f"normalize_options({chosen}) raised {exc.code}"
            return None

    # -- candidates -----------------------------------------------------------------

    def legal_pairs(self) -> list[tuple[str, dict[str, Any]]]:
        e = self.engine
        return [(p, t) for p in self.players
                for t in host_filter(e, e.legal_actions(self.state, p), p == self.host)]

    def pick_legal(self, data: st.DataObject) -> dict[str, Any] | None:
        """A complete legal action of a random seat (``sample`` fills free input)."""
        pairs = self.legal_pairs()
        while pairs:
            i = data.draw(st.integers(0, len(pairs) - 1), label="legal choice")
            player, template = pairs.pop(i)
            action = self.engine.sample(self.state, player, template, self.rng)
            if action is None or not self.schema_ok(action):
                continue  # free input only a person can give: the server would see it complete
            return {**action, "player": player, "host": player == self.host}
        return None

    def schema_ok(self, action: dict[str, Any]) -> bool:
        schema = self.engine.action_schemas.get(action["type"])
        payload = {k: v for k, v in action.items() if k not in ("type", "player", "host")}
        return schema is not None and valid(schema, payload)

    def strings(self) -> tuple[str, ...]:
        return (*self.players, "p0", "p999", "")

    # -- rules ----------------------------------------------------------------------

    @rule(data=st.data())
    def play_legal(self, data: st.DataObject) -> None:
        action = self.pick_legal(data)
        if action is not None:
            self.attempt(action, legal=True)

    @rule(data=st.data(), steps=st.integers(1, 40))
    def play_legal_run(self, data: st.DataObject, steps: int) -> None:
        # Long runs reach later rounds and the end of the game within the step budget.
        for _ in range(steps):
            action = self.pick_legal(data)
            if action is None:
                return
            self.attempt(action, legal=True)

    @rule(data=st.data())
    def wrong_seat(self, data: st.DataObject) -> None:
        action = self.pick_legal(data)
        if action is None:
            return
        other = data.draw(st.sampled_from(self.players), label="sent by")
        self.attempt({**action, "player": other, "host": other == self.host})

    @rule(data=st.data())
    def wrong_host_flag(self, data: st.DataObject) -> None:
        action = self.pick_legal(data)
        if action is not None:
            self.attempt({**action, "host": not action["host"]})

    @rule(data=st.data())
    def unknown_type(self, data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from([t for t in UNKNOWN_TYPES if t not in self.engine.action_schemas]),
                         label="type")
        player = data.draw(st.sampled_from(self.players), label="player")
        # The server never lets one through; the engine must still refuse it, as
        # bad_action (game_over may come first once the game has ended).
        codes = {"bad_action", "game_over"} if self.status["over"] else {"bad_action"}
        self.attempt({"type": kind, "player": player, "host": data.draw(st.booleans(), label="host")},
                     codes=codes)

    @rule(data=st.data())
    def any_schema_valid_action(self, data: st.DataObject) -> None:
        """Any type, any payload the server's schema check lets through (random
        outcome fields included, as with fixed random), from any seat."""
        e = self.engine
        kind = data.draw(st.sampled_from(sorted(e.action_schemas)), label="type")
        payload = data.draw(from_schema(e.action_schemas[kind], self.strings()), label="payload")
        if not valid(e.action_schemas[kind], payload):
            return
        player = data.draw(st.sampled_from(self.players), label="player")
        host = data.draw(st.sampled_from([player == self.host, player != self.host]), label="host")
        self.attempt({**payload, "type": kind, "player": player, "host": host})

    @rule(data=st.data())
    def altered_field(self, data: st.DataObject) -> None:
        """A legal action with one payload field replaced, added or dropped."""
        action = self.pick_legal(data)
        if action is None:
            return
        schema = self.engine.action_schemas[action["type"]]
        fields = sorted(schema.get("properties", {}))
        if not fields:
            return
        name = data.draw(st.sampled_from(fields), label="field")
        altered = dict(action)
        if name in altered and data.draw(st.integers(0, 3), label="drop") == 0:
            del altered[name]
        else:
            altered[name] = data.draw(from_schema(schema["properties"][name], self.strings()), label="value")
        if self.schema_ok(altered):
            self.attempt(altered)

    @rule(data=st.data())
    def hand_over_host(self, data: st.DataObject) -> None:
        # The platform's "host" action: the engine only ever sees the flag move.
        self.host = data.draw(st.sampled_from(self.players), label="new host")

    # -- checks ---------------------------------------------------------------------

    def repro(self, action: dict[str, Any] | None = None) -> str:
        lines = [f"engine={self.engine.name} players={self.players}",
                 f"options={canon(self.options)}",
                 "accepted actions (apply in order to setup(players, options)):",
                 *(f"  {canon(a)}" for a in self.log)]
        if action is not None:
            lines.append(f"then: {canon(action)}")
        return "\n".join(lines)

    def attempt(self, action: dict[str, Any], legal: bool = False, codes: set[str] | None = None) -> None:
        """Draws and applies ``action``. ``legal``: it must be accepted; ``codes``: it
        must be refused with one of them. Otherwise either outcome is checked."""
        e = self.engine
        before, snapshot = canon(e.dump(self.state)), copy.deepcopy(self.state)
        try:
            drawn = e.draw(self.state, action, self.rng)
        except Exception as exc:  # the contract: draw never raises
            pytest.fail(f"draw raised {type(exc).__name__}: {exc}\n{self.repro(action)}")
        assert canon(e.dump(self.state)) == before, f"draw mutated the state\n{self.repro(action)}"
        if action["type"] in e.action_schemas:
            assert self.schema_ok(drawn), f"draw produced a payload its schema refuses: {drawn}"
        must_refuse = codes is not None or (action["type"] in e.host_actions and not action["host"])
        try:
            new_state, events = e.apply(self.state, drawn)
        except EngineError as exc:
            self.check_refusal(drawn, exc, before, snapshot, legal, codes)
            return
        except Exception as exc:
            pytest.fail(f"apply crashed: {type(exc).__name__}: {exc}\n{self.repro(drawn)}")
        assert not must_refuse, f"accepted what must be refused\n{self.repro(drawn)}"
        assert canon(e.dump(self.state)) == before and self.state == snapshot, (
            f"apply mutated its input\n{self.repro(drawn)}")
        self.log.append(drawn)
        self.check_events(events, drawn)
        self.state = new_state
        self.check_state(drawn)

    def check_refusal(self, action: dict[str, Any], exc: EngineError, before: str, snapshot: Any,
                      legal: bool, codes: set[str] | None) -> None:
        e = self.engine
        where = self.repro(action)
        assert not legal, f"a legal action was refused: {exc.code} {exc.message}\n{where}"
        assert isinstance(exc.code, str) and SNAKE.match(exc.code), f"code {exc.code!r}\n{where}"
        assert isinstance(exc.message, str) and exc.message.strip(), f"empty message\n{where}"
        assert canon(e.dump(self.state)) == before and self.state == snapshot, (
            f"refused {exc.code} but changed the state\n{where}")
        if codes is not None:
            assert exc.code in codes, f"expected {sorted(codes)}, got {exc.code}\n{where}"
        try:
            e.apply(self.state, action)
        except EngineError as again:
            assert again.code == exc.code, f"refused as {exc.code}, then as {again.code}\n{where}"
        else:
            pytest.fail(f"refused ({exc.code}), then accepted the same action\n{where}")
        if action["type"] in e.host_actions and not action["host"]:
            try:
                e.apply(self.state, {**action, "host": True})
            except EngineError:
                pass
            else:
                assert exc.code == "not_host", f"host-only refusal is {exc.code}, not not_host\n{where}"

    def check_events(self, events: Any, action: dict[str, Any]) -> None:
        assert isinstance(events, list), f"events must be a list\n{self.repro(action)}"
        canon(events)
        names = {p: f"Name {p}" for p in self.players}
        for ev in events:
            assert isinstance(ev, dict) and isinstance(ev.get("type"), str), ev
            check_parts(self.engine.describe(ev, names))

    def check_state(self, action: dict[str, Any] | None = None) -> None:
        e, s = self.engine, self.state
        where = self.repro()
        data = e.dump(s)
        text = canon(data)
        again = e.load(json.loads(text))
        assert again == s, f"load(dump(s)) != s\n{where}"
        assert canon(e.dump(again)) == text, f"dump is not stable across a round trip\n{where}"
        for viewer in (None, *self.players):
            view = e.view(s, viewer)
            assert isinstance(view, dict), f"view({viewer}) is {type(view).__name__}"
            canon(view)
        public = e.public_players(s)
        assert isinstance(public, dict) and set(public) <= set(self.players), public
        assert all(isinstance(v, dict) for v in public.values()), public
        canon(public)
        status = e.status(s)
        assert isinstance(status, dict) and set(status) >= {"round", "over"}, status
        assert type(status["round"]) is int and status["round"] >= 0, status
        assert type(status["over"]) is bool, status
        assert status["round"] >= self.status["round"], f"round went back: {status}\n{where}"
        assert status["over"] or not self.status["over"], f"a finished game resumed\n{where}"
        self.status = status
        assert e.legal_actions(s, None) == [], "the spectator may not act"
        for p in self.players:
            for t in e.legal_actions(s, p):
                assert isinstance(t, dict) and t.get("type") in e.action_schemas, t
        if self.checker is not None:
            self.checker(s)


def machine_for(engine: Engine) -> type[EngineMachine]:
    return type(f"{engine.name.title()}Machine", (EngineMachine,), {"engine": engine})


# Every registered game (a new one joins by registering), plus the platform's toy.
ENGINES: list[Engine] = [TOY, *(e for n in registry.names() if (e := registry.get(n)) is not None)]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_engine_state_machine(engine: Engine) -> None:
    run_state_machine_as_test(machine_for(engine), settings=SETTINGS)
