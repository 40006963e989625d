"""The shared state codec: the JSON shape of stored tables never changes.

``golden/<game>_states.json`` holds states dumped by the hand-written codecs
this codec replaced (seeded play-outs: mid-game and final states, default and
other options). Tables live in Redis across deploys, so every stored state must
load, and dump back to exactly the same JSON.
"""

from __future__ import annotations

import doctest
import enum
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from engines import codec, registry

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
