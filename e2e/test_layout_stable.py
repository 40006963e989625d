"""What a phone shows does not move under the thumb unasked: as a seat's table
first loads, as its turn comes and goes, and through Count Up's count; and
the longest names never make a small phone's page wider than its screen.

Lighthouse's CLS target (≤ 0.05, docs/performance.md) was only ever audited on
screens without a seat; a seat's own table shifted 0.05-0.08 as it loaded: the
fair line and the scores were drawn before the game's screen, which then came
in above the one and reshaped the other. Measured here as the browser counts
it (``layout-shift`` entries), on a slow phone on a slow network (bench/web.py's:
4x CPU, 560 ms round trips), where the first snapshot comes before the game's
module and the gap between them is widest. The bottom bar and the caller's
controls were found the same way, on a phone watching a game.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext

from e2e.countup_helpers import L, random_sheets
from e2e.test_webkit import seated_table
from tests import api_client

GAMES = ("camelup", "kingup", "countup")
GAME_ROOT = {"camelup": ".game-camelup:not([hidden])", "kingup": ".game-kingup:not([hidden])",
             "countup": ".game-countup"}
# Every shift, with what moved, from the page's first paint (buffered).
RECORD = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) continue;
    const moved = (e.sources || []).map((s) => s.node && s.node.nodeType === 1
      ? `${s.node.tagName.toLowerCase()}.${String(s.node.className).replace(/ /g, '.')}` : String(s.node && s.node.nodeName));
    window.__shifts.push({ value: e.value, moved });
  }
}).observe({ type: 'layout-shift', buffered: true });
"""
SLOW_NETWORK = {"offline": False, "latency": 560, "downloadThroughput": 1_500_000 / 8,
                "uploadThroughput": 750_000 / 8}
# The connection badge's words change width as it connects (~0.0002): under this.
NOTHING = 0.005
SEATS = ["Host", "P2", "P3"]


def _act(server: str, table: str, token: str, action: dict[str, object], request_id: str) -> None:
    api_client.call(server, "POST", f"/api/tables/{table}/actions",
                    {"action": action, "request_id": request_id}, token)


def _phone(browser: Browser, server: str, table: str, token: str, **context: Any) -> BrowserContext:
    """A phone seated at ``table`` (its token in storage, as after joining)."""
    args: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                               "locale": "ko-KR", "service_workers": "block", **context}
    ctx = browser.new_context(base_url=server, **args)
    ctx.add_init_script(f"localStorage.setItem('tablemate.token.{table}', '{token}');")
    return ctx


@pytest.mark.parametrize("game", GAMES)
def test_a_seats_first_load_moves_nothing_on_screen(browser: Browser, server: str, game: str) -> None:
    table, (host, other, _) = seated_table(server, game, SEATS)
    # The host's seat has the first turn (its screen folds the scores), the other waits.
    for token in (host, other):
        ctx = _phone(browser, server, table, token, viewport={"width": 412, "height": 823}, locale="en-US")
        ctx.add_init_script(RECORD)
        try:
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", SLOW_NETWORK)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            page.goto(f"/t/{table}")
            page.wait_for_selector(GAME_ROOT[game], timeout=30_000)
            page.wait_for_selector(".table:not(.game-pending)")
            page.wait_for_timeout(1_000)  # what a draw after the first might still move
            shifts = page.evaluate("window.__shifts")
            total = sum(s["value"] for s in shifts)
            assert total < NOTHING, (game, "host" if token == host else "seat 2", shifts)
        finally:
            ctx.close()


def test_scores_show_when_the_games_screen_cannot_load(browser: Browser, server: str) -> None:
    """The scores wait for the game's screen, not for a module that never
    comes: a failed download puts its retry in the game's place, and the
    scores show with it."""
    table, (_, other, _) = seated_table(server, "kingup", SEATS)
    ctx = _phone(browser, server, table, other, locale="en-US")
    try:
        page = ctx.new_page()
        # Every try, the loader's own retry (a query of its own) too.
        page.route(lambda url: "/kingup" in url and ".js" in url, lambda route: route.abort("connectionreset"))
        page.goto(f"/t/{table}")
        page.wait_for_selector("[data-game-unavailable='kingup']")
        page.wait_for_selector(".table:not(.game-pending) #scoreboard li", state="visible")
    finally:
        ctx.close()


