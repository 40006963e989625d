"""One contract test for every engine: random legal play-outs through the API
the server uses (schemas, draw, apply, view, dump/load)."""

from __future__ import annotations

import copy
import json
import random

import pytest
from jsonschema import Draft202012Validator

from engines import registry
from engines.base import PAPER_UNTIL, Engine, EngineError
from engines.history import part
from server.service import platform_actions, schemas
from tests.engines.driver import legal_choices
from tests.engines.twins import twins
from tests.toy_engine import TOY
from tests.words import check_parts

GAMES: list[Engine] = [e for n in registry.names() if (e := registry.get(n)) is not None]
ENGINES: list[Engine] = [TOY, *GAMES]
RESERVED = {"type", "player", "host"}
#: The host's tools for a stalled phone (engines/base.py): every game has them.
STALL = ("set_phone", "skip")


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
        assert atype not in platform_actions.ACTIONS, f"{atype} is a platform action"
    for atype, fields in engine.random_action_fields.items():
        assert set(fields) <= set(engine.action_schemas[atype]["properties"]), atype
    assert set(engine.title) == {"ko", "en"}
    if engine in GAMES:
        for atype in ("set_paper", *STALL):
            assert atype in engine.action_schemas and atype in engine.host_actions, atype
            assert engine.action_schemas[atype]["required"] == ["seat"]


def stall_templates(engine: Engine, state: object, host: str) -> list[dict]:
    return [t for t in engine.legal_actions(state, host) if t["type"] in STALL]


def check_stall(engine: Engine, state: object, players: list[str]) -> None:
    """``waiting`` names seats in seat order (nobody once the game is over); every
    game's views carry it and ``paper_until``; the host's ``set_phone`` and
    ``skip`` templates are exactly the ones accepted, and every seat on paper has
    either one or a ``paper_until`` refusal that says the same."""
    waiting = engine.waiting(state)
    assert isinstance(waiting, tuple) and len(set(waiting)) == len(waiting), waiting
    order = [players.index(p) for p in waiting]
    assert order == sorted(order), waiting
    over = engine.status(state)["over"]
    assert not over or waiting == ()
    if engine not in GAMES:
        return
    paper = engine.paper_seats(state)
    until = engine.view(state, None)["paper_until"]
    for viewer in (None, *players):
        view = engine.view(state, viewer)
        assert view["waiting"] == list(waiting) and view["paper_until"] == until
    assert set(until) <= set(paper) and set(until.values()) <= set(PAPER_UNTIL.values())
    host = next(p for p in players if p not in paper)
    templates = stall_templates(engine, state, host)
    phones = {t["seat"] for t in templates if t["type"] == "set_phone"}
    skips = {t["seat"] for t in templates if t["type"] == "skip"}
    assert all(t["host"] is True for t in templates) and skips <= set(waiting)
    if over:
        return
    assert phones | set(until) == set(paper) and not phones & set(until)
    for t in templates:
        engine.apply(state, {**t, "player": host, "host": True})  # accepted
    for seat, when in until.items():
        with pytest.raises(EngineError) as refused:
            engine.apply(state, {"type": "set_phone", "seat": seat, "player": host, "host": True})
        assert refused.value.code == f"paper_until_{when}"
    for seat in set(waiting) - skips:
        with pytest.raises(EngineError) as refused:
            engine.apply(state, {"type": "skip", "seat": seat, "player": host, "host": True})
        assert refused.value.code in ("cannot_skip", "wrong_phase"), refused.value.code


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
            check_parts(engine.describe(ev, names))
        # A sealed choice, once an undo took it back, ends its line in the phone's words.
        sealed = engine.describe_sealed(action, events) if action["type"] in engine.sealed_choices else None
        if sealed is not None:
            check_parts([part("history.retracted", line="", value=sealed)])
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
        check_stall(engine, state, players)
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


@pytest.fixture(params=GAMES, ids=lambda e: e.name)
def game(request) -> Engine:
    return request.param


@pytest.mark.parametrize("seed", range(6))
def test_seats_going_on_and_off_paper_and_skipped_read_no_secret(game: Engine, seed: int) -> None:
    """Random games where the host now and then makes a seat phoneless (the host
    keeps its phone) and takes every ``set_phone`` and ``skip`` it is offered at
    random, as any template: each is accepted, the game ends, and ``waiting``,
    ``paper_until`` and the host's templates read no secret (equal for every
    secret twin of the state)."""
    rng = random.Random(seed)
    options = game.normalize_options(schemas.options_with_defaults(game, {}))
    lo, hi = game.player_limits(options)
    players = [f"p{i + 1}" for i in range(min(max(3 + seed % 3, lo), hi))]
    state = game.setup(players, game.draw_setup(players, options, rng))
    twinned = 0
    for _ in range(3000):
        if game.status(state)["over"]:
            break
        check_stall(game, state, players)
        public = (game.waiting(state), game.view(state, None)["paper_until"],
                  stall_templates(game, state, players[0]))
        for twin in twins(game.name, state, rng):
            assert (game.waiting(twin), game.view(twin, None)["paper_until"],
                    stall_templates(game, twin, players[0])) == public
            twinned += 1
        phoned = [p for p in players[1:] if p not in game.paper_seats(state)]
        if phoned and rng.random() < 0.03:
            action = {"type": "set_paper", "seat": rng.choice(phoned), "player": players[0], "host": True}
        else:
            player, template = rng.choice(legal_choices(game, state, players, rng))
            action = game.draw(state, {**template, "player": player, "host": player == players[0]}, rng)
        try:
            state, _ = game.apply(state, action)
        except EngineError as exc:
            pytest.fail(f"{game.name} seed {seed}: {action} refused: {exc.code} {exc}")
    assert game.status(state)["over"], f"{game.name} seed {seed} did not end"
    assert twinned > 0
