"""The end of a game on real phones (issue 15): the results sheet, the share
card (a PNG drawn on a canvas), the BG Stats link and play again."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from tests import api_client

BOARD = {"D": "throne", "A": 5, "G": 5, "K": 5, "B": 4, "H": 4, "C": 3, "E": 3, "M": 3, "I": 2, "J": 1,
         "L": 0, "F": "eliminated"}
GOALS = {"p1": "DABCIL", "p2": "GKHFJL", "p3": "AGMEJF"}  # 24, 15, 17 each round


def api(server: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    return api_client.call(server, method, path, body, token)


def finished_kingup(server: str, goals: dict[str, str] = GOALS) -> tuple[str, str]:
    made = api(server, "POST", "/api/tables", {"game": "kingup", "name": "Host",
                                               "options": {"playMode": "score_only"}})
    table, host = made["table"], made["player"]["token"]
    for name in ("Mina", "Bo"):
        api(server, "POST", f"/api/tables/{table}/players", {"name": name})

    def act(action: dict, rid: str) -> None:
        api(server, "POST", f"/api/tables/{table}/actions", {"action": action, "request_id": rid}, host)

    act({"type": "start"}, "s")
    for r in range(3):
        if r:
            act({"type": "next_round"}, f"n{r}")
        act({"type": "score_round", "board": BOARD, "goals": {p: list(g) for p, g in goals.items()}}, f"r{r}")
    return table, host


def test_results_sheet_share_card_bgstats_and_play_again(phone, server, browser):
    table, host = finished_kingup(server)
    page = phone("en-US")
    page.goto("/")
    page.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, host])
    page.goto(f"/t/{table}")
    results = page.locator("#results")
    expect(results.get_by_role("heading", name="Result")).to_be_visible()
    pad = results.locator("table.score-pad")
    expect(pad.locator("thead th")).to_have_text(["Player", "Round 1", "Round 2", "Round 3", "Total"])
    expect(pad.locator("tbody tr").first).to_contain_text("Host")
    expect(pad.locator("tbody tr").first.locator("td")).to_have_text(["24", "24", "24", "72"])
    expect(pad.locator("tbody tr.winner")).to_have_count(1)

    # Not a phone (desktop Chromium's user agent): the link to copy, not the app button.
    link = results.locator("#bgstats-url")
    expect(link).to_be_visible()
    expect(results.locator("#bgstats-link")).to_have_count(0)
    parts = urlsplit(link.input_value())
    play = json.loads(parse_qs(parts.query)["data"][0])
    assert parts.netloc == "app.bgstatsapp.com"
    assert [(p["name"], p["score"], p["winner"]) for p in play["players"]] == [
        ("Host", 72, True), ("Bo", 51, False), ("Mina", 45, False)]

    # The share card: Chromium on Linux has no Web Share, so it downloads.
    with page.expect_download() as dl:
        results.get_by_role("button", name="Share the result card").click()
    png = open(dl.value.path(), "rb").read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 5_000 < len(png) < 2_000_000
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == 1080 and height > 600
    # What the card says, in both languages (a chat group reads either).
    card = page.evaluate("""async () => {
        // The module as written, beside the page's bundles: its own strings.
        await (await import('/i18n.js')).initI18n();
        const m = await import('/screens/results.js');
        const res = await (await fetch(location.pathname.replace('/t/', '/api/tables/') + '/result')).json();
        return m.cardText(res, {ko: '카운트 업', en: 'Count Up'});
    }""")
    assert card["title"] == "카운트 업 · Count Up"
    assert "분 · " in card["sub"] and card["sub"].endswith(" min")
    assert card["foot"].startswith("🏆 우승 · Winner")
    assert [(r["name"], r["winner"]) for r in card["rows"]] == [("Host", True), ("Bo", False), ("Mina", False)]

    # On a phone, the BG Stats button opens the app's own link.
    ctx = browser.new_context(base_url=server, viewport={"width": 390, "height": 844}, is_mobile=True,
                              has_touch=True, locale="ko-KR",
                              user_agent="Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) "
                                         "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148")
    try:
        ko = ctx.new_page()
        ko.goto(f"/t/{table}?view=spectator")  # the big screen: the result is public
        button = ko.locator("#bgstats-link")
        expect(button).to_have_text("BG Stats에 저장")
        assert button.get_attribute("href").startswith("bgstats://app.bgstatsapp.com/createPlay.html?data=")
        expect(ko.locator("#results thead th").nth(1)).to_have_text("1라운드")
        expect(ko.locator("#play-again")).to_have_count(0)  # only the host's
    finally:
        ctx.close()

    page.get_by_role("button", name="Play again with the same seats").click()
    expect(page.locator("#lobby-code")).to_be_visible()
    snap = api(server, "GET", f"/api/tables/{table}", token=host)
    assert snap["status"] == "lobby" and [p["name"] for p in snap["players"]] == ["Host", "Mina", "Bo"]


def test_a_tie_shares_its_rank_and_play_again_comes_first(phone, server):
    """Issue 41, items 1 and 4: two seats on the same total are both 2nd in the
    list at the top, as in the score pad (a list numbered them 2 and 3); the
    host's first offer is the rematch with the same seats, above the standings
    and in view, while a new table (everyone scans again) is the last link."""
    table, host = finished_kingup(server, {"p1": "DABCIL", "p2": "GKHFJL", "p3": "GKHFJL"})
    page = phone("en-US")
    page.goto("/")
    page.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, host])
    page.goto(f"/t/{table}")
    results = page.locator("#results")
    standings = results.locator("ol.standings li")
    expect(standings).to_have_text([re.compile(r"^1\. Host 72"), re.compile(r"^2\. Mina 45"),
                                    re.compile(r"^2\. Bo 45")])
    expect(results.locator("table.score-pad tbody th")).to_have_text(["1. Host ▶", "2. Mina", "2. Bo"])

    again = results.get_by_role("button", name="Play again with the same seats")
    expect(again).to_be_in_viewport()
    new_table = results.get_by_role("link", name="New table")
    expect(new_table).to_have_count(1)
    expect(page.locator(".banner.over a")).to_have_count(0)
    top = lambda loc: loc.bounding_box()["y"]  # noqa: E731
    assert top(again) < top(results.locator("ol.standings")) < top(new_table)
    assert top(results.locator("table.score-pad")) < top(new_table)
