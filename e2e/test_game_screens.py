"""The in-game screens as a family met them (issue 41): a paused seat's figures and
turn, the "Your turn" toast, the odds section, the chips after the race, the fair
dice line of a game without dice, the undo sheet. Tables are driven through the
HTTP API; the phones look (and tap where the screen is what is tested).

Every phone of every e2e test also fails on a string its language lacks
(e2e/conftest.py: web/i18n.js reports each one it is asked for)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import call, open_as, send, snapshot, wait_version

# The Camel Up tests' fixed-random server (dice and the board given by the test).
from e2e.test_camelup import fixed  # noqa: F401
from e2e.test_game_night_camelup import race_waiting_for_paper_cards

NAMES = ["민수", "Bora", "지훈"]


def seat_table(base: str, game: str, options: dict | None = None) -> tuple[str, list[str]]:
    """A table of three (민수 hosts); the seats' tokens in seat order."""
    res = call(base, "POST", "/api/tables", {"game": game, "name": NAMES[0], "options": options or {}})
    table, tokens = res["table"], [res["player"]["token"]]
    for name in NAMES[1:]:
        tokens.append(call(base, "POST", f"/api/tables/{table}/players", {"name": name})["player"]["token"])
    return table, tokens


def open_players(page: Page) -> None:
    btn = page.locator("button[aria-controls='players-panel']")
    if btn.get_attribute("aria-expanded") != "true":
        btn.click()
    expect(page.locator("#players-panel")).to_be_visible()


def test_a_paused_seat_is_not_told_its_turn_and_shows_no_raw_figure(phone, server):
    """Items 2 and 3: King Up!, Bora's turn to place, the host enters for her
    (her phone pauses). No phone shows the platform's `paused` as a figure
    ("paused ✓" on a Korean screen); her phone does not say it is her turn, nor
    "waiting for: me". A "Your turn" toast goes when the turn passes (item 7)."""
    table, tokens = seat_table(server, "kingup")
    host, bora = phone("ko-KR"), phone("ko-KR")
    guest_en = phone("en-US")
    open_as(host, table, tokens[0])
    open_as(bora, table, tokens[1])
    open_as(guest_en, table, tokens[2])
    send(server, table, tokens[0], {"type": "start"})
    send(server, table, tokens[0], {"type": "place", "char": "A", "level": 1})
    assert snapshot(server, table)["view"]["turn"] == "p2"
    # Her turn on her own phone: the toast and the status say so. She places at
    # once: the toast goes in the very render that names 지훈 (item 7).
    expect(bora.locator(".ku-status.my-turn")).to_be_visible()
    expect(bora.locator("#toast")).to_have_text("내 차례예요")
    send(server, table, tokens[1], {"type": "place", "char": "B", "level": 1})
    bora.wait_for_function("() => document.querySelector('.waiting-names')?.textContent === '지훈'")
    assert bora.evaluate("() => document.getElementById('toast').hidden"), "the turn passed, the toast stayed"
    send(server, table, tokens[2], {"type": "place", "char": "C", "level": 1})
    send(server, table, tokens[0], {"type": "place", "char": "D", "level": 1})
    expect(bora.locator(".ku-status.my-turn")).to_be_visible()
    send(server, table, tokens[0], {"type": "phoneless", "player": "p2"})
    expect(bora.locator(".paused-card")).to_be_visible()
    expect(bora.locator(".ku-status")).to_be_visible()
    expect(bora.locator(".ku-status.my-turn")).to_have_count(0)
    expect(bora.locator(".ku-status-title")).to_have_text("Bora님이 배치 중")
    expect(bora.locator(".waiting-names")).to_have_text("Bora")
    expect(bora.locator(".waiting-seat.mine")).to_have_count(0)
    for page in (host, guest_en, bora):
        open_players(page)
        expect(page.locator("#players-panel .seat-figures").first).to_be_visible()
        for where in ("#players-panel", ".scoreboard"):
            text = page.locator(where).inner_text()
            assert "paused" not in text and "✓" not in text, (where, text)


