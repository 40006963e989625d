"""The in-game screens as a family met them (issue 41): a paused seat's figures and
turn, the "Your turn" toast, the odds section, the chips after the race, the fair
dice line of a game without dice, the undo sheet. Tables are driven through the
HTTP API; the phones look (and tap where the screen is what is tested).

Every phone of every e2e test also fails on a string its language lacks
(e2e/conftest.py: web/i18n.js reports each one it is asked for)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import NAMES, call, open_as, seat_table, send, snapshot, wait_version

# The Camel Up tests' fixed-random server (dice and the board given by the test).
from e2e.test_camelup import fixed  # noqa: F401
from e2e.test_game_night_camelup import race_waiting_for_paper_cards


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
    # Bora's phone hands its seat to the host itself (the host may not take a live phone's seat).
    send(server, table, tokens[1], {"type": "phoneless", "player": "p2"})
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
    # Handed back, not yet continued: still a spectator's screen; continued, her turn again.
    send(server, table, tokens[0], {"type": "phone_back", "player": "p2"})
    expect(bora.locator(".paused-card .paused-continue")).to_be_visible()
    expect(bora.locator(".ku-status.my-turn")).to_have_count(0)
    bora.locator(".paused-card .paused-continue").click()
    expect(bora.locator(".ku-status.my-turn")).to_be_visible()
    expect(bora.locator(".waiting-seat.mine")).to_have_text("나")


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


#: The contrast ratio (WCAG) of an element's text against its own background.
CONTRAST = """(el) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const button = el.closest('button');
  const cs = getComputedStyle(button);
  const a = lum(rgb(getComputedStyle(el).color)), b = lum(rgb(cs.backgroundColor));
  return [Number(cs.opacity), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
}"""


def test_off_turn_ticket_values_read_clearly(phone, server):
    """Item 15: off turn, the leg tickets' values were pastel (opacity 0.3)."""
    table, tokens = seat_table(server, "camelup")
    send(server, table, tokens[0], {"type": "start"})
    current = snapshot(server, table)["view"]["current_player"]
    other = next(t for i, t in enumerate(tokens) if f"p{i + 1}" != current)
    for scheme in ("light", "dark"):
        page = phone("ko-KR", color_scheme=scheme)
        open_as(page, table, other)
        values = page.locator("button.cm-ticket:disabled .cm-ticket-value")
        expect(values).to_have_count(5)
        for el in values.element_handles():
            opacity, ratio = el.evaluate(CONTRAST)
            assert opacity == 1 and ratio >= 4.5, (scheme, opacity, ratio)


def test_the_lobby_keeps_add_on_one_line_and_the_box_by_its_words(phone, server):
    """Item 10: the lobby's "추가" broke into 추/가; the proxies checkbox sat far
    from its label."""
    res = call(server, "POST", "/api/tables", {"game": "kingup", "name": NAMES[0], "options": {}})
    table, token = res["table"], res["player"]["token"]
    call(server, "POST", f"/api/tables/{table}/players", {"name": "하린", "phone": False}, token)
    for width in (320, 390):
        page = phone("ko-KR")
        page.set_viewport_size({"width": width, "height": 844})
        open_as(page, table, token)
        page.locator("details.phoneless-add > summary").click()
        add = page.locator("form.add-phoneless button[type='submit']")
        expect(add).to_have_text("추가")
        lines = add.evaluate("b => { const r = document.createRange(); r.selectNodeContents(b); "
                             "return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; }")
        assert lines == 1, (width, lines)
        gap = page.evaluate("() => document.querySelector('label[for=proxies-all]').getBoundingClientRect().left"
                            " - document.getElementById('proxies-all').getBoundingClientRect().right")
        assert 0 <= gap <= 16, (width, gap)


def test_count_up_marks_an_x_cell_without_covering_its_number(phone, server):
    """Item 11: the corner "✕" of an X cell sat on its number ("15")."""
    import random

    from e2e.countup_helpers import random_sheets

    table, tokens = seat_table(server, "countup")
    send(server, table, tokens[0], {"type": "start"})
    view = snapshot(server, table)["view"]
    for tok, nums in zip(tokens, random_sheets(view, random.Random(41), players=3), strict=True):
        send(server, table, tok, {"type": "numbers", "numbers": nums})
    send(server, table, tokens[0], {"type": "call", "until": "end"})
    page = phone("ko-KR")
    page.set_viewport_size({"width": 320, "height": 844})
    open_as(page, table, tokens[0])
    cells = page.locator(".cu-round-result .cu-cell.cu-x")
    expect(cells.first).to_be_visible()
    # Every cell measured in one script run: a handle taken before a re-render
    # (a presence frame redraws the screen) points at a detached cell, whose
    # computed style is empty and whose boxes are all zero.
    drawn_all = page.evaluate("""() => [...document.querySelectorAll('.cu-round-result .cu-cell.cu-x')].map((c) => {
      const num = c.querySelector('.cu-cell-num').getBoundingClientRect();
      const mark = c.querySelector('.cu-cell-mark').getBoundingClientRect();
      const over = getComputedStyle(c.querySelector('.cu-cell-num'), '::after').content;
      return {over, apart: mark.top >= num.bottom - 1, mark: c.querySelector('.cu-cell-mark').textContent,
              height: num.height};
    })""")
    assert drawn_all
    for drawn in drawn_all:
        assert drawn["over"] in ("none", "normal") and drawn["apart"] and drawn["mark"] == "X", drawn
        assert drawn["height"] > 0, drawn  # laid out, not a detached cell
