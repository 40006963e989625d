"""Actions one by one: who may act, what is refused and with which code."""

from __future__ import annotations

import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engines.base import EngineError
from engines.camelup import ENGINE
from engines.camelup.state import LEG_OVER, Roll
from tests.engines import driver

SIX = ("p1", "p2", "p3", "p4", "p5", "p6")


def refused(
    code: str, state: Any, kind: str, player: str, host: bool = False, **payload: Any
) -> None:
    driver.refuse(ENGINE, state, code, kind, player, host, **payload)


def test_schemas_are_valid_and_options_default() -> None:
    Draft202012Validator.check_schema(ENGINE.options_schema)
    for schema in ENGINE.action_schemas.values():
        Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
    props = ENGINE.options_schema["properties"]
    assert all("default" in p for p in props.values())
    assert {k: props[k]["default"] for k in props if k not in ("racingColours", "setup")} == {
        "mode": "full",
        "crazyLoneCrossingEndsGame": True,
        "setupCrazyAssignment": "firstRollColour",
        "finalClamp": "perCard",
        "spectatorFlipInPlace": False,
        "partnershipCopy": "auto",
        "showOthersMoney": True,
        "showFinishCardOwners": True,
        "setupStackOrder": "random",
        "diceSource": "app",
    }
    assert ENGINE.random_action_fields == {"pyramid": ("die", "value", "color")}
    assert ENGINE.random_option_fields == ("setup",)


def test_player_limits() -> None:
    assert ENGINE.player_limits({}) == (3, 8)
    assert ENGINE.player_limits({"mode": "pyramid"}) == (1, 8)


@pytest.mark.parametrize(
    "options",
    [
        {"setup": {"racing": [["red", 4]], "crazy": []}},
        {
            "setup": {
                "racing": [[c, 1] for c in ("blue", "green", "yellow", "red", "red")],
                "crazy": [["white", 14], ["black", 15]],
            }
        },  # fmt: skip
        {
            "setup": {
                "racing": [[c, 1] for c in ("blue", "green", "yellow", "red", "purple")],
                "crazy": [["white", 13], ["black", 15]],
            }
        },  # fmt: skip
        {"racingColours": ["blue", "blue", "yellow", "red", "purple"]},
        {"finalClamp": "sometimes"},
        {"colour": "x"},
    ],
)
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(EngineError) as info:
        ENGINE.normalize_options(options)
    assert info.value.code == "bad_options"


def test_setup_needs_the_rolls_and_a_legal_seat_count() -> None:
    with pytest.raises(EngineError, match="setup rolls"):
        ENGINE.setup(["a", "b", "c"], {})
    opts = ENGINE.draw_setup(["a"], {}, random.Random(1))
    with pytest.raises(EngineError):
        ENGINE.setup(["a", "b"], opts)
    assert ENGINE.setup(["a"], {**opts, "mode": "pyramid"}).current is None


def test_draw_setup_keeps_a_fixed_setup() -> None:
    fixed = {"racing": [[c, 3] for c in ("purple", "red", "yellow", "green", "blue")],
             "crazy": [["black", 16], ["white", 16]]}  # fmt: skip
    opts = ENGINE.draw_setup(["a", "b", "c"], {"setup": fixed}, random.Random(1))
    assert opts["setup"] == fixed
    s = ENGINE.setup(["a", "b", "c"], opts)
    assert s.track[2] == ("purple", "red", "yellow", "green", "blue") and s.track[15] == (
        "black",
        "white",
    )


def test_turns_follow_seat_order_and_wrong_seats_are_refused(mk, do) -> None:
    s = mk()
    assert s.seats[s.current].id == "p1" and s.seats[s.start].id == "p1"
    refused("not_your_turn", s, "leg_bet", "p2", camel="red")
    s, _ = do(s, "leg_bet", "p1", camel="red")
    refused("not_your_turn", s, "leg_bet", "p1", camel="red")
    s, _ = do(s, "pyramid", "p2", die="blue", value=1)
    s, _ = do(s, "finish_bet", "p3", pile="winner", camel="red")
    assert s.seats[s.current].id == "p1"
    refused("not_seated", s, "leg_bet", "p9", camel="red")


