"""The engine contract: options, schemas, text, and the JSON round trip."""

from __future__ import annotations

import ast
import doctest
import importlib
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator, ValidationError

from engines.base import EngineError
from engines.kingup import ENGINE
from engines.kingup.describe import EVENT_TYPES
from tests.engines import driver
from tests.words import check_parts, say_both

PACKAGE = Path(__file__).resolve().parents[3] / "engines" / "kingup"


def test_identity():
    assert ENGINE.name == "kingup"
    assert ENGINE.title == {"ko": "킹업!", "en": "King Up!"}


def test_options_schema_has_a_default_everywhere():
    defaults = driver.option_defaults(ENGINE)
    # The spec's option names and defaults (section 4), plus the play mode.
    assert defaults == {
        "playMode": "full",
        "goalCardMode": "record",
        "rounds": 3,
        "noCardsPerPlayer": {"3": 4, "4": 3, "5": 2, "6": 2},
        "tieBreak": "survivors",
        "tieBreakCountsLevel0": True,
        "zeroTo33Round": "last",
        "first_seat": 1,
        "characterNames": {},
    }


@pytest.mark.parametrize(
    "options",
    [
        {"noCardsPerPlayer": {"3": 5}},
        {"noCardsPerPlayer": {"7": 1}},
        {"goalCardMode": "shuffle"},
        {"zeroTo33Round": 0},
        {"characterNames": {"N": {"en": "Nico"}}},
        {"first_seat": 7},
        {"unknown": 1},
    ],
)
def test_bad_options_are_refused_by_schema_and_engine(options):
    with pytest.raises(ValidationError):
        Draft202012Validator(ENGINE.options_schema).validate(options)
    with pytest.raises(EngineError) as e:
        ENGINE.normalize_options(options)
    assert e.value.code == "bad_options"


def test_normalize_options_checks_what_the_schema_cannot():
    for options in ({"rounds": 2, "zeroTo33Round": 3}, {"goalCardMode": "deal", "rounds": 9}):
        Draft202012Validator(ENGINE.options_schema).validate(options)
        with pytest.raises(EngineError) as e:
            ENGINE.normalize_options(options)
        assert e.value.code == "bad_options"
    normalized = ENGINE.normalize_options({"noCardsPerPlayer": {"4": 2}})
    assert normalized["noCardsPerPlayer"] == {"3": 4, "4": 2, "5": 2, "6": 2}
    assert normalized["first_seat"] == 1
    normalized["characterNames"]["A"] = {"en": "x"}
    assert ENGINE.normalize_options({})["characterNames"] == {}


def test_player_limits():
    assert ENGINE.player_limits(ENGINE.normalize_options({})) == (3, 6)
    # KU-13: 26 virtual cards without replacement must last every round.
    assert ENGINE.player_limits({"goalCardMode": "deal", "rounds": 5}) == (3, 5)
    assert ENGINE.player_limits({"goalCardMode": "deal"}) == (3, 6)
    with pytest.raises(EngineError):
        ENGINE.setup(["p1", "p2"], {})
    with pytest.raises(EngineError):
        ENGINE.setup([f"p{i}" for i in range(6)], {"goalCardMode": "deal", "rounds": 5})


def test_character_names_reach_the_view(table):
    t = table(3, characterNames={"A": {"ko": "다리오", "en": "Dario"}, "B": {"en": "Irina"}})
    names = t.view(None)["character_names"]
    assert names["A"] == {"ko": "다리오", "en": "Dario"}
    assert names["B"] == {"ko": "B", "en": "Irina"}
    assert names["M"] == {"ko": "M", "en": "M"}


def test_action_schemas_are_valid_and_closed():
    assert set(ENGINE.action_schemas) == {
        "goal",
        "draw_goal",
        "place",
        "move",
        "vote",
        "open_vote",
        "next_round",
        "score_round",
        "set_paper",
        "set_phone",
        "skip",
    }
    for schema in ENGINE.action_schemas.values():
        Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
    for kind, fields in ENGINE.random_action_fields.items():
        assert set(fields) <= set(ENGINE.action_schemas[kind]["properties"])
    assert ENGINE.random_option_fields == ()


