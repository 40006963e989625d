"""The shared state codec: the JSON shape of stored tables never changes.

``golden/<game>_states.json`` holds states dumped by the hand-written codecs
this codec replaced (seeded play-outs: mid-game and final states, default and
other options). Tables live in Redis across deploys, so every stored state must
load, and dump back to exactly the same JSON.
"""

from __future__ import annotations

import dataclasses
import doctest
import enum
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engines import codec, registry
from server.service import schemas
from tests.engines.driver import legal_choices

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("game", registry.names())
def test_stored_states_load_and_dump_unchanged(game: str) -> None:
    engine = registry.get(game)
    assert engine is not None
    stored = json.loads((GOLDEN / f"{game}_states.json").read_text(encoding="utf-8"))
    assert len(stored) >= 6
    for data in stored:
        state = engine.load(data)
        assert isinstance(state, engine.state_type)
        assert engine.dump(state) == data
        assert engine.load(json.loads(json.dumps(engine.dump(state)))) == state


class Phase(enum.StrEnum):
    PLAYING = "playing"
    OVER = "over"


@codec.positional
@dataclass(frozen=True)
class Card:
    colour: str
    value: int


@dataclass(frozen=True)
class Thing:
    phase: Phase
    cards: tuple[Card, ...]
    pair: tuple[int, str]
    best: Card | None
    by_seat: dict[str, tuple[int, ...]]
    note: str = "none"  # a field added later: older data has no "note"


def test_round_trip_of_every_supported_shape() -> None:
    thing = Thing(Phase.OVER, (Card("red", 2),), (1, "a"), None, {"p1": (3, 4)})
    data = codec.dump(thing)
    assert data == {
        "phase": "over",
        "cards": [["red", 2]],
        "pair": [1, "a"],
        "best": None,
        "by_seat": {"p1": [3, 4]},
        "note": "none",
    }
    back = codec.load(Thing, json.loads(json.dumps(data)))
    assert back == thing and type(back.phase) is Phase and type(back.cards[0]) is Card


def test_a_field_added_with_a_default_reads_older_data() -> None:
    data = {"phase": "playing", "cards": [], "pair": [0, ""], "best": ["x", 1], "by_seat": {}}
    assert codec.load(Thing, data).note == "none"
    with pytest.raises(KeyError):
        codec.load(Thing, {"phase": "playing"})


def test_doctests() -> None:
    result = doctest.testmod(codec)
    assert result.attempted > 0 and result.failed == 0


def by_value(value: Any) -> Any:
    """``dump`` as it was before it read the annotations: each value by its
    own type. The annotated codec must give exactly this."""
    if isinstance(value, enum.Enum):
        return value.value
    if callable(getattr(value, "to_json", None)):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        if getattr(type(value), "__codec_positional__", False):
            return [by_value(getattr(value, f.name)) for f in fields]
        return {f.name: by_value(getattr(value, f.name)) for f in fields
                if f.metadata.get("codec") != "omit_default" or getattr(value, f.name) != f.default}
    if isinstance(value, (tuple, list)):
        return [by_value(v) for v in value]
    if isinstance(value, dict):
        return {k: by_value(v) for k, v in value.items()}
    return value


def same(a: Any, b: Any) -> bool:
    """Equal, and of exactly the same types all the way down (a ``StrEnum``
    equals its string, a tuple is no list)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("game", registry.names())
def test_dump_reads_annotations_and_gives_what_each_value_would(game: str, seed: int) -> None:
    """``dump`` takes scalars and containers from a state's annotations (no
    call per item); at every step of seeded play-outs it gives exactly the
    by-value JSON, so a wrong annotation fails here, not in a stored table."""
    engine = registry.get(game)
    assert engine is not None
    rng = random.Random(seed)
    options = engine.normalize_options(schemas.options_with_defaults(engine, {}))
    lo, hi = engine.player_limits(options)
    seats = [f"p{i + 1}" for i in range(hi if seed % 2 else lo)]
    state = engine.setup(seats, engine.draw_setup(seats, options, rng))
    steps = 0
    for steps in range(300):
        got = codec.dump(state)
        assert same(got, by_value(state)), f"{game} step {steps}"
        assert codec.load(type(state), json.loads(json.dumps(got))) == state
        if engine.status(state)["over"]:
            break
        player, template = rng.choice(legal_choices(engine, state, seats, rng))
        state, _ = engine.apply(state, engine.draw(state, {**template, "player": player, "host": player == seats[0]}, rng))
    assert steps > 20


def test_records_enums_and_any_inside_annotated_fields_dump_by_value() -> None:
    @dataclass(frozen=True)
    class Hand:
        cards: tuple[Card, ...]
        counts: dict[str, tuple[int, ...]]
        maybe: tuple[int, str] | None
        anything: Any

    hand = Hand((Card("red", 2),), {"a": (1, 2)}, (3, "x"), (Phase.OVER, Card("blue", 1)))
    assert same(codec.dump(hand), {"cards": [["red", 2]], "counts": {"a": [1, 2]}, "maybe": [3, "x"],
                                   "anything": ["over", ["blue", 1]]})