def test_leg_bet_stack_runs_5_3_2_2_then_empty(mk, do) -> None:
    s = mk()
    got = []
    for player in ("p1", "p2", "p3", "p1"):
        s, events = do(s, "leg_bet", player, camel="red")
        got.append(events[0]["value"])
    assert got == [5, 3, 2, 2]
    assert s.seat("p1").bets == (("red", 5), ("red", 2))
    refused("no_ticket_left", s, "leg_bet", "p2", camel="red")
    assert {"type": "leg_bet", "camel": "red"} not in ENGINE.legal_actions(s, "p2")
    refused("bad_action", s, "leg_bet", "p2", camel="white")


def test_malformed_actions(mk) -> None:
    s = mk()
    refused("bad_action", s, "dance", "p1")
    refused("bad_action", s, "leg_bet", "p1", camel="red", extra=1)
    refused("bad_action", s, "pyramid", "p1")
    refused("bad_action", s, "pyramid", "p1", die="red", value=4)
    refused("bad_action", s, "pyramid", "p1", die="red", value=True)
    refused("bad_action", s, "pyramid", "p1", die="red", value=2, color="white")
    refused("bad_action", s, "pyramid", "p1", die="grey", value=2)
    refused("bad_action", s, "spectator", "p1", space=5, side="sideways")
    refused("bad_action", s, "spectator", "p1", space=17, side="boo")
    with pytest.raises(EngineError) as info:
        ENGINE.apply(s, "leg_bet")  # type: ignore[arg-type]
    assert info.value.code == "bad_action"


def test_die_must_still_be_in_the_pyramid(mk, do) -> None:
    s, _ = do(mk(), "pyramid", "p1", die="red", value=1)
    refused("die_not_in_pyramid", s, "pyramid", "p2", die="red", value=1)
    assert s.seat("p1").pyramid_tickets == 1 and s.pyramid_tickets_left == 4


def test_finish_card_stays_secret_in_the_event(mk, do) -> None:
    s, events = do(mk(), "finish_bet", "p1", pile="loser", camel="blue")
    assert events == [{"type": "finish_card_placed", "player": "p1", "pile": "loser"}]
    assert s.loser_pile == (("p1", "blue"),) and "blue" not in s.seat("p1").hand
    s = mk(current=0, seats={"p1": {"hand": ("red",)}})
    refused("card_not_in_hand", s, "finish_bet", "p1", pile="winner", camel="blue")


def test_partnerships(mk, do) -> None:
    refused("no_partnerships", mk(("a", "b", "c", "d", "e")), "partner", "a", **{"with": "b"})
    s = mk(SIX)
    refused("bad_action", s, "partner", "p1", **{"with": "p1"})
    refused("bad_action", s, "partner", "p1", **{"with": "p9"})
    s, events = do(s, "partner", "p1", **{"with": "p3"})
    assert events[0] == {"type": "partnership_formed", "player": "p1", "with": "p3"}
    assert (s.seat("p1").partner, s.seat("p3").partner) == ("p3", "p1")
    refused("partner_not_available", s, "partner", "p2", **{"with": "p1"})
    templates = [a for a in ENGINE.legal_actions(s, "p2") if a["type"] == "partner"]
    assert sorted(a["with"] for a in templates) == ["p4", "p5", "p6"]
    s, _ = do(s, "leg_bet", "p2", camel="red")
    refused("already_partnered", s, "partner", "p3", **{"with": "p4"})
    assert not [a for a in ENGINE.legal_actions(s, "p3") if a["type"] == "partner"]


