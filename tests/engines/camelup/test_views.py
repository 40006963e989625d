"""Views: secrecy of finish cards, money display options, results; history lines."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from engines.camelup import ENGINE
from engines.camelup.board import track_from
from engines.camelup.state import Roll
from tests.words import check_parts, say_both

BOARD = {3: ["blue", "green"], 7: ["yellow"], 12: ["red", "purple"], 14: ["white"], 16: ["black"]}


def with_b_secrets(mk: Any, b_hand: tuple[str, ...], b_cards: list[str], **options: Any) -> Any:
    """A 3-seat table where only p2's finish colours vary."""
    winner = (("p1", "red"), ("p2", b_cards[0]), ("p3", "blue"))
    loser = (("p2", b_cards[1]),)
    seats = {"p1": {"hand": ("blue", "green", "yellow", "purple")}, "p2": {"hand": b_hand},
             "p3": {"hand": ("green", "yellow", "red", "purple")}}  # fmt: skip
    return mk(board=BOARD, options=options, seats=seats, winner_pile=winner, loser_pile=loser)


def test_other_seats_finish_colours_never_show(mk) -> None:
    for options in ({}, {"showFinishCardOwners": False}, {"showOthersMoney": False}):
        one = with_b_secrets(mk, ("blue", "green", "yellow"), ["red", "purple"], **options)
        two = with_b_secrets(mk, ("red", "purple", "blue"), ["green", "yellow"], **options)
        for viewer in ("p1", "p3", None):
            assert ENGINE.view(one, viewer) == ENGINE.view(two, viewer), (viewer, options)
        assert ENGINE.view(one, "p2") != ENGINE.view(two, "p2")
        assert ENGINE.public_players(one) == ENGINE.public_players(two)


def test_own_finish_cards_and_pile_owners(mk) -> None:
    s = with_b_secrets(mk, ("blue", "green", "yellow"), ["red", "purple"])
    me = ENGINE.view(s, "p2")["me"]
    assert me["finish_hand"] == ["blue", "green", "yellow"]
    assert me["finish_placed"] == [{"pile": "winner", "camel": "red", "position": 2},
                                   {"pile": "loser", "camel": "purple", "position": 1}]  # fmt: skip
    v = ENGINE.view(s, "p1")
    assert v["finish_piles"]["winner"] == {"size": 3, "owners": ["p1", "p2", "p3"]}
    p2 = next(p for p in v["players"] if p["id"] == "p2")
    assert p2["finish_cards"] == {"winner": 1, "loser": 1}
    assert ENGINE.view(s, None)["me"] is None
    hidden = with_b_secrets(
        mk, ("blue", "green", "yellow"), ["red", "purple"], showFinishCardOwners=False
    )
    v = ENGINE.view(hidden, "p1")
    assert v["finish_piles"]["winner"] == {"size": 3, "owners": None}
    assert "finish_cards" not in next(p for p in v["players"] if p["id"] == "p2")


def test_piles_are_revealed_when_the_race_ends(mk, do) -> None:
    s = with_b_secrets(mk, ("blue", "green", "yellow"), ["red", "purple"])
    board = {
        3: ["blue", "green"],
        7: ["yellow"],
        12: ["purple"],
        14: ["white"],
        15: ["red"],
        16: ["black"],
    }
    s = replace(s, track=track_from(board))
    s, _ = do(s, "pyramid", "p1", die="red", value=2)
    assert ENGINE.status(s)["over"]
    v = ENGINE.view(s, "p1")
    assert [c["camel"] for c in v["result"]["piles"]["winner"]] == ["red", "red", "blue"]
    assert [c["camel"] for c in v["result"]["piles"]["loser"]] == ["purple"]
    assert [c["paid"] for c in v["result"]["piles"]["winner"]] == [8, 5, -1]
    assert v["result"]["winners"] == ["p1"] and v["current_player"] is None


def test_money_hidden_from_others_when_asked(mk) -> None:
    s = mk(options={"showOthersMoney": False}, seats={"p2": {"money": 7}})
    assert ENGINE.public_players(s) == {"p1": {}, "p2": {}, "p3": {}}
    v = ENGINE.view(s, "p1")
    assert [p.get("money") for p in v["players"]] == [3, None, None]
    assert v["me"]["money"] == 3
    assert all("money" not in p for p in ENGINE.view(s, None)["players"])
    shown = mk(seats={"p2": {"money": 7}})
    assert ENGINE.public_players(shown) == {
        "p1": {"money": 3},
        "p2": {"money": 7},
        "p3": {"money": 3},
    }


def test_last_leg_hides_others_money_when_asked(mk, do) -> None:
    tents = tuple(Roll(d, 1, None, d) for d in ("blue", "green", "yellow", "red"))
    s = mk(board=BOARD, options={"showOthersMoney": False}, tents=tents)
    s, _ = do(s, "pyramid", "p1", die="purple", value=1)
    lines = {line["player"]: line for line in ENGINE.view(s, "p2")["last_leg"]["players"]}
    assert "old" not in lines["p1"] and lines["p2"]["old"] == 3
    assert lines["p1"]["tickets"] == [{"kind": "pyramid", "camel": None, "value": 1, "place": None,
                                       "why": "pyramid", "reward": 1}]  # fmt: skip


