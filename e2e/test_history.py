"""The history screen reads like a table's score pad (issue 14): Count Up's calls
folded per stretch, an undone line struck through, groups headed by round (Camel
Up: by leg), on a Korean and an English phone."""

from __future__ import annotations

from playwright.sync_api import expect

from e2e.camelup_helpers import call, open_as, send, snapshot
from e2e.table_helpers import open_history

LANGS = {"ko": "ko-KR", "en": "en-US"}


def test_countup_history_folds_calls_and_strikes_through_the_undone(phone, server) -> None:
    res = call(server, "POST", "/api/tables", {"game": "countup", "name": "민수",
                                                "options": {"restrictionSource": "manual"}})
    table, host = res["table"], res["player"]["token"]
    seats = [host] + [call(server, "POST", f"/api/tables/{table}/players", {"name": n})["player"]["token"]
                      for n in ("유나", "Sam")]
    send(server, table, host, {"type": "start"})
    send(server, table, host, {"type": "restriction", "digits": [7, 8, 9]})
    for token, numbers in zip(seats, ([1, 12, 24, 34, 41], [3, 15, 32, 35, 43], [11, 21, 33, 36, 46]), strict=True):
        send(server, table, token, {"type": "numbers", "numbers": numbers})
    for _ in range(13):  # 1-13
        send(server, table, host, {"type": "call"})
    send(server, table, host, {"type": "undo"})  # 13 taken back
    for _ in range(2):  # 13 again, 14
        send(server, table, host, {"type": "call"})
    want = {
        "ko": ("1라운드", "4–10: 민수님 카운트; 11: Sam 선언, 리더.", "13: 민수님 카운트", "취소됨"),
        "en": ("Round 1", "4–10 counted by 민수; 11: Sam declares and leads.", "13 counted by 민수", "undone"),
    }
    for lang, locale in LANGS.items():
        page = phone(locale)
        open_as(page, table, host)
        open_history(page)
        heading, folded, struck, _ = want[lang]
        panel = page.locator("#history-panel")
        expect(panel.locator(".history-round h3").first).to_have_text(heading)
        expect(panel.get_by_role("listitem").filter(has_text=folded)).to_have_count(1)
        undone = panel.locator("li.undone")
        expect(undone).to_have_count(1)
        expect(undone.locator("span").first).to_have_text(struck)
        assert "line-through" in undone.locator("span").first.evaluate("e => getComputedStyle(e).textDecorationLine")
        # No line of a lone number ("12."): every quiet call sits in a stretch.
        texts = panel.get_by_role("listitem").all_inner_texts()
        assert not [t for t in texts if t.strip().rstrip(".").isdigit()], texts
        expect(panel.get_by_role("listitem").first).to_contain_text(
            "13–14: 민수님 카운트" if lang == "ko" else "13–14 counted by 민수")
        if lang == "ko":
            # Undo takes back one number, and its confirm says so, not the stretch.
            page.locator("button[aria-controls='undo-sheet']").click()
            expect(page.locator("#undo-sheet .undo-what")).to_have_text("되돌릴 행동: 14: 민수님 카운트")
            page.locator("#undo-sheet").get_by_role("button", name="취소").click()
    assert snapshot(server, table, host)["status"] == "playing"


def test_camelup_history_is_headed_by_leg(phone, server) -> None:
    res = call(server, "POST", "/api/tables", {"game": "camelup", "name": "민수", "options": {}})
    table, host = res["table"], res["player"]["token"]
    tokens = [host] + [call(server, "POST", f"/api/tables/{table}/players", {"name": n})["player"]["token"]
                       for n in ("유나", "Sam")]
    send(server, table, host, {"type": "start"})
    for _ in range(60):
        snap = snapshot(server, table, host)
        if snap["round"] >= 2:
            break
        turn = next(t for t in tokens if any(a["type"] == "pyramid" for a in snapshot(server, table, t)["legal"]))
        send(server, table, turn, {"type": "pyramid"})
    for lang, locale in LANGS.items():
        page = phone(locale)
        open_as(page, table, host)
        open_history(page)
        headings = page.locator("#history-panel .history-round h3")
        want = ["2레그", "1레그", "첫 레그 전"] if lang == "ko" else ["Leg 2", "Leg 1", "Before the first leg"]
        expect(headings).to_have_text(want)
        first_leg = page.locator("#history-panel .history-round").nth(1).get_by_role("listitem")
        expect(first_leg.first).to_contain_text("1레그 정산" if lang == "ko" else "Leg 1 scored")
        if lang == "ko":
            expect(page.locator("#history-panel")).not_to_contain_text("라운드")
            # The lines travel as keys: another language words them again on
            # the phone, with no new request for the history.
            asked: list[str] = []
            page.on("request", lambda r, asked=asked: asked.append(r.url) if "/history" in r.url else None)
            page.locator(".lang-switch button[lang='en']").click()
            expect(headings).to_have_text(["Leg 2", "Leg 1", "Before the first leg"])
            expect(first_leg.first).to_contain_text("Leg 1 scored")
            assert asked == [], asked
            page.locator(".lang-switch button[lang='ko']").click()
            expect(headings).to_have_text(want)


def test_a_finish_card_taken_back_reads_its_camel_in_the_phone_s_language(phone, server) -> None:
    """Once the race is over, the undone card's camel is the colour's word
    (파랑 on a Korean phone), not the English id the server knows it by."""
    res = call(server, "POST", "/api/tables", {"game": "camelup", "name": "민수", "options": {}})
    table, host = res["table"], res["player"]["token"]
    tokens = [host] + [call(server, "POST", f"/api/tables/{table}/players", {"name": n})["player"]["token"]
                       for n in ("유나", "Sam")]
    send(server, table, host, {"type": "start"})
    send(server, table, host, {"type": "leg_bet", "camel": "green"})
    send(server, table, tokens[1], {"type": "finish_bet", "pile": "winner", "camel": "blue"})
    send(server, table, host, {"type": "undo"})
    for _ in range(400):
        if snapshot(server, table, host)["status"] == "over":
            break
        turn = next(t for t in tokens if any(a["type"] == "pyramid" for a in snapshot(server, table, t)["legal"]))
        send(server, table, turn, {"type": "pyramid"})
    assert snapshot(server, table, host)["status"] == "over"
    for lang, locale in LANGS.items():
        page = phone(locale)
        open_as(page, table, host)
        open_history(page)
        undone = page.locator("#history-panel li.undone")
        expect(undone).to_have_count(1)
        expect(undone.locator("span").first).to_have_text(
            "유나: 우승 베팅 칸에 결승 베팅 카드 1장 (되돌리기로 취소된 비밀 선택: 파랑)" if lang == "ko"
            else "유나 placed a finish card on the winner pile (a sealed choice taken back by an undo: blue)")