def test_copy_choice_only_with_ask(mk, do) -> None:
    s, _ = do(mk(SIX), "partner", "p1", **{"with": "p2"})
    refused("copy_is_auto", s, "copy_choice", "p2", choice="best")


def test_copy_choice_with_ask_is_used_at_leg_scoring(mk, do) -> None:
    s = mk(SIX, options={"partnershipCopy": "ask"})
    refused("no_partner", s, "copy_choice", "p1", choice="best")
    s, _ = do(s, "partner", "p1", **{"with": "p2"})
    refused("no_such_ticket", s, "copy_choice", "p1", choice="pyramid")
    refused("no_such_ticket", s, "copy_choice", "p1", choice="bet", camel="red", value=5)
    refused("bad_action", s, "copy_choice", "p1", choice="best", camel="red")
    s, _ = do(s, "leg_bet", "p2", camel="red")
    # Out of turn: the copy choice is not an action of the turn.
    s, events = do(s, "copy_choice", "p1", choice="bet", camel="red", value=5)
    assert events[0]["type"] == "copy_chosen" and s.seats[s.current].id == "p3"
    assert {
        "type": "copy_choice",
        "choice": "bet",
        "camel": "red",
        "value": 5,
    } in ENGINE.legal_actions(s, "p1")
    # End the leg with red in front: p1 copies +5, p2 (no choice declared) nothing.
    s = mk(SIX, {14: ["red"], 3: ["blue", "green", "yellow", "purple"], 1: ["white", "black"]},
           options={"partnershipCopy": "ask"}, seats={
               "p1": {"partner": "p2", "copy": s.seat("p1").copy, "pyramid_tickets": 0},
               "p2": {"partner": "p1", "bets": (("red", 5),)}},
           tents=tuple(Roll(d, 1, None, d) for d in ("blue", "green", "yellow", "purple")), current=2)  # fmt: skip
    s, _ = do(s, "pyramid", "p3", die="grey", value=1, color="white")
    lines = {line.player: line for line in s.last_leg.players}
    assert lines["p1"].copy.reward == 5 and lines["p1"].new == 8
    assert lines["p2"].copy is None and lines["p2"].new == 8


def test_next_round_is_refused_in_full_mode(mk) -> None:
    s = mk()
    refused("not_host", s, "next_round", "p2")
    refused("no_round_waiting", s, "next_round", "p1", host=True)
    refused("no_round_waiting", s, "next_leg", "p1")


def test_set_stack_is_a_logged_host_correction(mk, do) -> None:
    s = mk(board={5: ["red"], 6: ["blue"], 9: ["green", "yellow", "purple"], 14: ["black"], 16: ["white"]},
           seats={"p2": {"tile": (12, "boo")}})  # fmt: skip
    refused("not_host", s, "set_stack", "p1", space=6, camels=["red", "blue"])
    refused("bad_stack", s, "set_stack", "p2", host=True, space=6, camels=["red"])
    refused("tile_on_space", s, "set_stack", "p2", host=True, space=12, camels=["red"])
    s2, events = do(s, "set_stack", "p2", host=True, space=6, camels=["red", "blue"])
    assert s2.track[4] == () and s2.track[5] == ("red", "blue")
    assert events[0]["type"] == "stack_set" and events[0]["before"] == ["blue"]
    assert s2.current == s.current


def test_game_over_refuses_everything(mk, do) -> None:
    s, _ = do(mk(board={16: ["red"], 1: ["blue", "green", "yellow", "purple"], 10: ["white", "black"]}),
              "pyramid", "p1", die="red", value=1)  # fmt: skip
    assert ENGINE.status(s)["over"] and ENGINE.legal_actions(s, "p2") == []
    refused("game_over", s, "leg_bet", "p2", camel="red")
    refused("game_over", s, "next_round", "p1", host=True)
    refused("not_host", s, "next_round", "p2")
    refused("game_over", s, "set_stack", "p1", host=True, space=3, camels=["blue"])


