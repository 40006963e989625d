"""Fair dice on real phones (issue 31), Chromium: every phone anchors its hash
chain and answers each draw with its next link by itself (issue 38) and shows the same 4 words; when a leg is revealed each phone checks
it and marks it in the history; a roll, a sheet or a vote changed in Redis after
its reveal is a loud warning naming it on the phone, and the standalone
checker run against the server says MISMATCH. (WebKit: test_fair_webkit.py.)"""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import Page, expect

from e2e import fair_helpers as fh
from e2e.camelup_helpers import open_as
from e2e.table_helpers import open_history
from tablemate_verify import phrase

LANG = {"p1": "ko-KR", "p2": "en-US", "p3": "en-US"}


def words_on(page: Page) -> str:
    el = page.locator(".fair-words")
    expect(el).not_to_be_empty()
    return el.inner_text().strip()


def test_phones_seed_compare_words_and_check_each_leg(phone, server: str, games) -> None:
    table, tokens = fh.new_table(server, "camelup", ["민수", "Bora", "Dana"])
    pages = {}
    for i, seat in enumerate(("p1", "p2", "p3")):
        pages[seat] = phone(LANG[seat])
        open_as(pages[seat], table, tokens[i])
    # In the lobby already: every phone's chain, for the starting board and every roll.
    fh.wait_for(lambda: fh.anchored_by(server, table, ["p1", "p2", "p3"]), "every phone's chain in the lobby")
    fh.start(server, table, tokens)
    leg = fh.snap(server, table)["fair"]["open"][0]
    assert leg["scope"].endswith("/g1/leg/1")
    # The same commitment on every phone, said in each phone's language.
    en, ko = " ".join(phrase(leg["commitment"], "en")), " ".join(phrase(leg["commitment"], "ko"))
    for seat, page in pages.items():
        expect(page.locator(".fair-words")).to_have_text(ko if LANG[seat] == "ko-KR" else en)
    # One tap says what the words are for.
    pages["p2"].locator(".fair-button").click()
    expect(pages["p2"].locator(".fair-explain")).to_be_visible()
    expect(pages["p2"].locator(".fair-explain")).to_contain_text("compare them aloud")

    fh.roll_leg(server, table, tokens)
    for page in pages.values():
        expect(page.locator(".fair-status")).to_contain_text("✓")
        expect(page.locator(".fair-warning")).to_be_hidden()
    # Leg 2's words now, and leg 1 marked checked in the history.
    leg2 = fh.snap(server, table)["fair"]["open"][0]
    assert leg2["scope"].endswith("/leg/2")
    expect(pages["p3"].locator(".fair-words")).to_have_text(" ".join(phrase(leg2["commitment"], "en")))
    page = pages["p2"]
    open_history(page)
    leg1 = page.locator(".history-round", has=page.locator("h3", has_text="Leg 1"))
    expect(leg1.locator(".fair-mark.ok")).to_have_text("✓ checked")
    ok = fh.verify(server, table)
    assert ok.returncode == 0 and "OK:" in ok.stdout, ok.stdout + ok.stderr
    # Every roll of the leg took every phone's chain link (issue 38), sent by the pages themselves.
    proof = fh.call(server, "GET", f"/api/tables/{table}/proof")
    rolled = next(s for s in proof["scopes"] if s["label"].endswith("/g1/leg/1"))
    assert [sorted(e["seat"] for e in o["links"]) for o in rolled["outcomes"]] == [["p1", "p2", "p3"]] * 5
    assert "step down their chains" in ok.stdout
    # The phone's own record, exported from the page, agrees with the proof (the CLI's --phone).
    p3 = pages["p3"]
    p3.locator(".fair-button").click()
    with p3.expect_download() as download:
        p3.locator(".fair-export").click()
    mine = fh.verify(server, table, "--phone", str(download.value.path()))
    assert mine.returncode == 0 and "the phone's record of p3 agrees" in mine.stdout, mine.stdout + mine.stderr


@pytest.mark.parametrize("case", sorted(fh.CASES))
def test_a_reveal_changed_in_redis_is_flagged_on_the_phone_and_by_the_script(
        phone, server: str, redis_url: str, case: str) -> None:
    c = fh.CASES[case]
    table, tokens = fh.new_table(server, c["game"], c["names"], c["options"])
    page = phone("en-US")
    open_as(page, table, tokens[0])
    fh.start(server, table, tokens)
    c["play"](server, table, tokens)
    expect(page.locator(".fair-status")).to_contain_text("✓")
    fh.tamper(redis_url, table, c["what"], c["change"])
    out = fh.verify(server, table)
    assert out.returncode == 1 and "MISMATCH" in out.stdout, out.stdout + out.stderr
    # The phone checks again (here: opened anew) and says so, loudly.
    page.reload()
    warning = page.get_by_role("alert").filter(has_text=c["says"])
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Something was changed")
    expect(page.locator(".fair-status")).not_to_contain_text("✓")


