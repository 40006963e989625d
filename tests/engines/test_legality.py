"""Legality both ways, for every game, at every step of seeded random
play-outs: what ``legal_actions`` offers a seat (as the server filters it)
is accepted, and what ``apply`` accepts from a seat is offered to it (every
action each seat could send: every value of every enumerable field of every
action type's schema). A mismatch is a rule that drifted between the
offers and the handlers: a phone's buttons hiding a legal move, or showing
one that is refused (engines/legality.py derives the offers from the
handlers' own checks)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from engines import registry
from engines.base import Action, Engine, EngineError
from engines.contract import for_seat
from server.service import schemas
from server.service.pipeline import PLATFORM_ONLY
from server.service.snapshot import host_filter
from tests.engines.driver import legal_choices, valid_payload

GAMES: list[Engine] = [e for n in registry.names() if (e := registry.get(n)) is not None]
#: Integer fields with at most this many values are tried value by value.
SMALL = 20
#: Fields that name a seat (or list seats) take the table's seats as values.
SEAT_FIELDS = ("seat", "with")


def _values(name: str, prop: dict[str, Any], players: Sequence[str]) -> list[Any] | None:
    """Every value worth trying for one field, or None when the field is free
    input too large to enumerate (five secret numbers, a goal card)."""
    if "enum" in prop:
        return list(prop["enum"])
    if name in SEAT_FIELDS:
        return [*players, "nobody"]
    if name == "players" and prop.get("type") == "array":
        return [[p] for p in players]
    if prop.get("type") == "integer":
        lo, hi = prop.get("minimum"), prop.get("maximum")
        if lo is not None and hi is not None and hi - lo < SMALL:
            return list(range(lo, hi + 1))
    if prop.get("type") == "boolean":
        return [True, False]
    if "anyOf" in prop and name in ("seat",):
        return [None, *players]
    return None


def candidates(engine: Engine, atype: str, players: Sequence[str]) -> Iterator[dict[str, Any]] | None:
    """Every payload of ``atype`` built from enumerable fields (random
    outcomes left to ``draw``, optional fields with and without), or None
    when a required field is free input."""
    schema = engine.action_schemas[atype]
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    drawn = set(engine.random_action_fields.get(atype, ()))
    names, choices = [], []
    for name, prop in props.items():
        if name in drawn:
            continue
        values = _values(name, prop, players)
        if values is None:
            if name in required:
                return None
            continue
        names.append(name)
        choices.append(values if name in required else [*values, _ABSENT])
    return ({n: v for n, v in zip(names, combo, strict=True) if v is not _ABSENT}
            for combo in itertools.product(*choices))


_ABSENT = object()


def matches(action: Action, template: Action) -> bool:
    """Whether an accepted action is the one a template offers: the same type
    and the same value in every field the template names (a field it leaves
    out is the phone's free input or a random outcome). A King Up vote sent
    ``sealed`` is one of the offered votes, chosen and hashed on the phone
    (docs/fairness.md, "Seals made on the phone"): any offered vote matches it."""
    if action.get("type") == "vote" and action.get("vote") == "sealed" and template.get("type") == "vote":
        return True
    return all(action.get(k) == v for k, v in template.items() if k not in ("host", "player"))


def accepted_unoffered(engine: Engine, state: Any, players: Sequence[str], rng: random.Random) -> list[str]:
    """Every action some seat could send now that ``apply`` accepts but the
    seat's ``legal_actions`` (as the server filters it) does not offer."""
    found = []
    for p in players:
        host = p == players[0]
        offered = host_filter(engine, engine.legal_actions(state, p), host)
        for atype in engine.action_schemas:
            if atype in PLATFORM_ONLY:
                continue  # sent by the platform's phoneless / phone_back, which offers those
            payloads = candidates(engine, atype, players)
            if payloads is None:
                continue
            for payload in payloads:
                action: Action = {"type": atype, **payload, "player": p, "host": host}
                if not valid_payload(engine, {"type": atype, **payload}):
                    continue
                try:
                    drawn = engine.draw(state, action, rng)
                    engine.apply(state, drawn)
                except EngineError:
                    continue
                if not any(matches(drawn, t) for t in offered):
                    found.append(f"{p}{' (host)' if host else ''}: {atype} {payload}")
    return found


@pytest.fixture(params=GAMES, ids=lambda e: e.name)
def game(request: pytest.FixtureRequest) -> Engine:
    return request.param  # type: ignore[no-any-return]


@pytest.mark.parametrize("seed", range(6))
def test_what_apply_accepts_is_offered(game: Engine, seed: int) -> None:
    """Seeds 0 and 1 play the default options; 2 to 5 random ones (for Camel
    Up: copies asked, manual dice, the pyramid mode)."""
    rng = random.Random(seed)
    if seed < 2:
        options = game.normalize_options(schemas.options_with_defaults(game, {}))
    else:
        options = random_options(game, rng)
    lo, hi = game.player_limits(options)
    players = [f"p{i + 1}" for i in range(min(max(3 + 2 * seed, lo), hi))]

    def check(state: Any, step: int) -> None:
        drift = accepted_unoffered(game, state, players, random.Random(step))
        assert not drift, f"{game.name} seed {seed} step {step}: accepted but not offered: {drift[:5]}"

    play(game, rng, options, players, 300, check, paper=False)


def play(game: Engine, rng: random.Random, options: dict[str, Any], players: list[str], steps: int,
         check: Callable[[Any, int], None], paper: bool) -> None:
    """A seeded random play-out of ``options``, ``check`` at every step until
    the game is over (or only people can go on: a board to enter, who raised
    a hand); with ``paper``, the host now and then takes a seat onto paper."""
    state = game.setup(players, game.draw_setup(players, options, rng))
    for step in range(steps):
        if game.status(state)["over"]:
            return
        check(state, step)
        phones = [p for p in players[1:] if p not in game.paper_seats(state)]
        if paper and phones and rng.random() < 0.04:
            action = {"type": "set_paper", "seat": rng.choice(phones), "player": players[0], "host": True}
        else:
            choices = legal_choices(game, state, players, rng)
            if not choices:
                return
            player, template = rng.choice(choices)
            action = game.draw(state, {**template, "player": player, "host": player == players[0]}, rng)
        state, _ = game.apply(state, action)


def random_options(engine: Engine, rng: random.Random) -> dict[str, Any]:
    """Each option with a choice of values (an enum, a flag) drawn at random,
    the rest at its default; the defaults when that mix does not work."""
    picked = {}
    for name, prop in engine.options_schema["properties"].items():
        if "enum" in prop:
            picked[name] = rng.choice(prop["enum"])
        elif prop.get("type") == "boolean":
            picked[name] = rng.random() < 0.5
    try:
        return engine.normalize_options(schemas.options_with_defaults(engine, picked))
    except (EngineError, ValueError):
        return engine.normalize_options(schemas.options_with_defaults(engine, {}))


def offered_refused(engine: Engine, state: Any, players: Sequence[str], rng: random.Random) -> list[str]:
    """Every template a seat is offered now (the host's own and, for a seat
    on paper, what the host enters for it) that ``apply`` refuses however it
    is completed: a template of free input is completed by ``sample``, or
    else by every enumerable payload that matches it (who raised a hand);
    one with free input beyond that (a whole board) is left to people."""
    found = []
    for p in players:
        host = p == players[0] and p not in engine.paper_seats(state)
        for template in host_filter(engine, engine.legal_actions(state, p), host):
            act = engine.sample(state, p, template, rng)
            if act is not None:
                completions = [act]
            else:
                payloads = candidates(engine, template["type"], players)
                if payloads is None:
                    continue
                completions = [c for pl in payloads if matches(c := {"type": template["type"], **pl}, template)]
            errors = []
            for completion in completions:
                try:
                    engine.apply(state, engine.draw(state, {**completion, "player": p, "host": host}, rng))
                    break
                except EngineError as e:
                    errors.append(f"{e.code}: {e.message}")
            else:
                found.append(f"{p}{' (host)' if host else ''}: {template} -> {errors[:2]}")
    return found


@pytest.mark.parametrize("seed", range(8))
def test_what_is_offered_is_accepted(game: Engine, seed: int) -> None:
    """Seats go on paper now and then (the host's ``set_paper``), so the
    offers entered for a seat on paper are checked too."""
    rng = random.Random(100 + seed)
    options = random_options(game, rng)
    lo, hi = game.player_limits(options)
    players = [f"p{i + 1}" for i in range(rng.randint(lo, min(hi, 6)))]

    def check(state: Any, step: int) -> None:
        refused = offered_refused(game, state, players, random.Random(step))
        assert not refused, f"{game.name} seed {seed} step {step}: offered but refused: {refused[:5]}"

    play(game, rng, options, players, 250, check, paper=True)


@pytest.mark.parametrize("seed", range(4))
def test_offered_is_legal_actions_as_the_server_filters_them(game: Engine, seed: int) -> None:
    """``Engine.offered`` (what a snapshot lists; Offers builds a guest's list
    without the host's templates) is ``legal_actions`` filtered for the seat,
    template for template and in order, for the host and for every guest, on
    paper or not, and for a name with no seat."""
    rng = random.Random(200 + seed)
    options = random_options(game, rng) if seed else game.normalize_options(schemas.options_with_defaults(game, {}))
    lo, hi = game.player_limits(options)
    players = [f"p{i + 1}" for i in range(rng.randint(lo, min(hi, 7)))]
    compared = 0

    def check(state: Any, step: int) -> None:
        nonlocal compared
        for p in (*players, "p99"):
            for host in (True, False):
                want = host_filter(game, game.legal_actions(state, p), host)
                assert game.offered(state, p, host) == want, f"{game.name} seed {seed} step {step}: {p} host={host}"
                compared += len(want)

    play(game, rng, options, players, 250, check, paper=True)
    assert compared > 20  # the play-out got far enough to offer something


def test_for_seat_keeps_the_hosts_templates_from_a_guest_and_drops_the_marker() -> None:
    templates: list[Action] = [{"type": "a"}, {"type": "b", "host": True}, {"type": "skip"},
                               {"type": "c", "host": False}]
    guest = for_seat(templates, ("skip",), False)
    assert guest == [{"type": "a"}, {"type": "c"}]
    assert guest[0] is templates[0]  # an unmarked template is not copied
    assert for_seat(templates, ("skip",), True) == [{"type": "a"}, {"type": "b"}, {"type": "skip"}, {"type": "c"}]