def test_leg_end_in_full_mode_never_pauses(mk, do) -> None:
    s = mk()
    for die in ("blue", "green", "yellow", "red", "purple"):
        s, events = do(s, "pyramid", s.seats[s.current].id, die=die, value=1)
    # p2 took the 5th ticket (seats p1 p2 p3 p1 p2), so p3 starts leg 2.
    assert events[-1] == {"type": "leg_started", "leg": 2, "start_player": "p3"}
    assert s.seats[s.current].id == "p3" and s.pyramid == (
        "blue",
        "green",
        "yellow",
        "red",
        "purple",
        "grey",
    )
    assert ENGINE.status(s) == {"round": 2, "over": False}


def test_pyramid_only_mode(mk, do) -> None:
    s = mk(("host",), options={"mode": "pyramid"})
    assert ENGINE.legal_actions(s, "host") == [{"type": "pyramid"}, {"type": "set_stack"}]
    refused("wrong_mode", s, "leg_bet", "host", camel="red")
    refused("wrong_mode", s, "spectator", "host", space=8, side="boo")
    rng = random.Random(3)
    for _ in range(5):
        s, events = ENGINE.apply(
            s, ENGINE.draw(s, {"type": "pyramid", "player": "host", "host": True}, rng)
        )
        if ENGINE.status(s)["over"]:
            break
    assert s.phase == LEG_OVER and len(s.tents) == 5 and events[-1]["type"] == "leg_ended"
    # next_round too: the host's, accepted as next_leg, so offered (test_legality).
    assert ENGINE.legal_actions(s, "host") == [{"type": "next_leg"}, {"type": "next_round"}, {"type": "set_stack"}]
    assert ENGINE.draw(s, {"type": "pyramid", "player": "host", "host": True}, rng) == {
        "type": "pyramid", "player": "host", "host": True}  # fmt: skip
    refused("leg_over", s, "pyramid", "host", die=s.pyramid[0], value=1, color="white")
    s2, events = do(s, "next_leg", "host")
    assert events == [{"type": "leg_started", "leg": 2, "start_player": None}] and s2.tents == ()
    s3, _ = do(s, "next_round", "host", host=True)
    assert s3 == s2
    assert ENGINE.public_players(s2) == {"host": {}}
    assert "money" not in str(ENGINE.view(s2, "host"))


def test_pyramid_mode_any_seat_rolls_and_the_race_ends(mk, do) -> None:
    s = mk(("a", "b"), {16: ["red"], 1: ["blue", "green", "yellow", "purple"], 10: ["white", "black"]},
           options={"mode": "pyramid"})  # fmt: skip
    s, _ = do(s, "pyramid", "b", die="blue", value=1)
    s, events = do(s, "pyramid", "a", die="red", value=1)
    assert events[-1]["type"] == "race_ended" and ENGINE.status(s)["over"]
    result = ENGINE.view(s, None)["result"]
    assert (
        result["winners"] == []
        and result["winner_camel"] == "red"
        and result["loser_camel"] == "blue"
    )


def test_manual_dice(mk, do) -> None:
    s = mk(options={"diceSource": "manual"})
    refused("manual_dice", s, "pyramid", "p1", die="red", value=1)
    legal = [a for a in ENGINE.legal_actions(s, "p1") if a["type"] == "pyramid_manual"]
    assert len(legal) == 5 * 3 + 6
    s, _ = do(s, "pyramid_manual", "p1", die="grey", value=3, color="black")
    refused("die_not_in_pyramid", s, "pyramid_manual", "p2", die="grey", value=1, color="white")
    refused("app_dice", mk(), "pyramid_manual", "p1", die="red", value=1)


