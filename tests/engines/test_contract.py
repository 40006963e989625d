"""One contract test for every engine: random legal play-outs through the API
the server uses (schemas, draw, apply, view, dump/load)."""

from __future__ import annotations

import copy
import json
import random

import pytest
from jsonschema import Draft202012Validator

from engines import registry
from engines.base import Engine, EngineError
from server.service import schemas
from tests.engines.driver import legal_choices
from tests.toy_engine import TOY

ENGINES: list[Engine] = [TOY, *(registry.get(n) for n in registry.names())]
RESERVED = {"type", "player", "host"}


@pytest.fixture(params=ENGINES, ids=lambda e: e.name)
def engine(request) -> Engine:
    return request.param


def test_schemas_are_valid_and_complete(engine: Engine) -> None:
    Draft202012Validator.check_schema(engine.options_schema)
    assert engine.options_schema.get("additionalProperties") is False
    for name, prop in engine.options_schema["properties"].items():
        assert "default" in prop or name in engine.random_option_fields, f"option {name} needs a default"
    for atype, schema in engine.action_schemas.items():
        Draft202012Validator.check_schema(schema)
        assert schema.get("additionalProperties") is False, atype
        assert not RESERVED & set(schema.get("properties", {})), f"{atype} may not define {RESERVED}"
        assert atype not in schemas.PLATFORM_ACTIONS, f"{atype} is a platform action"
    for atype, fields in engine.random_action_fields.items():
        assert set(fields) <= set(engine.action_schemas[atype]["properties"]), atype
    assert set(engine.title) == {"ko", "en"}


def play_out(engine: Engine, seed: int, n_players: int, max_steps: int = 3000) -> tuple[object, int]:
    rng = random.Random(seed)
    options = schemas.options_with_defaults(engine, {})
    options = engine.normalize_options(options)
    lo, hi = engine.player_limits(options)
    n = min(max(n_players, lo), hi)
    players = [f"p{i + 1}" for i in range(n)]
    options = engine.draw_setup(players, options, rng)
    state = engine.setup(players, options)
    steps = 0
    for steps in range(max_steps):  # noqa: B007  (returned: how far the game got)
        if engine.status(state)["over"]:
            break
        choices = legal_choices(engine, state, players, rng)
        assert choices, f"{engine.name} seed {seed}: nobody can act and the game is not over"
        player, template = rng.choice(choices)
        action = {**template, "player": player, "host": player == players[0]}
        action = engine.draw(state, action, rng)
        before = json.dumps(engine.dump(state), sort_keys=True)
        snapshot = copy.deepcopy(state)
        try:
            new_state, events = engine.apply(state, action)
        except EngineError as exc:  # a listed action must be accepted
            pytest.fail(f"{engine.name} seed {seed}: legal {action} refused: {exc.code} {exc}")
        assert json.dumps(engine.dump(state), sort_keys=True) == before, "apply mutated its input"
        assert state == snapshot
        json.dumps(events)
        names = {p: p.upper() for p in players}
        for ev in events:
            for lang in ("ko", "en"):
                assert isinstance(engine.describe(ev, lang, names), str)
        state = new_state
        assert engine.load(json.loads(json.dumps(engine.dump(state)))) == state
        # One viewer builds every seat's view of a push (shared fields once):
        # each equals a view built alone, and none alters what another shares
        # (all are compared after all were built, spectators among them).
        seats = (*players, None, *reversed(players), "not_seated")
        viewer = engine.viewer(state)
        together = [viewer(p) for p in seats]
        assert json.dumps(together) == json.dumps([engine.view(state, p) for p in seats])
        json.dumps(engine.public_players(state))
    return state, steps


@pytest.mark.parametrize("seed", range(12))
def test_random_play_outs_terminate_and_round_trip(engine: Engine, seed: int) -> None:
    state, steps = play_out(engine, seed, n_players=3 + seed % 4)
    assert engine.status(state)["over"], f"{engine.name} seed {seed} did not end in {steps} steps"
    result = engine.view(state, None).get("result")
    assert result is not None and result["winners"], "a finished game names its winners"


def test_illegal_actions_leave_state_untouched(engine: Engine) -> None:
    options = engine.normalize_options(schemas.options_with_defaults(engine, {}))
    lo, _ = engine.player_limits(options)
    players = [f"p{i + 1}" for i in range(max(lo, 3))]
    options = engine.draw_setup(players, options, random.Random(1))
    state = engine.setup(players, options)
    before = json.dumps(engine.dump(state), sort_keys=True)
    for action in ({"type": "no_such_action", "player": "p1", "host": True},
                   {"type": "next_round", "player": "p2", "host": False}):
        if action["type"] == "next_round" and "next_round" not in engine.action_schemas:
            continue
        with pytest.raises(EngineError) as exc:
            engine.apply(state, action)
        assert exc.value.code and exc.value.code.replace("_", "").isalpha()
        assert json.dumps(engine.dump(state), sort_keys=True) == before
