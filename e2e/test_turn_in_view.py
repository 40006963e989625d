"""The turn in view (issue 41 item 6): on a phone whose turn it is, what it can
do stands on screen without scrolling, between the top and the bottom bar: Camel
Up's actions with the last die and the board, King Up!'s vote, Count Up's call.
The scores and the "enter for" bar fold away until asked for. Tables driven
through the HTTP API; a 390×844 phone."""

from __future__ import annotations

import random

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import open_as, seat_table, send, snapshot
from e2e.countup_helpers import enter_sheet, random_sheets
from e2e.test_evening import kingup_table
from e2e.test_kingup import record_card
from e2e.test_results import BOARD, GOALS
from e2e.test_stall import play_to_vote
from engines.kingup.castle import THRONE
from tests.engines.kingup.climb import climb

#: Whether an element stands whole between the top of the screen and the bottom bar.
IN_VIEW = """(sel) => {
  const el = [...document.querySelectorAll(sel)].find((e) => e.getClientRects().length);
  if (!el) return `${sel}: none shown`;
  const bar = document.querySelector('.bottom-bar').getBoundingClientRect().top;
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= bar ? true : `${sel}: ${Math.round(r.top)}..${Math.round(r.bottom)}, bar at ${Math.round(bar)}`;
}"""



def in_view(page: Page, *selectors: str) -> None:
    problems = [r for r in (page.evaluate(IN_VIEW, s) for s in selectors) if r is not True]
    assert not problems, problems


def camel_turn(phone, server: str, size: tuple[int, int] | None = None) -> Page:
    """A Camel Up table on phones (of ``size``), one roll made: the page whose turn it is."""
    table, tokens = seat_table(server, "camelup")
    send(server, table, tokens[0], {"type": "start"})
    pages = [phone("ko-KR") for _ in tokens]
    for page, tok in zip(pages, tokens, strict=True):
        if size:
            page.set_viewport_size({"width": size[0], "height": size[1]})
        open_as(page, table, tok)
        expect(page.locator(".game-camelup .cm-status")).to_be_visible()
    first = snapshot(server, table)["view"]["current_player"]
    send(server, table, tokens[int(first[1:]) - 1], {"type": "pyramid"})
    now = snapshot(server, table)["view"]["current_player"]
    page = pages[int(now[1:]) - 1]
    expect(page.locator(".cm-actions.my-turn")).to_be_visible()
    return page


def test_a_camel_up_turn_shows_the_board_the_last_die_and_every_action(phone, server):
    page = camel_turn(phone, server)
    expect(page.locator(".cm-last")).to_be_visible()
    in_view(page, ".cm-board .cm-track", ".cm-pyramid .cm-last", ".cm-actions .cm-tickets", ".cm-actions .cm-toggles",
            "button.cm-roll")
    # The scores fold away until asked for, and come back when the turn is over.
    expect(page.locator(".scoreboard")).to_be_hidden()
    page.locator(".turn-fold").click()
    expect(page.locator(".scoreboard")).to_be_visible()
    page.locator(".turn-fold").click()
    expect(page.locator(".scoreboard")).to_be_hidden()
    page.locator("button.cm-roll").click()
    expect(page.locator(".cm-actions.my-turn")).to_have_count(0)
    expect(page.locator(".scoreboard")).to_be_visible()
    expect(page.locator(".turn-fold")).to_be_hidden()


def test_on_a_small_phone_a_camel_up_turn_shows_its_actions(phone, server):
    """On a 320×568 phone the board, the die and the actions do not all fit:
    the actions do, above the bar (the roll was under it); the board is a
    short scroll up."""
    in_view(camel_turn(phone, server, (320, 568)), "button.cm-roll")


def test_a_king_up_vote_is_in_view(phone, server):
    table, tokens = seat_table(server, "kingup")
    send(server, table, tokens[0], {"type": "start"})
    for i, tok in enumerate(tokens):
        send(server, table, tok, {"type": "goal", "characters": list("ABCDEFGHIJKLM"[i:i + 6])})
    page = phone("ko-KR")
    open_as(page, table, tokens[2])
    play_to_vote(server, table, dict(zip(["p1", "p2", "p3"], tokens, strict=True)))
    expect(page.locator(".ku-vote-card button.ku-vote.yes")).to_be_visible()
    in_view(page, ".ku-vote-card", ".ku-vote-card button.ku-vote.yes", ".ku-vote-card button.ku-vote.no")
    expect(page.locator(".scoreboard")).to_be_hidden()