def test_legal_templates_match_the_schemas(walk):
    validators = {k: Draft202012Validator(s) for k, s in ENGINE.action_schemas.items()}
    needs_input = {"goal", "score_round", "open_vote"}
    for state in walk(3, 4)[::7]:
        for p in state.players:
            for template in ENGINE.legal_actions(state, p):
                if template["type"] in needs_input:
                    continue
                # The server strips the host marker before a phone sees the template.
                payload = {k: v for k, v in template.items() if k not in ("type", "host")}
                validators[template["type"]].validate(payload)
    assert ENGINE.legal_actions(walk(3, 4)[5], None) == []


def test_every_event_type_is_described(table):
    t = table(3, first_seat=3)
    t.goals({"p1": "ABCDEF", "p2": "ABCDEF", "p3": "GHIJKL"})
    letters = iter("ABCDEFGHIJKL")
    while t.state.phase == "placement":
        p = t.view(None)["turn"]
        t.act(p, "place", char=next(letters), level=1 + len(t.events) % 4)
    t.board({5: "AB", 4: "CDEF", 3: "GHI", 2: "JKL", 1: "M"}, turn=0)
    t.act("p1", "move", char="M")
    t.act("p2", "move", char="A")
    for p, vote in zip(t.players, ["yes", "no", "yes"], strict=True):
        t.act(p, "vote", vote=vote)
    t.act("p3", "move", char="B")
    t.act("p1", "vote", vote="sealed")
    t.act("p2", "vote", vote="sealed")
    t.act("p3", "vote", vote="yes")  # every vote is in: the phones open theirs
    t.act("p1", "skip", host=True, seat="p2")  # p2's phone is gone: its seal withdrawn
    t.act("p1", "skip", host=True, seat="p2")  # p2 is away: its vote counts as Yes
    t.act("p1", "open_vote", vote="yes")
    t.act("p1", "next_round", host=True)
    deal = table(3, rounds=1, goalCardMode="deal", playMode="score_only")
    deal.act("p1", "draw_goal")
    for p in ("p2", "p3"):
        deal.act(p, "draw_goal")
    board = {c: 3 for c in "ABCDEFGHIJKLM"}
    board.update({"A": "throne", "B": 1, "C": 1, "D": 1, "E": 1, "F": 2, "G": 2, "H": 0, "M": 2})
    deal.act("p1", "score_round", board=board)
    events = t.events + deal.events
    assert {e["type"] for e in events} == set(EVENT_TYPES)
    names = {"p1": "Mina", "p2": "Bo", "p3": "Jun"}
    for event in events:
        json.dumps(event)
        check_parts(ENGINE.describe(event, names))
    said = say_both([ENGINE.describe(event, names) for event in events])
    for ko, en in zip(said["ko"], said["en"], strict=True):
        assert ko and en and ko != en
        assert "p1" not in ko + en and "p2" not in ko + en


def test_describe_explains_the_tie_break(table):
    event = {
        "type": "game_over",
        "winners": ["p1"],
        "totals": {"p1": 59, "p3": 59},
        "tie_break": {"rule": "survivors", "tied": ["p1", "p3"]},
        "shared": False,
    }
    said = say_both([ENGINE.describe(event, {"p1": "Mina"})])
    assert "tie" in said["en"][0] and "동점" in said["ko"][0]


def test_round_trip_of_a_fresh_state(table):
    state = table(5, goalCardMode="deal").state
    assert ENGINE.load(json.loads(json.dumps(ENGINE.dump(state)))) == state


def test_no_randomness_or_io_at_module_level():
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names]
                module = getattr(node, "module", None) or ""
                banned = {"random", "time", "flask", "redis", "secrets"}
                assert not banned & {module.split(".")[0], *names}, path.name


@pytest.mark.parametrize("module", ["constants", "options", "castle"])
def test_doctests(module):
    mod = importlib.import_module(f"engines.kingup.{module}")
    result = doctest.testmod(mod)
    assert result.attempted > 0
    assert result.failed == 0
