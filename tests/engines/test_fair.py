"""The engines' side of checkable randomness and sealed choices
(``fair_draw``, ``fair_scopes``, ``fair_done``, ``fair_secrets``; docs/fairness.md),
through random play-outs of every game under options that draw and seal:

- every draw names a scope that was open (listed by ``fair_scopes``) before it,
  and an action that names none draws nothing;
- a scope is never both open and done, a done scope stays done, and in play
  without undo a scope is done as soon as it is no longer listed (its secret
  is revealed as soon as its outcomes are all public, not later);
- a sealed value never changes while it is listed, once public stays public,
  and is public exactly when the spectator's view shows it;
- names are public: equal for every secret twin of a state (so are the public flags).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engines import registry
from engines.base import Engine
from server.service import schemas
from tests.engines.driver import legal_choices
from tests.engines.twins import twins

#: Options under which each game draws during play and seals choices.
DRAWING: dict[str, list[dict[str, Any]]] = {
    "camelup": [{}, {"mode": "pyramid"}],
    "kingup": [{"goalCardMode": "deal"}],
    "countup": [{}, {"dangerZoneEnabled": True}],
}
NAME = re.compile(r"[A-Za-z0-9/_.:-]{1,80}")


def spectator_shows(name: str, view: dict[str, Any], key: str) -> Any:
    """The sealed value ``key`` as the spectator's view shows it, None while hidden."""
    parts = key.split("/")
    if name == "countup":
        numbers = view["sheets"][parts[-1]]["numbers"]
        return None if numbers is None else {"numbers": numbers}
    last = view["last_election"]
    if last is None or last["candidate"] != parts[-2]:
        return None
    return {"vote": last["votes"][parts[-1]]}


def public(engine: Engine, state: Any, action: dict[str, Any] | None) -> Any:
    secrets = engine.fair_secrets(state)
    return (engine.fair_draw(state, action) if action else None, engine.fair_scopes(state),
            {k: shown for k, (_, shown) in secrets.items()},
            {k: v for k, (v, shown) in secrets.items() if shown})


@pytest.mark.parametrize("name", registry.names())
@pytest.mark.parametrize("seed", range(4))
def test_draws_come_from_open_scopes_that_close_once_public(name: str, seed: int) -> None:
    engine = registry.get(name)
    assert engine is not None
    rng = random.Random(seed)
    variants = DRAWING[name]
    options = engine.normalize_options(schemas.options_with_defaults(engine, variants[seed % len(variants)]))
    lo, hi = engine.player_limits(options)
    players = [f"p{i + 1}" for i in range(min(max(3 + seed % 3, lo), hi))]
    state = engine.setup(players, engine.draw_setup(players, options, rng))
    opened: set[str] = set()
    done: set[str] = set()
    drew = sealed = twinned = 0
    sealed_values: dict[str, Any] = {}
    for _ in range(3000):
        if engine.status(state)["over"]:
            break
        listed = set(engine.fair_scopes(state))
        assert all(NAME.fullmatch(s) for s in listed), listed
        opened |= listed
        assert not listed & {s for s in opened if engine.fair_done(state, s)}, "a scope both open and done"
        player, template = rng.choice(legal_choices(engine, state, players, rng))
        action = {**template, "player": player, "host": player == players[0]}
        where = engine.fair_draw(state, action)
        drawn = engine.draw(state, action, rng)
        if drawn != action:
            assert where is not None and where[0] in listed, (action, where, listed)
            drew += 1
        for twin in twins(name, state, rng):
            assert public(engine, twin, action) == public(engine, state, action)
            twinned += 1
        state, _ = engine.apply(state, drawn)
        now_done = {s for s in opened if engine.fair_done(state, s)}
        assert done <= now_done, f"{done - now_done} reopened"
        assert now_done == opened - set(engine.fair_scopes(state)), (action, now_done, opened)
        done = now_done
        secrets = engine.fair_secrets(state)
        view = engine.view(state, None)
        for key, (value, shown) in secrets.items():
            assert NAME.fullmatch(key), key
            assert spectator_shows(name, view, key) == (value if shown else None), (key, value, shown)
            if key in sealed_values:
                assert sealed_values[key][0] == value, f"{key} changed while sealed"
                assert shown or not sealed_values[key][1], f"{key} was public, then hidden again"
            else:
                sealed += 1
            sealed_values[key] = (value, shown)
        sealed_values = {k: v for k, v in sealed_values.items() if k in secrets}
    assert engine.status(state)["over"], f"{name} seed {seed} did not end"
    assert drew > 0 and opened
    assert {s for s in opened if not engine.fair_done(state, s)} == set(), "a scope never revealed"
    assert engine.fair_scopes(state) == ()
    assert all(shown for _, shown in engine.fair_secrets(state).values())
    if name != "camelup":
        assert sealed > 0
    if name != "camelup" or not options["mode"] == "pyramid":
        assert twinned > 0


@pytest.mark.parametrize("name", registry.names())
def test_manual_outcomes_open_no_scope(name: str) -> None:
    """Tables that roll physical dice or turn over printed cards draw nothing
    in the app: no scope opens (the proof then lists none for them)."""
    engine = registry.get(name)
    assert engine is not None
    manual = {"camelup": {"diceSource": "manual"}, "kingup": {},
              "countup": {"restrictionSource": "manual"}}[name]
    options = engine.normalize_options(schemas.options_with_defaults(engine, manual))
    players = ["p1", "p2", "p3", "p4"]
    state = engine.setup(players, engine.draw_setup(players, options, random.Random(1)))
    assert engine.fair_scopes(state) == ()