def test_draw_fills_only_missing_fields() -> None:
    s = ENGINE.setup(["a", "b", "c"], ENGINE.draw_setup(["a", "b", "c"], {}, random.Random(0)))
    rng = random.Random(5)
    base = {"type": "pyramid", "player": "a", "host": False}
    drawn = ENGINE.draw(s, base, rng)
    assert drawn["die"] in s.pyramid and drawn["value"] in (1, 2, 3)
    assert ("color" in drawn) == (drawn["die"] == "grey")
    assert "die" not in base
    assert ENGINE.draw(s, {**base, "die": "red", "value": 3}, rng) == {
        **base,
        "die": "red",
        "value": 3,
    }
    grey = ENGINE.draw(s, {**base, "die": "grey"}, rng)
    assert grey["color"] in ("white", "black") and grey["value"] in (1, 2, 3)
    leg = {"type": "leg_bet", "player": "a", "host": False, "camel": "red"}
    assert ENGINE.draw(s, leg, rng) == leg


def test_spectator_flip_and_move(mk, do) -> None:
    s = mk(seats={"p1": {"tile": (8, "cheer")}})
    refused("space_not_allowed", s, "spectator", "p1", space=8, side="boo")
    refused("space_not_allowed", s, "spectator", "p1", space=8, side="cheer")
    s2, events = do(s, "spectator", "p1", space=9, side="boo")
    assert s2.tiles() == {9: ("p1", "boo")} and events[0]["from"] == 8
    s = mk(options={"spectatorFlipInPlace": True}, seats={"p1": {"tile": (8, "cheer")}})
    s2, _ = do(s, "spectator", "p1", space=8, side="boo")
    assert s2.tiles() == {8: ("p1", "boo")}


def test_every_legal_template_validates_and_applies(mk) -> None:
    states = [mk(SIX, options={"partnershipCopy": "ask"}), mk(options={"diceSource": "manual"}),
              mk(("solo",), options={"mode": "pyramid"})]  # fmt: skip
    rng = random.Random(9)
    for s in states:
        player = s.seats[s.current or 0].id
        templates = ENGINE.legal_actions(s, player)
        assert {"type": "set_stack"} in templates
        for template in templates:
            template = ENGINE.sample(s, player, template, rng)
            if template is None:
                continue
            payload = {k: v for k, v in template.items() if k != "type"}
            Draft202012Validator(ENGINE.action_schemas[template["type"]]).validate(payload)
            action = ENGINE.draw(s, {**template, "player": player, "host": False}, rng)
            ENGINE.apply(s, action)


def test_a_returned_die_is_rolled_by_anyone_and_the_turn_stays_the_turns(mk, do) -> None:
    """Issue 38: the die an undo put back goes to whoever picks it up (the ticket
    with it); the turn, and the next leg's start, stay the turn seat's."""
    s = mk(board={5: ["red"], 6: ["blue"], 9: ["green", "yellow", "purple"], 14: ["black"], 16: ["white"]})
    assert s.current == 0
    refused("not_your_turn", s, "pyramid", "p2", die="blue", value=1)
    s2, _ = do(s, "pyramid", "p2", die="blue", value=1, returned=True)
    assert s2.seat("p2").pyramid_tickets == 1 and s2.seat("p1").pyramid_tickets == 0
    assert s2.current == 1  # after p1, whose turn it was
    # The leg's last die, returned and rolled by p3 on p2's turn: the next leg starts after p2.
    last = mk(board={5: ["red"], 6: ["blue"], 9: ["green", "yellow", "purple"], 14: ["black"], 16: ["white"]},
              tents=tuple(Roll(d, 1, None, d) for d in ("blue", "green", "yellow", "purple")), current=1)
    s3, events = do(last, "pyramid", "p3", die="red", value=1, returned=True)
    started = [e for e in events if e["type"] == "leg_started"]
    assert started == [{"type": "leg_started", "leg": 2, "start_player": "p3"}]
    assert s3.current == 2 and s3.last_leg is not None
    assert {line.player: line.new - line.old for line in s3.last_leg.players}["p3"] >= 1
