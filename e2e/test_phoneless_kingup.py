"""King Up! with three phones and one seat without a phone (issue 17), one full
round through the screens: the host switches to "Entering for: Mina" for her
placements and moves, enters her vote card once every phone has voted (only then
are all votes revealed) and her printed goal card once the King is crowned. The
scores equal the engine's; no phone sees another seat's card or vote early."""

from __future__ import annotations

import random

from playwright.sync_api import Page, expect

from e2e.kingup_helpers import TITLES, Replica, Traffic, leaks, token_of
from e2e.lobby import create_table, join
from e2e.phoneless_helpers import add_phoneless

NAMES = {"p1": "Ann", "p2": "Bora", "p3": "Jin"}
PAPER = "Mina"
PHONES = ["p1", "p2", "p3"]


def pick(page: Page, scope: str, card: list[str]) -> None:
    picker = page.locator(f"{scope} .ku-picker")
    for ch in card:
        picker.locator(f"button[data-char='{ch}']").click()
    expect(picker.locator("[aria-pressed='true']")).to_have_count(6)


def test_three_phones_and_a_paper_seat_play_a_round(phone, server):
    rng = random.Random(17)
    cards = {p: sorted(rng.sample("ABCDEFGHIJKLM", 6)) for p in (*PHONES, "p4")}
    pages: dict[str, Page] = {}
    traffic: dict[str, Traffic] = {}
    for p in PHONES:
        pages[p] = phone("en-US")
        traffic[p] = Traffic(pages[p], [p])
    host = pages["p1"]
    table = create_table(host, TITLES["en"], NAMES["p1"], "en")
    for p in PHONES[1:]:
        join(pages[p], f"{server}/t/{table}", NAMES[p], "en")
    mina = add_phoneless(server, table, token_of(host, table), PAPER)
    assert mina == "p4"
    host.get_by_role("button", name="Start game").click()
    for p in PHONES:
        expect(pages[p].locator(".game-kingup .ku-status")).to_be_visible()
    game = Replica([*PHONES, mina], {}, host="p1")
    game.apply("p1", {"type": "set_paper", "seat": mina})

    def enter_for(pid: str | None) -> None:
        host.locator(f"[data-proxy='{pid or 'self'}']").click()
        if pid:
            expect(host.get_by_text(f"Entering for: {PAPER}")).to_be_visible()

    # The phones record their printed cards; Mina's stays on the table, face down.
    for p in PHONES:
        pick(pages[p], ".ku-card", cards[p])
        pages[p].locator(".ku-card button.ku-save-card").click()
        expect(pages[p].locator(".ku-card .ku-goal li")).to_have_count(6)
        game.apply(p, {"type": "goal", "characters": cards[p]})

    def turn_page(p: str) -> Page:
        """The page that acts for ``p``: its phone, or the host switched to Mina."""
        if p == mina:
            enter_for(mina)
            return host
        return pages[p]

    while game.state.phase == "placement":
        p = game.view()["turn"]
        act = max((a for a in game.legal(p) if a["type"] == "place"), key=lambda a: (a["level"], -ord(a["char"])))
        page = turn_page(p)
        page.locator(f".ku-tray.unplaced button[data-char='{act['char']}']").click()
        page.locator(f".ku-row[data-level='{act['level']}'] button.ku-row-head").click()
        game.apply(p, act)
        expect(page.locator(f".ku-row[data-level='{act['level']}'] [data-char='{act['char']}']")).to_be_visible()
        if p == mina:
            enter_for(None)

    while game.state.phase == "movement":
        p = game.view()["turn"]
        positions = game.view()["positions"]
        ch = max((a["char"] for a in game.legal(p) if a["type"] == "move"), key=lambda c: (positions[c], -ord(c)))
        page = turn_page(p)
        page.locator(f".ku-castle button.ku-token[data-char='{ch}']").click()
        page.locator("button.ku-move").click()
        game.apply(p, {"type": "move", "char": ch})
        if game.state.phase == "movement":
            expect(page.locator(f".ku-row[data-level='{positions[ch] + 1}'] [data-char='{ch}']")).to_be_visible()
        if p == mina:
            enter_for(None)

    # The election: the phones vote in secret; Mina's card waits for them.
    assert game.state.phase == "vote"
    for p in PHONES:
        page = pages[p]
        page.locator("button.ku-vote[data-vote='yes']").click()
        page.locator("button.ku-vote-final[data-vote='yes']").click()
        expect(page.locator(".ku-my-vote[data-vote='yes']")).to_be_visible()
        game.apply(p, {"type": "vote", "vote": "yes"})
    for p in PHONES:
        expect(pages[p].locator(".ku-paper-waiting")).to_contain_text(PAPER)
        expect(pages[p].locator(".ku-reveal-vote")).to_have_count(0)
    expect(host.locator(".ku-proxy-hint")).to_contain_text(PAPER)
    enter_for(mina)
    host.locator(".ku-paper button.ku-vote[data-vote='yes']").click()
    host.locator("button.ku-paper-vote-send").click()
    game.apply(mina, {"type": "vote", "vote": "yes"})
    last = game.view()["last_election"]
    assert last["result"] == "crowned"
    for p in PHONES:
        for q in (*PHONES, mina):
            expect(pages[p].locator(f".ku-reveal-vote[data-player='{q}']")).to_have_attribute("data-vote", "yes")

    # Crowned: the round waits for Mina's printed card, entered by the host.
    for p in PHONES[1:]:
        expect(pages[p].locator(".ku-paper-waiting")).to_contain_text(PAPER)
    # The vote entered, the host is back on its own seat: it switches again.
    expect(host.locator(".ku-proxy-hint")).to_contain_text(PAPER)
    enter_for(mina)
    pick(host, ".ku-paper", cards[mina])
    host.locator("button.ku-paper-card-send").click()
    game.apply(mina, {"type": "goal", "characters": cards[mina]})
    assert game.state.phase == "scored"
    enter_for(None)
    result = game.view()["round_results"][-1]
    totals = game.totals()
    for p in PHONES:
        res = pages[p].locator(".ku-result[data-round='1']").first
        for q in (*PHONES, mina):
            expect(res.locator(f".ku-result-player[data-player='{q}'] .ku-result-score")).to_have_attribute(
                "data-score", str(result["players"][q]["score"]))
            expect(pages[p].locator(f".ku-totals tr[data-player='{q}'] .ku-total")).to_have_text(str(totals[q]))

    goals = {1: dict(cards)}
    for p in PHONES:
        assert traffic[p].messages
        # A proxies template names a vote choice, never a vote: not a leak.
        found = [x for x in leaks(traffic[p], goals) if "proxies/" not in x]
        assert not found, found[:5]