def test_a_king_up_move_to_the_throne_brings_the_vote_into_view(phone, server):
    """The mover's move that reaches the throne starts the election: its phone
    was scrolled to the castle (its move, a turn), and the vote that follows
    at once is a new turn, not the move's going on: the vote card comes into
    view above the castle."""
    table, tokens = seat_table(server, "kingup")
    send(server, table, tokens[0], {"type": "start"})
    for i, tok in enumerate(tokens):
        send(server, table, tok, {"type": "goal", "characters": list("ABCDEFGHIJKLM"[i:i + 6])})
    seats = dict(zip(["p1", "p2", "p3"], tokens, strict=True))
    pages = {p: phone("ko-KR") for p in seats}
    for p, tok in seats.items():
        open_as(pages[p], table, tok)
    for _ in range(200):
        view = snapshot(server, table, tokens[0])["view"]
        mover = view["turn"]
        act = climb(snapshot(server, table, seats[mover])["legal"], view["positions"])
        if act["type"] == "move" and view["positions"][act["char"]] + 1 == THRONE:
            break
        send(server, table, seats[mover], act)
    else:
        raise AssertionError("nobody reached the throne")
    page = pages[mover]
    page.locator(f".ku-castle button.ku-token[data-char='{act['char']}']").click()
    page.locator("button.ku-move").click()
    expect(page.locator(".ku-vote-card button.ku-vote.yes")).to_be_visible()
    in_view(page, ".ku-vote-card button.ku-vote.yes", ".ku-vote-card button.ku-vote.no")


def test_a_king_up_secret_card_to_record_is_in_view(phone, server):
    """As a round begins every phone records the goal card it drew: the picker
    and its button in view, the scores folded (the picker's last row and the
    button were under the bar of a 390×844 phone). Recorded, the turn is over."""
    table, tokens = seat_table(server, "kingup")
    send(server, table, tokens[0], {"type": "start"})
    page = phone("ko-KR")
    open_as(page, table, tokens[1])
    expect(page.locator(".ku-card button.ku-save-card")).to_be_visible()
    in_view(page, ".ku-card .ku-picker", ".ku-card button.ku-save-card")
    expect(page.locator(".scoreboard")).to_be_hidden()
    record_card(page, list("ABCDEF"))
    expect(page.locator(".scoreboard")).to_be_visible()


def test_a_count_up_call_is_in_view(phone, server):
    table, tokens = seat_table(server, "countup")
    send(server, table, tokens[0], {"type": "start"})
    host = phone("ko-KR")
    open_as(host, table, tokens[0])
    expect(host.locator(".game-countup")).to_be_visible()
    view = snapshot(server, table)["view"]
    for tok, nums in zip(tokens, random_sheets(view, random.Random(table), players=3), strict=True):
        send(server, table, tok, {"type": "numbers", "numbers": nums})
    expect(host.locator(".cu-caller button.cu-main")).to_be_enabled()
    in_view(host, ".cu-top", ".cu-caller .cu-main", ".cu-caller .cu-controls")
    expect(host.locator(".scoreboard")).to_be_hidden()


def test_a_count_up_sheet_to_write_is_in_view_with_the_round_s_cards(phone, server):
    """Every phone writes its sheet as a round begins: the round's cards (the
    digits it may not use) and the five boxes and the lock stand on screen, the
    scores folded; the boxes were under the bottom bar of a 390×844 phone, the
    lock below the screen. Another seat's lock redraws the screen without
    scrolling it back under the thumb; this phone's own lock ends the turn."""
    table, tokens = seat_table(server, "countup")
    send(server, table, tokens[0], {"type": "start"})
    page = phone("ko-KR")
    open_as(page, table, tokens[1])
    expect(page.locator(".cu-entry")).to_be_visible()
    in_view(page, ".cu-top", ".cu-entry-boxes", "button.cu-lock")
    expect(page.locator(".scoreboard")).to_be_hidden()
    # The player scrolls; a lock at the table redraws the screen, which stays put.
    page.evaluate("window.scrollBy(0, -40)")
    scrolled = page.evaluate("window.scrollY")
    sheets = random_sheets(snapshot(server, table)["view"], random.Random(table), players=len(tokens))
    send(server, table, tokens[0], {"type": "numbers", "numbers": sheets[0]})
    expect(page.locator(".cu-locked li.done")).to_have_count(1)
    assert page.evaluate("window.scrollY") == scrolled
    enter_sheet(page, "ko", sheets[1])
    expect(page.locator(".scoreboard")).to_be_visible()