def test_the_bottom_bar_stays_put_as_this_phones_turn_comes_and_goes(browser: Browser, server: str) -> None:
    """The waiting line rings this phone's own turn; the ring once made the bar
    12 px taller, so the buttons under the thumb jumped at every turn."""
    table, tokens = seated_table(server, "camelup", SEATS)
    seat_of = {api_client.call(server, "GET", f"/api/tables/{table}", None, tok)["me"]: tok for tok in tokens}
    other = tokens[1]

    def bet_by_whoever_is_waited_for(n: int) -> None:
        view = api_client.call(server, "GET", f"/api/tables/{table}", None, other)["view"]
        _act(server, table, seat_of[view["waiting"][0]], {"type": "leg_bet", "camel": "blue"}, f"bet-{n}")

    ctx = _phone(browser, server, table, other)
    try:
        page = ctx.new_page()
        page.goto(f"/t/{table}")
        page.wait_for_selector(".table:not(.game-pending) .waiting-line:not([hidden])")
        # Scrolled to the end, where the sticky bar sits in its own place and a
        # taller bar moved its buttons; its height is what moved them anywhere.
        page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
        seen: list[tuple[bool, float, float, float]] = []
        for n in range(3):
            mine = page.locator(".waiting-line.mine").count() == 1
            bar = page.locator(".bottom-bar").bounding_box()
            line = page.locator(".waiting-line").bounding_box()
            buttons = page.locator(".bottom-bar .bar-buttons").bounding_box()
            assert bar is not None and line is not None and buttons is not None
            seen.append((mine, bar["height"], line["height"], buttons["y"]))
            before = page.evaluate("document.querySelector('.waiting-names').textContent")
            bet_by_whoever_is_waited_for(n)
            page.wait_for_function("(b) => document.querySelector('.waiting-names').textContent !== b", arg=before)
            page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
        assert any(v[0] for v in seen) and not all(v[0] for v in seen), seen
        # Within a pixel: the scroll to the end lands on a fraction of one.
        for i in (1, 2, 3):
            assert max(v[i] for v in seen) - min(v[i] for v in seen) < 1, seen
    finally:
        ctx.close()


# Each number the count calls, what the caller's controls' top and the call's
# line read then (the number card is drawn anew at every call).
COUNT_WATCH = """() => {
  window.__calls = [];
  const area = document.querySelector('.game-area');
  new MutationObserver(() => {
    const n = document.querySelector('#cu-current');
    const controls = document.querySelector('.cu-caller');
    const flash = document.querySelector('.cu-flash');
    if (!n || !controls || controls.hidden) return;
    const last = window.__calls[window.__calls.length - 1];
    if (last && last.n === n.textContent) return;
    window.__calls.push({ n: n.textContent, top: controls.getBoundingClientRect().top,
                          flash: flash ? flash.textContent : null });
  }).observe(area, { subtree: true, childList: true });
}"""


def test_the_callers_controls_stay_put_through_the_count(browser: Browser, server: str) -> None:
    """Count Up's number card said what each number did on a line of its own,
    there only for a number someone declared, and its status took one line or
    two: the caller's pause below it moved up and down through the count."""
    table, tokens = seated_table(server, "countup", SEATS, {"countIntervalMs": 150})
    view = api_client.call(server, "GET", f"/api/tables/{table}", None, tokens[0])["view"]
    # Sheets that share numbers: solo declarations and collisions both come up.
    for i, (token, numbers) in enumerate(zip(tokens, random_sheets(view, random.Random(3)), strict=True)):
        _act(server, table, token, {"type": "numbers", "numbers": numbers}, f"sheet-{i}")
    ctx = _phone(browser, server, table, tokens[0])
    try:
        page = ctx.new_page()
        page.goto(f"/t/{table}")
        start = page.get_by_role("button", name=L["ko"]["start"])
        start.wait_for()
        page.evaluate(COUNT_WATCH)
        start.click()
        page.get_by_role("heading", name=L["ko"]["result"].format(round=1)).wait_for(timeout=60_000)
        calls = page.evaluate("window.__calls")
    finally:
        ctx.close()
    said = {bool(c["flash"]) for c in calls}
    assert len(calls) > 10 and said == {True, False}, calls
    tops = [c["top"] for c in calls]
    assert max(tops) - min(tops) < 1, calls


