"""The history as a table's score pad (GET /api/tables/<id>/history): lines by
leg (Camel Up) or round, one line per meaningful event, a stretch of numbers
counted aloud (Count Up) folded into one line, in Korean and English."""

from __future__ import annotations

from typing import Any

from tests.server.conftest import Phone, open_table
from tests.server.service.test_results import kingup_table, play_kingup
from tests.words import worded


def history(phone: Phone, lang: str) -> list[dict[str, Any]]:
    """The page's groups as a phone in ``lang`` words them (``tests/words.py``)."""
    r = phone.client.get(f"/api/tables/{phone.table}/history", headers=phone.auth)
    assert r.status_code == 200, r.json
    rounds: list[dict[str, Any]] = worded(r.json, lang)["rounds"]
    return rounds


def lines(phone: Phone, lang: str, round_no: int) -> list[tuple[str, bool]]:
    group = next(g for g in history(phone, lang) if g["round"] == round_no)
    return [(e["text"], e["undone"]) for e in group["entries"]]


def countup_table(client: Any, **options: Any) -> list[Phone]:
    phones = open_table(client, joiners=2, game="countup", options={"restrictionSource": "manual", **options})
    assert phones[0].act("start").status_code == 200
    assert phones[0].act("restriction", digits=[7, 8, 9]).status_code == 200
    return phones


def test_countup_folds_the_numbers_counted_aloud(client) -> None:
    host, bo, cy = countup_table(client)
    sheets = {host: [1, 12, 24, 34, 41], bo: [3, 15, 32, 35, 43], cy: [11, 21, 33, 36, 46]}
    for phone, numbers in sheets.items():
        assert phone.act("numbers", numbers=numbers).status_code == 200
    for _ in range(14):  # 1-14
        assert host.act("call").status_code == 200
    assert host.act("undo").status_code == 200  # 14 taken back
    for _ in range(2):  # 14 again, 15
        assert host.act("call").status_code == 200
    calls = [line for line in lines(host, "en", 1) if line[0][0].isdigit()]
    assert calls == [
        ("1: Host declares and leads.", False),
        ("2 counted by Host; 3: P2 declares and leads.", False),
        ("4–10 counted by Host; 11: P3 declares and leads.", False),
        ("12: Host declares and leads.", False),
        ("13 counted by Host", False),
        ("14 counted by Host", True),
        ("14 counted by Host; 15: P2 declares and leads.", False),
    ]
    ko = [line for line in lines(host, "ko", 1) if line[0][0].isdigit()]
    assert ko[2] == ("4–10: Host님 카운트; 11: P3 선언, 리더.", False)
    assert ko[5] == ("14: Host님 카운트", True)
    entries = next(g for g in history(host, "en") if g["round"] == 1)["entries"]
    folded = next(e for e in entries if e["text"].startswith("4–10"))
    assert folded["version"] - folded["first"] == 7, "the line covers the calls of 4 to 11"


def test_countup_paper_sheets_fold_up_to_the_declared_number(client) -> None:
    host, bo, _ = countup_table(client, sheetMode="paper")
    for _ in range(5):
        assert host.act("call").status_code == 200
    assert host.act("declare", players=[bo.id]).status_code == 200
    for _ in range(3):
        assert host.act("call").status_code == 200
    calls = [line[0] for line in lines(host, "en", 1) if line[0][0].isdigit()]
    assert calls == ["1–4 counted by Host; 5: P2 declares and leads.", "6–8 counted by Host"]
    calls = [line[0] for line in lines(host, "ko", 1) if line[0][0].isdigit()]
    assert calls == ["1–4: Host님 카운트; 5: P2 선언, 리더.", "6–8: Host님 카운트"]