def test_on_a_small_phone_a_count_up_sheet_starts_at_the_round_s_cards(phone, server):
    """On a 320×568 phone the cards and the sheet do not both fit: the screen
    starts at the cards (read first: the digits the sheet may not use), the sheet
    right under them (it was wholly below the screen)."""
    table, tokens = seat_table(server, "countup")
    send(server, table, tokens[0], {"type": "start"})
    page = phone("ko-KR")
    page.set_viewport_size({"width": 320, "height": 568})
    open_as(page, table, tokens[1])
    expect(page.locator(".cu-entry")).to_be_visible()
    top = page.evaluate("document.querySelector('.cu-top').getBoundingClientRect().top")
    entry = page.evaluate("document.querySelector('.cu-entry').getBoundingClientRect().top")
    bar = page.evaluate("document.querySelector('.bottom-bar').getBoundingClientRect().top")
    assert 0 <= top < 40 and entry < bar, (top, entry, bar)


def test_the_host_s_next_round_is_in_view_when_a_king_up_round_is_scored(phone, server):
    """Scored, the round's results stand above the host's "Start round 2",
    which was just under the bottom bar on a 390×844 phone: what the host
    does next is this phone's turn, in view as it begins (the guests wait)."""
    table, tokens = kingup_table(server)
    send(server, table, tokens[0], {"type": "start"})
    host, guest = phone("ko-KR"), phone("ko-KR")
    open_as(host, table, tokens[0])
    open_as(guest, table, tokens[1])
    expect(host.locator(".game-kingup")).to_be_visible()
    send(server, table, tokens[0], {"type": "score_round", "board": BOARD,
                                    "goals": {p: list(g) for p, g in GOALS.items()}})
    expect(host.locator("button.ku-next")).to_be_visible()
    in_view(host, "button.ku-next")
    expect(guest.locator(".ku-next-wait")).to_be_visible()
    expect(guest.locator(".scoreboard")).to_be_visible()  # a guest's turn it is not


def test_the_host_s_next_round_is_in_view_after_its_own_crowning_vote(phone, server):
    """Full play: the host casts the vote that crowns the candidate and scores the
    round. Its vote was this phone's turn, and its next round a new one: brought
    into view too, not left where the vote card was. (The turn's mark drops while
    the sealed votes are opened, so the scored round's mark is a new turn to
    screens/turn.js.)"""
    table, tokens = seat_table(server, "kingup")
    send(server, table, tokens[0], {"type": "start"})
    for i, tok in enumerate(tokens):
        send(server, table, tok, {"type": "goal", "characters": list("ABCDEFGHIJKLM"[i:i + 6])})
    pages = [phone("en-US") for _ in tokens]
    for page, tok in zip(pages, tokens, strict=True):
        open_as(page, table, tok)
    play_to_vote(server, table, dict(zip(["p1", "p2", "p3"], tokens, strict=True)))
    host = pages[0]
    for page in [*pages[1:], host]:   # the host's vote is the last, the crowning one
        page.locator("button.ku-vote[data-vote='yes']").click()
        page.locator("button.ku-vote-final[data-vote='yes']").click()
    expect(host.locator("button.ku-next")).to_be_visible(timeout=20_000)
    in_view(host, "button.ku-next")


def test_the_host_s_next_round_is_in_view_when_a_count_up_round_is_scored(phone, server):
    """As King Up!'s: the round's results above the host's "Start the next
    round", which stood ~250 px under the bottom bar on a 390×844 phone. The
    host was the caller just before: the next round is a turn of its own
    (its mark's name), not the call's going on."""
    table, tokens = seat_table(server, "countup")
    send(server, table, tokens[0], {"type": "start"})
    host, guest = phone("ko-KR"), phone("ko-KR")
    open_as(host, table, tokens[0])
    open_as(guest, table, tokens[1])
    expect(host.locator(".game-countup")).to_be_visible()
    view = snapshot(server, table)["view"]
    for tok, nums in zip(tokens, random_sheets(view, random.Random(table), players=len(tokens)), strict=True):
        send(server, table, tok, {"type": "numbers", "numbers": nums})
    send(server, table, tokens[0], {"type": "call", "until": "end"})
    assert snapshot(server, table)["view"]["phase"] == "scored"
    expect(host.locator("button.cu-next")).to_be_visible()
    in_view(host, "button.cu-next")
    expect(guest.locator(".cu-next-box .waiting")).to_be_visible()
    expect(guest.locator(".scoreboard")).to_be_visible()  # a guest's turn it is not
    # The guest's screen starts at the results, as before: their top in view.
    assert 0 <= guest.evaluate("document.querySelector('.cu-top').getBoundingClientRect().top") < 200