def test_view_fields(mk) -> None:
    s = mk(board=BOARD, seats={"p3": {"tile": (9, "cheer"), "bets": (("red", 5),)}},
           tickets=((5, 3, 2, 2),) * 3 + ((3, 2, 2),) + ((5, 3, 2, 2),))  # fmt: skip
    v = ENGINE.view(s, "p1")
    json.dumps(v)
    assert len(v["board"]["spaces"]) == 16 and v["board"]["spaces"][11]["camels"] == [
        "red",
        "purple",
    ]
    assert v["board"]["spaces"][8]["tile"] == {"owner": "p3", "side": "cheer"}
    assert v["tiles"] == [{"space": 9, "owner": "p3", "side": "cheer"}]
    assert v["tickets"]["red"] == 3 and v["ticket_stacks"]["red"] == [3, 2, 2]
    assert v["pyramid"] == ["blue", "green", "yellow", "red", "purple", "grey"] and v["tents"] == []
    assert (v["current_player"], v["start_player"], v["leg"]) == ("p1", "p1", 1)
    assert v["ranking"] == ["purple", "red", "yellow", "green", "blue"]
    assert v["pyramid_tickets_left"] == 5 and v["partnerships"] is False
    assert v["result"] is None and v["last_leg"] is None


def test_racing_colours_relabel_history(mk, do) -> None:
    s = mk(options={"racingColours": ["blue", "green", "orange", "red", "purple"]})
    assert ENGINE.view(s, None)["colours"]["yellow"] == "orange"
    _, events = do(s, "leg_bet", "p1", camel="yellow")
    said = say_both([ENGINE.describe(events[0], {"p1": "Mina"})])
    assert said["en"] == ["Mina took the orange leg betting ticket (5)"]
    assert "주황" in said["ko"][0]


def test_every_event_type_reads_in_both_languages(mk, do) -> None:
    names = {"p1": "Ann", "p2": "Ben", "p3": "Cal", "p4": "Dee", "p5": "Eli", "p6": "Fay"}
    six = tuple(names)
    seen: dict[str, dict[str, Any]] = {}

    def note(events: list[dict[str, Any]]) -> None:
        for e in events:
            seen.setdefault(e["type"], e)

    s = mk(six, {16: ["red"], 1: ["blue", "green", "yellow", "purple"], 10: ["white", "black"]},
           options={"partnershipCopy": "ask"})  # fmt: skip
    for kind, player, payload in [
        ("leg_bet", "p1", {"camel": "red"}),
        ("spectator", "p2", {"space": 5, "side": "boo"}),
        ("finish_bet", "p3", {"pile": "winner", "camel": "red"}),
        ("partner", "p4", {"with": "p1"}),
        ("copy_choice", "p1", {"choice": "best"}),
        ("set_stack", "p1", {"space": 2, "camels": ["blue", "green", "yellow", "purple"]}),
        ("pyramid", "p5", {"die": "grey", "value": 1, "color": "black"}),
        ("pyramid", "p6", {"die": "red", "value": 1}),
    ]:
        s, events = do(s, kind, player, host=True, **payload)
        note(events)
    p = mk(
        ("p1",),
        options={"mode": "pyramid"},
        tents=tuple(Roll(d, 1, None, d) for d in ("blue", "green", "yellow", "red")),
    )
    p, events = do(p, "pyramid", "p1", die="purple", value=1)
    note(events)
    _, events = do(p, "next_leg", "p1")
    note(events)
    q = mk(tents=tuple(Roll(d, 1, None, d) for d in ("blue", "green", "yellow", "red")))
    _, events = do(q, "pyramid", "p1", die="purple", value=1)
    note(events)
    assert set(seen) == {
        "leg_bet_taken", "tile_placed", "finish_card_placed", "partnership_formed", "copy_chosen",
        "stack_set", "die_rolled", "camel_moved", "race_ended", "leg_scored", "pile_revealed",
        "game_over", "leg_ended", "leg_started",
    }  # fmt: skip
    kinds = list(seen)
    for event in seen.values():
        json.dumps(event)
        check_parts(ENGINE.describe(event, names))
    said = say_both([ENGINE.describe(seen[k], names) for k in kinds])
    for lang, lines in said.items():
        for kind, line in zip(kinds, lines, strict=True):
            assert line and line != kind and "p1" not in line, (lang, line)
    en = dict(zip(kinds, said["en"], strict=True))
    assert en["game_over"].startswith("Cal wins! Final money: Ann 8")
    assert en["die_rolled"] == "Eli rolled the grey die: B1, the black crazy camel moves"
    assert said["ko"][kinds.index("die_rolled")] == "Eli: 회색 주사위 검1 → 검정 미친 낙타"


def test_board_publishes_its_size_tile_spaces_and_tents(mk) -> None:
    from engines.camelup.board import tile_targets

    s = mk(board={})
    v = ENGINE.view(s, "p1")
    assert v["board"]["size"] == len(v["board"]["spaces"]) == 16
    # On an empty board every space a tile may ever go on is open.
    open_spaces = sorted({sp for sp, _ in tile_targets(s.track, {}, "p1", False)})
    assert v["board"]["tile_spaces"] == open_spaces == list(range(2, 17))
    assert v["tents_per_leg"] == 5