def test_the_odds_section_shows_it_opens(phone, server):
    """Item 5: a closed "확률과 기댓값" had no arrow and looked empty: every
    section that opens shows a disclosure mark, turned when open."""
    table, tokens = seat_table(server, "camelup")
    page = phone("ko-KR")
    open_as(page, table, tokens[0])
    send(server, table, tokens[0], {"type": "start"})
    summary = page.locator(".cm-odds > summary")
    expect(summary).to_be_visible()
    mark = "s => { const m = getComputedStyle(s, '::before'); return [m.content, m.width, m.transform]; }"
    content, width, closed = summary.evaluate(mark)
    assert content not in ("none", "normal") and width != "0px" or "solid" in summary.evaluate(
        "s => getComputedStyle(s, '::before').borderInlineStartStyle"), (content, width)
    summary.click()
    assert summary.evaluate(mark)[2] != closed, "the mark does not turn when the section opens"


def test_the_race_chips_go_once_the_race_has_ended(phone, fixed):  # noqa: F811 (the fixture)
    """Item 8: while the host records the face-down cards, and after, the chips
    no longer count the leg's dice and the pyramid's tickets."""
    table, host_token, _ = race_waiting_for_paper_cards(fixed)
    host = phone("ko-KR", base_url=fixed)
    open_as(host, table, host_token)
    wait_version(host, snapshot(fixed, table)["version"])
    chips = host.locator(".cm-status .cm-chips")
    expect(chips).to_contain_text("레그")
    text = chips.inner_text()
    assert "주사위" not in text and "피라미드" not in text, text


def test_a_game_without_dice_does_not_speak_of_dice(phone, server):
    """Item 9: King Up! (goal cards dealt, sealed votes) showed "공정한 주사위" /
    "Fair dice", the label wrapping onto two lines."""
    table, tokens = seat_table(server, "kingup", {"goalCardMode": "deal"})
    pages = {"ko": phone("ko-KR"), "en": phone("en-US")}
    open_as(pages["ko"], table, tokens[0])
    open_as(pages["en"], table, tokens[1])
    send(server, table, tokens[0], {"type": "start"})
    for lang, page in pages.items():
        title = page.locator(".fair-line .fair-title")
        expect(title).to_have_text("공정한 카드·투표" if lang == "ko" else "Fair cards & votes")
        assert title.evaluate("e => e.getClientRects().length") == 1, "the label wraps"
        page.locator(".fair-button").click()
        expect(page.locator("#fair-explain")).to_be_visible()
        assert "주사위" not in page.locator("#fair-explain").inner_text()
        assert "dice" not in page.locator("#fair-explain").inner_text()


def test_the_undo_sheet_does_not_ask_when_there_is_nothing_to_undo(phone, server):
    """Item 14: the sheet asked "되돌릴까요?" and then said it could not."""
    table, tokens = seat_table(server, "kingup")
    host = phone("ko-KR")
    open_as(host, table, tokens[0])
    send(server, table, tokens[0], {"type": "start"})
    assert snapshot(server, table, tokens[0])["undo"]["target"] is None
    host.locator("button[aria-controls='undo-sheet']").click()
    sheet = host.locator("#undo-sheet")
    expect(sheet.locator("#undo-title")).to_have_text("되돌릴 수 있는 행동이 없어요")
    expect(sheet.locator("button.danger-fill")).to_be_hidden()
    sheet.get_by_role("button", name="닫기").click()
    expect(sheet).to_be_hidden()
    # Once there is something, it asks.
    send(server, table, tokens[0], {"type": "place", "char": "A", "level": 1})
    host.locator("button[aria-controls='undo-sheet']").click()
    expect(sheet.locator("#undo-title")).to_have_text("마지막 행동을 되돌릴까요?")
    expect(sheet.get_by_role("button", name="취소")).to_be_visible()