#: Names of the longest a seat may have (24 characters, server/service/seats.py), without a space.
LONG_NAMES = ("MMMMMMMMMMMMMMMMMMMMMMMM", "가나다라마바사아자차카타파하가나다라마바사아자차", "Wolfeschlegelsteinhausen")


def test_the_longest_names_never_widen_a_small_phone(browser: Browser, server: str) -> None:
    """A 320-px phone (an iPhone SE) with three 24-letter names: the King Up!
    chip of whose turn it is, and a history line, were wider than the screen,
    so the whole page scrolled sideways (to 345 and 409 px)."""
    table, (_, other, _) = seated_table(server, "kingup", list(LONG_NAMES))
    ctx = _phone(browser, server, table, other, viewport={"width": 320, "height": 568})
    try:
        page = ctx.new_page()
        page.goto(f"/t/{table}")
        page.wait_for_selector(".table:not(.game-pending) .ku-chip")
        wide = "() => document.scrollingElement.scrollWidth"
        assert page.evaluate(wide) <= 320, "the table"
        # And the header's language switch each on one line ("한국어" broke after "한국").
        lines = page.evaluate("""() => [...document.querySelectorAll('.lang-switch button')].map((b) => {
          const r = document.createRange(); r.selectNodeContents(b);
          return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; })""")
        assert lines == [1, 1], lines
        page.get_by_role("button", name="기록", exact=True).click()
        page.wait_for_selector("#history-panel li")
        assert page.evaluate(wide) <= 320, "the history"
    finally:
        ctx.close()


def test_the_longest_names_leave_the_score_pad_readable(browser: Browser, server: str) -> None:
    """The results' score pad scrolls sideways with the names and the total
    kept at its edges: a 24-letter name on one line made the names' column
    wider than the screen (465 px of 254), and no leg's score could be seen."""
    table, tokens = seated_table(server, "camelup", list(LONG_NAMES))
    host = tokens[0]
    # No phone is seated while the race is run: each roll is drawn at once.
    for n in range(200):
        if api_client.call(server, "GET", f"/api/tables/{table}", None, host)["status"] == "over":
            break
        for token in tokens:
            legal = api_client.call(server, "GET", f"/api/tables/{table}", None, token)["legal"]
            step = next((a for a in legal if a["type"] in ("pyramid", "next_leg")), None)
            if step:
                _act(server, table, token, step, f"step-{n}")
                break
    assert api_client.call(server, "GET", f"/api/tables/{table}", None, host)["status"] == "over"
    ctx = _phone(browser, server, table, tokens[1], viewport={"width": 320, "height": 568})
    try:
        page = ctx.new_page()
        page.goto(f"/t/{table}")
        page.wait_for_selector(".results .score-pad")
        names, room = page.evaluate("""() => [
          Math.max(...[...document.querySelectorAll('.results .score-pad tr > :first-child')]
            .map((e) => e.getBoundingClientRect().width)),
          document.querySelector('.results .table-scroll').clientWidth]""")
        assert names < room / 2, (names, room)
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 320
    finally:
        ctx.close()


def test_every_games_rule_options_fit_a_small_phone(browser: Browser, server: str) -> None:
    """Count Up's bonus table, five numbers a round at 4.2em each in a fieldset
    (min-content wide by default), made the home 457 px wide on a 320-px phone."""
    ctx = browser.new_context(base_url=server, viewport={"width": 320, "height": 568}, is_mobile=True,
                              has_touch=True, locale="ko-KR", service_workers="block")
    try:
        page = ctx.new_page()
        page.goto("/")
        games = page.locator("#home-game option").evaluate_all("os => os.map((o) => o.value)")
        assert len(games) >= 3
        for value in games:
            page.select_option("#home-game", value)
            page.locator("details.options").evaluate("(d) => { d.open = true; }")
            assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 320, value
    finally:
        ctx.close()