def test_camelup_history_is_by_leg_and_the_leg_end_is_three_lines(client) -> None:
    phones = open_table(client, joiners=2, game="camelup")
    phones[0].act("start")
    while phones[0].get().json["round"] < 2:
        turn = next(p for p in phones if any(a["type"] == "pyramid" for a in p.get().json["legal"]))
        assert turn.act("pyramid").status_code == 200
    en = history(phones[0], "en")
    assert [g["label"] for g in en] == ["Before the first leg", "Leg 1", "Leg 2"]
    leg1, leg2 = en[1]["entries"], en[2]["entries"]
    scored, started = leg1[-1], leg2[0]
    assert scored["text"].startswith("Leg 1 scored (1st ") and started["text"].startswith("Leg 2 begins, ")
    roll = leg1[-2]
    assert roll["version"] == scored["version"] == started["version"], "one die, three lines"
    assert "rolled" in roll["text"] and "Leg" not in roll["text"]
    ko = history(phones[0], "ko")
    assert [g["label"] for g in ko] == ["첫 레그 전", "1레그", "2레그"]
    assert ko[1]["entries"][-1]["text"].startswith("1레그 정산 (1등 ")
    assert ko[2]["entries"][0]["text"].startswith("2레그 시작, ")
    assert not any("라운드" in e["text"] for g in ko for e in g["entries"])


def test_kingup_history_is_by_round(client) -> None:
    host = kingup_table(client)[0]
    assert host.act("start").status_code == 200
    play_kingup(host)
    en = history(host, "en")
    assert [g["label"] for g in en] == ["Before the first round", "Round 1", "Round 2", "Round 3"]
    assert en[2]["entries"][0]["text"] == "Round 2 begins."
    assert en[3]["entries"][-1]["text"].startswith("Game over! ")
    assert en[3]["entries"][-2]["text"].startswith("Round 3 scores (King D): ")
    ko = history(host, "ko")
    assert [g["label"] for g in ko] == ["첫 라운드 전", "1라운드", "2라운드", "3라운드"]
    assert ko[1]["entries"][0]["text"] == "게임 시작!"


def test_korean_lines_choose_their_particles(client) -> None:
    host = open_table(client, joiners=0, game="kingup")[0]
    assert history(host, "ko")[0]["entries"][0]["text"] == "Host님이 테이블을 만들었습니다."
    assert not any(mark in e["text"] for g in history(host, "ko") for e in g["entries"]
                   for mark in ("(를)", "(가)", "(는)", " 님"))


def test_countup_the_last_number_folds_and_the_end_has_its_own_line(client) -> None:
    # Finished at once: only the last number is logged, its stretch starts at 1.
    host = countup_table(client, sheetMode="paper")[0]
    assert host.act("call", until="end").status_code == 200
    assert lines(host, "en", 1)[-3:-1] == [("1–50 counted by Host", False), ("Round 1 ends at 50.", False)]


def test_a_call_entered_for_a_seat_without_a_phone_keeps_its_own_line() -> None:
    """The stretch folds; the call entered for another seat does not, so the
    phone can mark it where the line starts ("P3 (entered by Host): 11: …")."""
    from engines import registry
    from engines.history import part
    from server.service.history import _fold, _Line

    engine = registry.get("countup")
    assert engine is not None
    quiet = [_Line(v, v, "p1", [part("countup.history.call", number=v)], False, 1, count=v, quiet=True)
             for v in range(1, 12)]
    said = [part("countup.history.call_said", number=11, said=part("countup.history.declares", p="P3"))]
    mine = _Line(12, 12, "p1", said, False, 1, count=11)
    proxied = _Line(12, 12, "p1", said, False, 1, count=11, entered_for="p3")
    folded = _fold(engine, [*quiet, mine], {"p1": "Host"}, whole=True)
    assert [[p["key"] for p in line.parts] for line in folded] == [
        ["countup.history.stretch_then", "countup.history.call_said"]]
    apart = _fold(engine, [*quiet, proxied], {"p1": "Host"}, whole=True)
    assert [[p["key"] for p in line.parts] for line in apart] == [
        ["countup.history.stretch"], ["countup.history.call_said"]]
    assert apart[0].parts[0]["params"]["span"] == "1–11" and apart[1].entered_for == "p3"
