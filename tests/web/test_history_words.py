"""The history as a phone words it (``web/history.js``): the engines send
string keys and values, the phone fills them in from its own tables with the
one Korean particle implementation (``web/i18n.js``), which used to have a
Python port on the server (``engines/korean.py``, gone with issue 40)."""

from __future__ import annotations

from engines.camelup.describe import describe as camelup
from engines.countup.describe import describe as countup
from engines.countup.describe import stretch
from engines.history import part
from engines.kingup.describe import describe as kingup
from tests.words import say, say_both, worded

NAMES = {"p1": "Sam", "p2": "민준", "p3": "유나"}


def test_particles_follow_the_word_they_come_after() -> None:
    lines = [
        kingup({"type": "placed", "player": "p1", "char": "M", "level": 3}, NAMES),
        kingup({"type": "moved", "player": "p2", "char": "G", "from": 2, "to": 3}, NAMES),
        kingup({"type": "moved", "player": "p2", "char": "L", "from": 5, "to": 6}, NAMES),
        kingup({"type": "votes_revealed", "candidate": "L", "result": "crowned", "votes": {}}, NAMES),
        kingup({"type": "votes_revealed", "candidate": "A", "result": "eliminated", "votes": {"p3": "no"},
                "next": "p3"}, NAMES),
        camelup({"type": "partnership_formed", "player": "p2", "with": "p3"}, NAMES),
        camelup({"type": "partnership_formed", "player": "p2", "with": "p1"}, NAMES),
        camelup({"type": "tile_placed", "player": "p1", "space": 4, "side": "boo", "from": None}, NAMES),
    ]
    ko = say(lines, "ko")
    assert ko[0] == "Sam님이 M을 3층(장교)에 놓았습니다."
    # The particle follows 층 (으로), not the level's name in brackets.
    assert ko[1] == "민준님이 G를 2층에서 3층(장교)으로 올렸습니다."
    assert ko[2] == "민준님이 L을 5층에서 왕좌로 올렸습니다."
    assert "L이 왕이 되었습니다" in ko[3]
    assert "A는 성에서" in ko[4] and "유나님 차례" in ko[4]
    assert ko[5:7] == ["민준: 유나와 베팅 파트너십", "민준: Sam과 베팅 파트너십"]
    assert ko[7] == "Sam: 관중 타일을 4칸에 야유면으로 놓음"


def test_lists_are_joined_as_each_language_does() -> None:
    collide = countup({"type": "declared", "number": 9, "players": ["p1", "p2", "p3"], "voided": False}, NAMES)
    two = countup({"type": "declared", "number": 9, "players": ["p1", "p2"], "voided": True}, NAMES)
    said = say_both([collide, two])
    assert said["en"] == ["9: Sam, 민준 and 유나 collide (X).", "9: Sam and 민준 collide (X), danger zone: no bonus."]
    assert said["ko"] == ["9: Sam·민준·유나 동시 선언 (X표시).", "9: Sam·민준 동시 선언 (X표시), 위험구간: 보너스 없음."]


def test_a_stretch_and_the_call_that_ends_it_read_as_one_line() -> None:
    call = countup({"type": "declared", "number": 18, "players": ["p3"]}, NAMES)
    said = say_both([[stretch(12, 17, "민준", True), *call], [stretch(5, 5, "Bo", False)]])
    assert said["en"] == ["12–17 counted by 민준; 18: 유나 declares and leads.", "5 counted by Bo"]
    assert said["ko"] == ["12–17: 민준님 카운트; 18: 유나 선언, 리더.", "5: Bo님 카운트"]


def test_a_page_reads_with_its_marks_and_headings() -> None:
    """An action entered for a seat without a phone names who entered it,
    after the seat's name where the line starts with it; a sealed choice
    taken back ends its line; headings use the game's word for its rounds."""
    bet = camelup({"type": "leg_bet_taken", "player": "p3", "camel": "purple", "value": 5}, NAMES)
    vote = kingup({"type": "vote_cast", "player": "p3", "count": 1, "of": 3}, NAMES)
    page = {
        "version": 9, "games": 2, "names": {"p3": "유나", "p1": "Sam"}, "more": False, "next_before": None,
        "rounds": [
            {"game": 1, "round": 0, "entries": [
                {"version": 1, "first": 1, "by": "p1", "undone": False, "parts": [part("history.start")]}]},
            {"game": 2, "round": 1, "entries": [
                {"version": 5, "first": 5, "by": "p1", "undone": False, "parts": bet, "entered_for": "p3"},
                {"version": 6, "first": 6, "by": "p1", "undone": True, "parts": vote, "entered_for": "p3",
                 "retracted": part("kingup.vote.no")},
                {"version": 7, "first": 7, "by": "p1", "undone": False, "entered_for": "p3",
                 "parts": [part("camelup.history.leg_started", leg=2)]}]},
        ],
    }
    en = worded(page, "en", "camelup")
    assert [r["label"] for r in en["rounds"]] == ["Game 1 · Before the first leg", "Game 2 · Leg 1"]
    assert [e["text"] for e in en["rounds"][1]["entries"]] == [
        "유나 (entered by Sam) took the purple leg betting ticket (5)",
        "유나 (entered by Sam) voted (1 of 3). (a sealed choice taken back by an undo: No)",
        "유나 (entered by Sam): Leg 2 begins",
    ]
    ko = worded(page, "ko", "camelup")
    assert [r["label"] for r in ko["rounds"]] == ["1번째 게임 · 첫 레그 전", "2번째 게임 · 1레그"]
    assert ko["rounds"][1]["entries"][0]["text"] == "유나 (Sam 입력): 보라 레그 베팅 티켓 (5) 가져감"


def test_a_retracted_choice_reads_in_the_screen_s_language() -> None:
    """The sealed choice an undo took back travels as a value like a part's
    (``Engine.describe_sealed``): a camel's colour is its key, a vote King
    Up's word for it, a sheet its numbers."""
    finish = camelup({"type": "finish_card_placed", "player": "p2", "pile": "winner"}, NAMES)
    vote = kingup({"type": "vote_cast", "player": "p3", "count": 1, "of": 3}, NAMES)
    entries = [{"version": v, "first": v, "by": "p2", "undone": True, "parts": parts, "retracted": value}
               for v, (parts, value) in enumerate([(finish, part("camelup.colour.blue")),
                                                  (vote, part("kingup.vote.yes")),
                                                  ([part("history.start")], [3, 9, 14])], 1)]
    page = {"version": 4, "games": 1, "names": {}, "more": False, "next_before": None,
            "rounds": [{"game": 1, "round": 1, "entries": entries}]}
    ko = [e["text"] for e in worded(page, "ko", "camelup")["rounds"][0]["entries"]]
    en = [e["text"] for e in worded(page, "en", "camelup")["rounds"][0]["entries"]]
    assert ko[0] == "민준: 우승 베팅 칸에 결승 베팅 카드 1장 (되돌리기로 취소된 비밀 선택: 파랑)"
    assert en[0] == "민준 placed a finish card on the winner pile (a sealed choice taken back by an undo: blue)"
    assert ko[1].endswith("(되돌리기로 취소된 비밀 선택: 찬성)") and en[1].endswith("undo: Yes)")
    assert ko[2].endswith("(되돌리기로 취소된 비밀 선택: 3, 9, 14)") and en[2].endswith("undo: 3, 9, 14)")
