"""The Rng the server will pass to the engines (``OutcomeRng``) does all their
draws (``draw_setup``, ``draw``, ``sample``): whole random games of every
engine drawn through it, one outcome index per action, give a proof whose
every outcome checks, and every random field of an action is the result of
one of its draws."""

from __future__ import annotations

import random

import pytest

from engines import registry
from engines.base import Engine
from server.service import schemas
from tablemate_verify import add_seed, check, keep, open_scope, publish, rng_for
from tests.engines.driver import legal_choices

SEEDS = ["c3" * 32, "d4" * 32]
# Options under which each game draws during play: King Up deals its goal cards.
DRAWING = {"kingup": {"goalCardMode": "deal"}}


@pytest.mark.parametrize("name", registry.names())
@pytest.mark.parametrize("seed", range(3))
def test_whole_games_draw_through_outcome_rngs(name: str, seed: int) -> None:
    engine = registry.get(name)
    assert isinstance(engine, Engine)
    choose = random.Random(seed)
    players = [f"p{i + 1}" for i in range(4)]
    setup, play = open_scope(f"t/g{seed}/setup"), open_scope(f"t/g{seed}/game")
    for scope in (setup, play):
        for p, s in zip(players, SEEDS, strict=False):
            add_seed(scope, p, s)
    options = engine.normalize_options(schemas.options_with_defaults(engine, DRAWING.get(name, {})))
    rng = rng_for(setup, 0)
    state = engine.setup(players, engine.draw_setup(players, options, rng))
    keep(setup, rng)
    drawn = 0
    for index in range(3000):
        if engine.status(state)["over"]:
            break
        # sample() completes the free-input templates: an OutcomeRng does it too.
        player, template = choose.choice(legal_choices(engine, state, players, choose))
        sample_rng = rng_for(play, 10_000 + index)
        assert engine.sample(state, player, template, sample_rng) is not None
        rng = rng_for(play, index)
        action = engine.draw(state, {**template, "player": player, "host": player == "p1"}, rng)
        if rng.draws:
            fields = {k: action[k] for k in engine.random_action_fields.get(action["type"], ())
                      if k in action}
            record = keep(play, rng, fields)
            # Each draw gives a logged field itself (a die's value, not a face
            # index mapped to it), so the proof links every field to its draw.
            assert {d.get("field") for d in record["draws"]} >= set(fields), record
            drawn += 1
        state, _ = engine.apply(state, action)
    assert engine.status(state)["over"]
    assert drawn > 0, "a whole game draws something"
    for scope in (setup, play):
        scope["revealed"] = True
    report = check(publish("t", name, [setup, play], []))
    assert report.ok, report.first_mismatch
    assert report.count("ok") == 2 + len(setup["outcomes"]) + len(play["outcomes"])
