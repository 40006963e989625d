"""Each action's rules and refusals: sheets, cards, the caller, paper mode,
next_round, and the contract details (schemas, draws, templates)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engines.base import EngineError
from engines.countup import ENGINE
from engines.countup.options import DEFAULT_DECK
from tests.engines import driver
from tests.words import check_parts, describe_in

EX2 = {
    "A": [3, 9, 14, 30, 41],
    "B": [6, 9, 21, 36, 48],
    "C": [1, 11, 19, 33, 44],
    "D": [4, 16, 29, 38, 46],
}


def refused(t: Any, code: str, type_: str, player: str | None = None,
            host: bool | None = None, **payload: Any) -> str:
    return t.refuse(code, type_, player or t.host, host, **payload)


# -- sheets ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("numbers", "code"),
    [
        ([1, 3, 4, 6], "not_five"),
        ([1, 3, 4, 6, 8, 11], "not_five"),
        ([], "not_five"),
        ([1, 3, 4, 6, 8.5], "bad_number"),
        ([1, 3, 4, 6, True], "bad_number"),
        ([1, 3, 4, 6, "8"], "bad_number"),
        ([0, 3, 4, 6, 8], "out_of_range"),
        ([-1, 3, 4, 6, 8], "out_of_range"),
        ([1, 3, 4, 6, 50], "out_of_range"),
        ([1, 3, 4, 6, 12], "restricted_digit"),
        ([1, 3, 4, 6, 6], "duplicate"),
    ],
)
def test_bad_sheets(table, numbers, code):
    t = table()
    t.cards([2, 5, 7])
    refused(t, code, "numbers", "B", numbers=numbers)


def test_numbers_not_a_list(table):
    t = table()
    t.cards([2, 5, 7])
    refused(t, "not_five", "numbers", "B", numbers="1 2 3 4 6")


def test_locked_after_one_submit(table):
    t = table()
    t.cards([2, 5, 7])
    t.act("numbers", "B", numbers=[1, 3, 4, 6, 8])
    msg = refused(t, "locked", "numbers", "B", numbers=[11, 13, 14, 16, 18])
    assert "locked" in msg
    assert t.seat("B").numbers == (1, 3, 4, 6, 8)


def test_numbers_wait_for_typed_cards(table):
    t = table(dangerZoneEnabled=True)
    refused(t, "waiting_for_cards", "numbers", "B", numbers=[1, 3, 4, 6, 8])
    t.cards([2, 5, 7])
    assert t.state.phase == "cards"  # the danger card is still missing
    refused(t, "waiting_for_cards", "numbers", "B", numbers=[1, 3, 4, 6, 8])
    t.cards(danger=[21, 30])
    assert t.state.phase == "entry"
    t.act("numbers", "B", numbers=[1, 3, 4, 6, 8])


def test_count_starts_when_all_locked(table):
    t = table()
    t.cards([2, 5, 7])
    for p in "ABC":
        t.act("numbers", p, numbers=EX2[p])
        assert t.state.phase == "entry"
    refused(t, "not_counting", "call")
    events = t.act("numbers", "D", numbers=EX2["D"])
    assert [e["type"] for e in events] == ["sheet_locked", "count_ready"]
    assert t.state.phase == "count"


# -- cards ----------------------------------------------------------------------


def test_restriction_refusals(table):
    t = table(dangerZoneEnabled=False)
    refused(t, "not_host", "restriction", "B", digits=[1, 2, 3])
    refused(t, "bad_card", "restriction", digits=[1, 1, 3])
    refused(t, "bad_card", "restriction", digits=[1, 2, 13])
    refused(t, "not_needed", "danger", range=[1, 10])
    t.cards([3, 2, 1])
    refused(t, "already_revealed", "restriction", digits=[4, 5, 6])


def test_danger_refusals(table):
    t = table(dangerZoneEnabled=True)
    refused(t, "bad_range", "danger", range=[10, 1])
    refused(t, "bad_range", "danger", range=[0, 5])
    refused(t, "not_host", "danger", "C", range=[1, 10])
    t.cards(danger=[5, 15])
    refused(t, "already_revealed", "danger", range=[1, 10])


def test_cards_in_deck_mode_are_drawn(table):
    t = table(restrictionSource="deck", firstRestrictionCard=[1, 2, 3])
    refused(t, "not_manual", "restriction", digits=[1, 2, 3])
    refused(t, "not_manual", "danger", range=[1, 10])


@pytest.mark.parametrize(
    ("players", "card", "expected"),
    [(3, [2, 5, 7], [0, 2, 5, 7]), (4, [2, 5, 7], [2, 5, 7]), (5, [7, 5, 2], [5, 7]),
     (6, [7, 5, 2], [7]), (7, [2, 5, 7], [2])],
)
def test_restricted_digits_by_players(table, players, card, expected):
    t = table([f"p{i}" for i in range(1, players + 1)])
    t.cards(card)
    assert t.view(None)["restricted_digits"] == expected
    assert t.view(None)["restriction_card"] == card


def test_restricted_digits_option(table):
    t = table(("A", "B", "C", "D"), restrictedDigitsByPlayers={"4": 4, "3": 0})
    t.cards([2, 5, 7])
    assert t.view(None)["restricted_digits"] == [0, 2, 5, 7]
    t3 = table(("A", "B", "C"), restrictedDigitsByPlayers={"3": 0})
    assert t3.state.phase == "entry"  # no card needed
    refused(t3, "not_needed", "restriction", digits=[1, 2, 3])


def test_eight_players_use_no_cards(table):
    t = table([f"p{i}" for i in range(1, 9)])
    refused(t, "not_needed", "restriction", digits=[1, 2, 3])
    t.act("numbers", "p2", numbers=[10, 20, 30, 40, 54])


def test_draw_setup_and_deck_without_replacement():
    rng = random.Random(3)
    players = ["p1", "p2", "p3", "p4"]
    opts = ENGINE.draw_setup(players, ENGINE.normalize_options({"dangerZoneEnabled": True}), rng)
    assert opts["firstRestrictionCard"] in DEFAULT_DECK
    assert opts["firstDangerCard"] in [[1, 10], [11, 20], [21, 30], [31, 40], [41, 50]]
    kept = ENGINE.draw_setup(players, {**opts, "firstRestrictionCard": [2, 5, 8]}, rng)
    assert kept["firstRestrictionCard"] == [2, 5, 8]
    state = ENGINE.setup(players, opts)
    seen = [list(state.restriction)]
    zones = [list(state.danger)]
    for _ in range(3):
        for p in players:
            nums = [n for n in range(1, 50) if n % 10 not in set(state.restriction) | {0}][:5]
            state, _ = ENGINE.apply(state, {"type": "numbers", "player": p, "host": False,
                                            "numbers": nums})
        state, _ = ENGINE.apply(state, {"type": "call", "player": "p1", "host": True,
                                        "until": "end"})
        if state.phase == "over":
            break
        action = ENGINE.draw(state, {"type": "next_round", "player": "p1", "host": True}, rng)
        assert set(action) == {"type", "player", "host", "restriction", "danger"}
        assert ENGINE.draw(state, action, rng) == action  # given outcomes are kept
        state, events = ENGINE.apply(state, action)
        assert [e["type"] for e in events] == [
            "round_started", "restriction_revealed", "danger_revealed"
        ]
        seen.append(list(state.restriction))
        zones.append(list(state.danger))
    assert len({tuple(c) for c in seen}) == len(seen)
    assert len({tuple(z) for z in zones}) == len(zones)


def test_fixed_cards_must_come_from_the_deck(table):
    with pytest.raises(EngineError) as err:
        ENGINE.normalize_options({"firstRestrictionCard": [2, 5, 7]})
    assert err.value.code == "bad_options"
    with pytest.raises(EngineError) as err:
        ENGINE.setup(["a", "b", "c"], ENGINE.normalize_options({}))
    assert err.value.code == "bad_options"  # deck mode needs draw_setup's card
    t = table(restrictionSource="deck", firstRestrictionCard=[1, 2, 3],
              restrictionDeck=[[1, 2, 3], [4, 5, 6]])
    t.sheets({p: [14, 15, 16, 19, 24] for p in "ABCD"})
    t.call("end")
    refused(t, "not_in_deck", "next_round", restriction=[1, 2, 3])
    refused(t, "missing_card", "next_round")
    t.act("next_round", restriction=[4, 5, 6])
    # A spent deck is reshuffled.
    t.sheets({p: [11, 12, 13, 17, 19] for p in "ABCD"})
    t.call("end")
    t.act("next_round", restriction=[1, 2, 3])


def test_manual_next_round_takes_no_cards(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets(EX2)
    t.call("end")
    refused(t, "not_manual", "next_round", restriction=[1, 2, 3])
    t.act("next_round")
    assert t.state.phase == "cards" and t.state.round == 2
    assert t.markers() == dict.fromkeys("ABCD", 0)


@pytest.mark.parametrize(
    "options",
    [
        {"bonus": [[1] * 5] * 3},
        {"bonus": [[1, 1, 1, 1, -1]] * 4},
        {"restrictionDeck": [[1, 2, 2]]},
        {"restrictionDeck": []},
        {"dangerZones": [[10, 1]]},
        {"restrictedDigitsByPlayers": {"8": 1}},
        {"restrictedDigitsByPlayers": {"3": 5}},
        {"collisionRule": "showhouse"},
        {"sheetMode": "tablet"},
        {"surprise": 1},
        {"restrictionSource": "manual", "firstRestrictionCard": [1, 2, 3]},
        {"firstDangerCard": [1, 10]},
    ],
)
def test_bad_options(options):
    with pytest.raises(EngineError) as err:
        ENGINE.normalize_options(options)
    assert err.value.code == "bad_options"


def test_player_limits():
    assert ENGINE.player_limits({}) == (3, 12)
    with pytest.raises(EngineError):
        ENGINE.setup(["a", "b"], ENGINE.normalize_options({"restrictionSource": "manual"}))


# -- the count and the caller ---------------------------------------------------


def test_only_host_or_named_caller_calls(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets(EX2)
    refused(t, "not_caller", "call", "B")
    refused(t, "not_host", "caller", "B", seat="B")
    refused(t, "unknown_player", "caller", seat="Z")
    t.act("caller", seat="B")
    assert t.view("B")["you_call"] and not t.view("A")["you_call"]
    t.act("call", "B")
    refused(t, "not_caller", "call", "C")
    t.act("call")  # the host keeps the power
    assert {"type": "call"} in ENGINE.legal_actions(t.state, "B")
    assert {"type": "call", "host": True} in ENGINE.legal_actions(t.state, "C")
    t.act("caller", seat=None)
    refused(t, "not_caller", "call", "B")
    refused(t, "bad_action", "call", until="soon")


def test_call_after_round_end(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets(EX2)
    t.call("end")
    refused(t, "round_over", "call")
    refused(t, "not_host", "next_round", "B")


def test_call_event_and_view(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets(EX2)
    t.call()
    (ev,) = t.call()
    assert ev == {"type": "called", "round": 1, "number": 2, "declared": [], "advanced": "C",
                  "leader": "C", "counter": "C", "voided": False, "end": None,
                  "markers": {"A": 0, "B": 0, "C": 1, "D": 0}}
    for _ in range(7):
        (ev,) = t.call()
    assert ev["number"] == 9 and ev["declared"] == ["A", "B"] and ev["leader"] is None
    assert ev["counter"] == "A"
    count = t.view("C")["count"]
    assert count["value"] == 9 and count["leader"] is None and len(count["calls"]) == 9
    assert describe_in(ENGINE, ev, "ko", {"A": "민수", "B": "지은"}) == "9: 민수·지은 동시 선언 (X표시)."
    assert describe_in(ENGINE, ev, "en", {"A": "Mina", "B": "Bo"}) == "9: Mina and Bo collide (X)."


def test_next_round_refusals(table):
    t = table()
    refused(t, "no_round_waiting", "next_round")
    t.cards([2, 5, 7])
    t.sheets(EX2)
    refused(t, "no_round_waiting", "next_round")


def test_marker_cap_without_end_at_20(table):
    t = table(("A", "B", "C"), endAtMarker20=False)
    t.cards([7, 8, 9])
    t.sheets({"A": [1, 2, 3, 4, 5], "B": [31, 32, 33, 34, 35], "C": [41, 42, 43, 44, 45]})
    t.call("end")
    assert t.state.count == 50 and t.state.end == "max"
    assert t.markers() == {"A": 20, "B": 10, "C": 9}


def test_which_actions_seal_undo(table):
    """The count starting, and a call that shows a number on a sheet the app
    holds, are reveals; a quiet call, a lock during entry and the caller's taps
    (paper mode, a paper seat at a phone table) are not."""
    t = table(("A", "B", "C"))
    t.cards([7, 8, 9])
    assert not ENGINE.seals(t.act("numbers", "A", numbers=[1, 12, 24, 34, 41]))
    assert not ENGINE.seals(t.act("numbers", "B", numbers=[3, 15, 32, 35, 43]))
    assert ENGINE.seals(t.act("numbers", "C", numbers=[11, 21, 33, 36, 46]))  # count_ready
    assert ENGINE.seals(t.call()), "1: A's number"
    assert not ENGINE.seals(t.call()), "2: nobody's"
    assert ENGINE.seals(t.call()), "3: B's number"
    assert ENGINE.seals(t.call("end")), "the round ends"
    paper = table(("A", "B", "C"), sheetMode="paper")
    paper.cards([7, 8, 9])
    assert not ENGINE.seals(paper.call())
    assert not ENGINE.seals(paper.act("declare", players=["A", "B"]))
    mixed = table(("A", "B", "C"))
    mixed.act("set_paper", host=True, seat="C")
    mixed.cards([7, 8, 9])
    mixed.act("numbers", "A", numbers=[1, 12, 24, 34, 41])
    assert ENGINE.seals(mixed.act("numbers", "B", numbers=[3, 15, 32, 35, 43]))
    assert ENGINE.seals(mixed.call()), "1: A's number"
    assert not ENGINE.seals(mixed.call())
    assert not ENGINE.seals(mixed.act("paper_declare", "C", number=2))


def test_unknown_action_and_spectator(table):
    t = table()
    refused(t, "bad_action", "dance")
    with pytest.raises(EngineError) as err:
        ENGINE.apply(t.state, {"type": "call", "player": None, "host": False})
    assert err.value.code == "not_seated"
    assert ENGINE.legal_actions(t.state, None) == []


# -- paper mode -----------------------------------------------------------------


def test_paper_declarations_and_bonus(table):
    t = table(sheetMode="paper")
    t.cards([2, 5, 7])
    assert t.state.phase == "count"
    refused(t, "nothing_called", "declare", players=["A"])
    refused(t, "wrong_mode", "numbers", "B", numbers=[1, 3, 4, 6, 8])
    t.call()
    refused(t, "unknown_player", "declare", players=["Z"])
    refused(t, "duplicate_player", "declare", players=["A", "A"])
    refused(t, "not_caller", "declare", "B", players=["B"])
    t.act("declare", players=["C"])
    refused(t, "already_declared", "declare", players=["A"])
    t.call()
    refused(t, "restricted_number", "declare", players=["A"])
    t.call()
    t.act("declare", players=["A", "B"])
    for n in (4, 6, 8, 9):
        while t.state.count < n:
            t.call()
        t.act("declare", players=["A"])
    while t.state.count < 11:
        t.call()
    refused(t, "too_many_declarations", "declare", players=["A"])
    refused(t, "not_bonus_phase", "bonus", "A", points=1)
    t.call("end")
    assert t.state.phase == "bonus"
    refused(t, "no_bonus_cells", "bonus", "C", points=1)
    refused(t, "not_host", "bonus", "C", seat="A", points=1)
    t.act("bonus", "A", points=3)
    t.act("bonus", "A", points=1)  # corrections are fine until everyone is in
    assert t.state.phase == "bonus"
    events = t.act("bonus", seat="B", points=1)
    assert [e["type"] for e in events] == ["bonus_entered", "round_scored"]
    rec = t.state.rounds[-1]
    assert rec.seats[0].x_cells[0].slot is None
    assert t.scores() == {p: t.state.rounds[-1].seats[i].marker + (1 if p in "AB" else 0)
                          for i, p in enumerate("ABCD")}


def _paper_at_21(table):
    """A paper table with final-count declarations: A declared 1 and leads, the count at 21."""
    t = table(("A", "B", "C"), sheetMode="paper", finalCountDeclarations=True)
    t.cards([7, 8, 9])
    t.call()
    t.act("declare", players=["A"])
    while t.state.count < 21:
        t.call()
    return t


def test_paper_final_pending(table):
    t = _paper_at_21(table)
    assert t.state.final_pending and t.state.end is None
    assert t.view("B")["count"]["final_pending"]
    t.act("declare", players=["B", "C"])
    assert t.state.end == "marker20" and t.state.phase == "bonus"


def test_paper_final_pending_without_declarations(table):
    t = _paper_at_21(table)
    events = t.call()
    assert t.state.count == 21 and t.state.phase == "scored"
    assert [e["type"] for e in events] == ["round_ended", "round_scored"]


def test_phone_mode_refuses_paper_actions(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets(EX2)
    t.call()
    refused(t, "wrong_mode", "declare", players=["C"])
    refused(t, "wrong_mode", "bonus", points=1)


# -- contract details -----------------------------------------------------------


def test_schemas_are_valid_and_defaulted():
    defaults = driver.option_defaults(ENGINE)
    props = ENGINE.options_schema["properties"]
    for name in ("bonus", "restrictionSource", "restrictedDigitsByPlayers", "dangerZones",
                 "dangerZoneEnabled", "finalCountDeclarations", "collisionRule",
                 "endAtMarker20"):
        assert name in props
    assert defaults["restrictionSource"] == "deck" and defaults["dangerZoneEnabled"] is False
    assert defaults["finalCountDeclarations"] is False and defaults["endAtMarker20"] is True
    assert defaults["collisionRule"] == "xBonus"
    assert defaults["bonus"] == [[1] * 5, [2] * 5, [2] * 5, [3] * 5]
    for schema in ENGINE.action_schemas.values():
        Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
    for atype, fields in ENGINE.random_action_fields.items():
        assert set(fields) <= set(ENGINE.action_schemas[atype]["properties"])
    assert set(ENGINE.random_option_fields) <= set(props)


@pytest.mark.parametrize("seed", range(6))
def test_every_template_is_accepted(seed):
    """Each legal template, filled in (free input) and drawn, passes the payload
    schema and apply."""
    from tests.engines.countup.playout import RandomTable

    table = RandomTable(seed)
    validators = {k: Draft202012Validator(v) for k, v in ENGINE.action_schemas.items()}
    tried = 0
    for _before, after, _action, _events in table.steps(guard=False):
        for p in after.players:
            for template in ENGINE.legal_actions(after, p):
                action = table.fill(template, p)
                if action is None:
                    continue
                action["host"] = bool(template.get("host")) or action["host"]
                action = ENGINE.draw(after, action, table.rng)
                payload = {k: v for k, v in action.items()
                           if k not in ("type", "player", "host")}
                validators[action["type"]].validate(payload)
                ENGINE.apply(after, action)
                tried += 1
    assert tried > 0


def test_status_and_public_players(table):
    t = table()
    assert ENGINE.status(t.state) == {"round": 1, "over": False}
    t.cards([2, 5, 7])
    assert ENGINE.public_players(t.state)["B"]["locked"] is False, "while sheets are written"
    t.sheets({"B": EX2["B"]})
    assert ENGINE.public_players(t.state)["B"]["locked"] is True
    t.sheets({p: n for p, n in EX2.items() if p != "B"})
    t.call("end")
    # The round counted: every sheet is in, and the strip no longer says "locked".
    assert ENGINE.public_players(t.state)["B"] == {"round_scores": [16], "stars": 0, "total": 16, "marker": 15}


def test_describe_every_event(table):
    names = {"A": "민수", "B": "지은", "C": "C", "D": "D"}
    t = table(dangerZoneEnabled=True)
    t.act("caller", seat="B")
    t.act("caller", seat=None)
    t.cards([2, 5, 7], danger=[1, 10])
    t.sheets(EX2)
    t.call("end")
    t.act("next_round")
    kinds = {e["type"] for e in t.events}
    assert kinds >= {"caller_set", "restriction_revealed", "danger_revealed", "sheet_locked",
                     "count_ready", "called", "round_ended", "round_scored", "round_started"}
    for ev in t.events:
        check_parts(ENGINE.describe(ev, names))
    ev = next(e for e in t.events if e["type"] == "restriction_revealed")
    assert describe_in(ENGINE, ev, "ko", names) == "제한카드 2 5 7: 끝자리 2, 5, 7 금지."
    over = {"type": "game_over", "winners": ["A"], "ended_by": "two_stars",
            "reason": "two_stars", "stars": {}}
    assert describe_in(ENGINE, over, "ko", names) == "게임 종료! 승리: 민수 (☆20 두 번)."
    assert describe_in(ENGINE, over, "en", {"A": "Mina"}) == "Game over! Mina won (two ☆20)."
