"""What a family tripped on during a game night (issue 33), on Count Up's
screens: the score strip's words, what the count says after a collision, and
no "your turn" while every phone writes its sheet at once."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import call, open_as, send

NAMES = ("유나", "Sam", "서연우")
# 민수 and 유나 both wrote 5: the fifth number is a collision.
SHEETS = ([5, 12, 24, 34, 41], [5, 15, 32, 35, 43], [11, 21, 33, 36, 46], [2, 13, 22, 31, 44])


# Every text the toast region shows, from the page's first moment.
TOAST_SPY = """
window.__toasts = [];
new MutationObserver(() => {
  const el = document.getElementById('toast');
  if (el && !el.hidden && el.textContent) window.__toasts.push(el.textContent);
}).observe(document, { subtree: true, attributes: true, childList: true, characterData: true });
"""


def countup_table(server: str) -> tuple[str, list[str]]:
    """민수 (host) and three phones, the round's restricted digits 7, 8 and 9:
    the table and the tokens, the sheets still to be written."""
    res = call(server, "POST", "/api/tables", {"game": "countup", "name": "민수",
                                               "options": {"restrictionSource": "manual"}})
    table, tokens = res["table"], [res["player"]["token"]]
    tokens += [call(server, "POST", f"/api/tables/{table}/players", {"name": n})["player"]["token"] for n in NAMES]
    send(server, table, tokens[0], {"type": "start"})
    send(server, table, tokens[0], {"type": "restriction", "digits": [7, 8, 9]})
    return table, tokens


def words_split_across_lines(page: Page) -> list[str]:
    """Every word of the score strip's figures that a line break cuts in two."""
    return page.evaluate("""() => {
        const cut = [];
        for (const el of document.querySelectorAll('.scoreboard .seat-figures')) {
            const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            for (let node = walk.nextNode(); node; node = walk.nextNode()) {
                for (const m of node.data.matchAll(/[^\\s·]+/g)) {
                    const r = document.createRange();
                    r.setStart(node, m.index);
                    r.setEnd(node, m.index + m[0].length);
                    const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
                    if (tops.size > 1) cut.push(m[0]);
                }
            }
        }
        return cut;
    }""")


def test_the_score_strip_keeps_words_whole_and_drops_locked_after_the_round(phone, server) -> None:
    table, tokens = countup_table(server)
    host: Page = phone("ko-KR")
    open_as(host, table, tokens[0])
    for token, numbers in zip(tokens, SHEETS, strict=True):
        send(server, table, token, {"type": "numbers", "numbers": numbers})
    send(server, table, tokens[0], {"type": "call", "until": "end"})
    strip = host.locator(".scoreboard")
    expect(strip.locator("li").first).to_contain_text("마커")
    for width in (320, 360, 375, 390, 414):
        host.set_viewport_size({"width": width, "height": 844})
        assert words_split_across_lines(host) == [], width
    # Every sheet is in and the round is counted: "locked" says nothing any more.
    expect(strip).not_to_contain_text("잠금")


def test_after_a_collision_the_count_does_not_say_no_leader_yet(phone, server) -> None:
    table, tokens = countup_table(server)
    for token, numbers in zip(tokens, SHEETS, strict=True):
        send(server, table, token, {"type": "numbers", "numbers": numbers})
    for _ in range(6):  # 1-6: the collision on 5, then nobody's 6
        send(server, table, tokens[0], {"type": "call"})
    page: Page = phone("en-US")
    open_as(page, table, tokens[2])
    expect(page.locator(".cu-big-num")).to_have_text("6")
    expect(page.locator(".cu-status")).to_have_text("Collision on 5: nobody moves until the next solo declaration.")


def test_no_your_turn_while_every_phone_writes_its_sheet(phone, server) -> None:
    table, tokens = countup_table(server)
    host: Page = phone("ko-KR")
    host.add_init_script(TOAST_SPY)
    open_as(host, table, tokens[0])
    expect(host.get_by_label("1번", exact=True)).to_be_visible()
    expect(host.locator("html")).to_have_attribute("data-connection", "open")
    host.wait_for_timeout(1000)
    # Nobody's turn: every phone writes at once, the host's too.
    assert "내 차례예요" not in host.evaluate("window.__toasts")