def test_a_link_left_out_is_flagged_by_the_phone_that_sent_it(phone, server: str, redis_url: str) -> None:
    """Issue 38: a server that re-derives a roll without the link a phone sent
    (to choose among outcomes) leaves a proof that replays and whose chains
    still step (the leg's last roll: no later link skips): the CLI alone sees
    only a roll drawn by the server alone. The phone that sent the link says
    its part is missing, and its export makes the CLI fail too."""
    table, tokens = fh.new_table(server, "camelup", ["Ada", "Grace", "Alan"])
    page = phone("en-US")
    open_as(page, table, tokens[0])
    fh.wait_for(lambda: fh.anchored_by(server, table, ["p1"]), "the phone's chain")
    fh.start(server, table, tokens)
    fh.roll_leg(server, table, tokens)
    expect(page.locator(".fair-status")).to_contain_text("✓")
    fh.tamper(redis_url, table, "/leg/1", fh.link_left_out)
    alone = fh.verify(server, table)
    assert alone.returncode == 0 and "drawn by the server alone" in alone.stdout, alone.stdout + alone.stderr
    page.reload()
    warning = page.get_by_role("alert").filter(has_text="Leg 1 · this phone's own part of a draw")
    expect(warning).to_be_visible()
    page.locator(".fair-button").click()
    with page.expect_download() as download:
        page.locator(".fair-export").click()
    mine = fh.verify(server, table, "--phone", str(download.value.path()))
    assert mine.returncode == 1 and "its part was not counted" in mine.stdout, mine.stdout + mine.stderr


#: A page's script stopped (a tab asleep in the background) until the table
#: reveals its next scope: a synchronous request blocks the page's only thread.
ASLEEP_UNTIL_REVEALED = """([table, revealed]) => {
  const until = Date.now() + 30000;
  while (Date.now() < until) {
    const x = new XMLHttpRequest();
    x.open('GET', `/api/tables/${table}`, false);
    x.send();
    const fair = JSON.parse(x.responseText).fair;
    if (fair.revealed >= revealed && !fair.pending) return;
  }
}"""


def test_two_tabs_of_one_seat_share_its_chain(phone, server: str) -> None:
    """One seat open in two tabs of the same browser (the QR scanned twice, a
    tab restored beside another): they share the seat's chain (localStorage),
    so two tabs opened at once do not anchor over each other again and again,
    and a tab that slept through a leg (a background tab) sends the next link
    of the chain, not one the other tab spent."""
    table, tokens = fh.new_table(server, "camelup", ["민수", "Bora", "Dana"])
    others = [phone("en-US") for _ in tokens[1:]]
    for page, token in zip(others, tokens[1:], strict=True):
        open_as(page, table, token)
    fh.wait_for(lambda: fh.anchored_by(server, table, ["p2", "p3"]), "the other phones' chains")
    before = fh.snap(server, table)["version"]
    first = phone("ko-KR")
    first.goto("/")
    first.evaluate("([t, k]) => localStorage.setItem(`tablemate.token.${t}`, k)", [table, tokens[0]])
    second = first.context.new_page()
    first.goto(f"/t/{table}", wait_until="commit")
    second.goto(f"/t/{table}")
    for page in (first, second):
        expect(page.locator("html")).to_have_attribute("data-connection", "open")
    fh.wait_for(lambda: fh.anchored_by(server, table, ["p1"]), "p1's chain")
    second.wait_for_timeout(1500)
    # One chain for the seat (a second or third if both tabs anchored at the
    # very same moment, before either saw the other's), not a tab anchoring
    # over the other's again and again until the rate limit stops it (~100).
    settled = fh.snap(server, table)["version"]
    assert settled <= before + 4
    second.wait_for_timeout(1000)
    assert fh.snap(server, table)["version"] == settled
    anchor = fh.snap(server, table)["fair"]["chains"]["p1"]["anchor"]

    fh.start(server, table, tokens)
    fh.roll_leg(server, table, tokens)
    # The first tab sleeps (its script stopped, its frames waiting) while the
    # second answers leg 2; then it wakes to every frame it missed.
    revealed = fh.snap(server, table)["fair"]["revealed"]
    leg = threading.Thread(target=fh.roll_leg, args=(server, table, tokens))
    leg.start()
    first.evaluate(ASLEEP_UNTIL_REVEALED, [table, revealed + 1])
    leg.join()
    fh.roll_leg(server, table, tokens)
    proof = fh.call(server, "GET", f"/api/tables/{table}/proof")
    legs = [s for s in proof["scopes"] if "/leg/" in s["label"]]
    assert [sorted(e["seat"] for e in o["links"]) for s in legs[:3] for o in s["outcomes"]] == [["p1", "p2", "p3"]] * 15
    assert fh.snap(server, table)["fair"]["chains"]["p1"]["anchor"] == anchor
    for page in (first, second, *others):
        expect(page.locator(".fair-status")).to_contain_text("✓")
        expect(page.locator(".fair-warning")).to_be_hidden()
    ok = fh.verify(server, table)
    assert ok.returncode == 0 and "OK:" in ok.stdout, ok.stdout + ok.stderr
