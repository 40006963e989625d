"""The stalled phone on real phones (issue 33), one browser context per phone:
every phone names whom the table waits for, the host's reminder rings the
late phone and shows every phone how long, the host enters for a seat (its
phone pauses, keeping its token) and hands it back (its owner continues on
it), and goes on without a seat where the rules allow: Count Up's sheet entry
and King Up!'s vote."""

from __future__ import annotations

import json
import re
import urllib.request
import uuid
from typing import Any

from playwright.sync_api import Page, expect

from e2e.countup_helpers import L, allowed, enter_sheet, public_snapshot
from e2e.kingup_helpers import TITLES, token_of
from e2e.lobby import create_table, join
from e2e.table_helpers import open_history
from tests.engines.kingup.climb import climb

#: Records what the page asks of the vibration motor and of Web Audio (the
#: reminder's chime), before the app's first script runs.
SENSES = """
window.__buzz = [];
navigator.vibrate = (pattern) => { window.__buzz.push(pattern); return true; };
window.__tones = 0;
if (window.AudioContext) {
  const make = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () { window.__tones += 1; return make.call(this); };
}
"""
REMINDER_BUZZ = [300, 150, 300, 150, 300]


def post_action(server: str, table: str, token: str, action: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        f"{server}/api/tables/{table}/actions", method="POST",
        data=json.dumps({"action": action, "request_id": uuid.uuid4().hex}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


def snapshot(server: str, table: str, token: str) -> dict[str, Any]:
    req = urllib.request.Request(f"{server}/api/tables/{table}", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


def waiting_names(page: Page):
    return page.locator(".waiting-line .waiting-names")


def manage(host: Page, pid: str):
    """The host's waiting sheet, open; the row of seat ``pid``."""
    sheet = host.locator("#stall-sheet")
    if not sheet.is_visible():
        host.get_by_role("button", name="Options").click()
    expect(sheet).to_be_visible()
    return sheet.locator(f".stall-seat[data-player='{pid}']")


def off_my_phone(page: Page, pid: str, name: str) -> None:
    """A phone takes its own seat off itself, from its seat's options in the
    players panel (the host cannot while it is live)."""
    page.get_by_role("button", name="Players", exact=True).click()
    page.get_by_role("button", name=f"Manage {name}").click()
    panel = page.locator(f"#seat-panel-{pid}")
    panel.get_by_role("button", name="Play without my phone").click()
    panel.get_by_role("button", name=re.compile("^Tap again: this phone pauses")).click()


def confirm(row, name: str, confirm_text: str | None = None) -> None:
    """A two-tap button of the host's sheet: tap, (check what it asks), tap again."""
    button = row.get_by_role("button", name=name)
    button.click()
    if confirm_text is not None:
        expect(row.get_by_role("button", name=confirm_text)).to_be_visible()
    row.locator("button.armed").click()


def test_count_up_names_the_late_phone_rings_it_and_goes_on_without_its_sheet(phone, server):
    t = L["en"]
    names = ["Ann", "Bo", "Cy"]
    pages = [phone("en-US") for _ in names]
    bo_page = pages[1]
    bo_page.add_init_script(SENSES)
    host = pages[0]
    table = create_table(host, t["title"], names[0], "en")
    for page, name in zip(pages[1:], names[1:], strict=True):
        join(page, f"{server}/t/{table}", name, "en")

    # The host sets the reminder in the lobby's rules; every phone reads it there.
    host.get_by_label("Reminder for a late player").select_option(label="30 s")
    expect(bo_page.locator(".reminder-value")).to_have_text("30 s")
    token = token_of(host, table)
    post_action(server, table, token, {"type": "reminder", "seconds": 3})  # short, for the test
    expect(bo_page.locator(".reminder-value")).to_have_text("3 s")

    host.get_by_role("button", name=t["start_game"]).click()
    for page in pages:
        expect(page.get_by_role("heading", name=t["entry"])).to_be_visible()
    expect(waiting_names(host)).to_have_text("you, Bo, Cy")
    expect(waiting_names(pages[2])).to_have_text("Ann, Bo, you")

    # Bo's phone is live: the host cannot take it off its seat, only Bo can. Its phone
    # pauses (it keeps its seat), and nobody waits for a paper sheet.
    row = manage(host, "p2")
    expect(row.locator(".stall-live")).to_contain_text("Bo's phone is connected")
    expect(row.get_by_role("button", name="Enter for Bo")).to_have_count(0)
    off_my_phone(bo_page, "p2", "Bo")
    expect(bo_page.get_by_role("heading", name="Your seat is paused")).to_be_visible()
    expect(bo_page.locator(".paused-card")).to_contain_text("Ann is entering your moves for now.")
    expect(bo_page.get_by_role("heading", name=t["entry"])).to_be_hidden()
    for page in pages:
        expect(waiting_names(page)).not_to_contain_text("Bo")

    # Handed back: Bo's own phone continues, as Bo.
    confirm(manage(host, "p2"), "Hand back to Bo's phone", "Tap again: Bo's own phone plays again")
    expect(bo_page.get_by_role("heading", name="Your seat is back")).to_be_visible()
    expect(bo_page.get_by_role("heading", name=t["entry"])).to_be_hidden()
    bo_page.get_by_role("button", name="Continue as Bo").click()
    expect(bo_page.get_by_role("heading", name=t["entry"])).to_be_visible()
    expect(bo_page.locator(".paused-card")).to_be_hidden()
    expect(waiting_names(pages[2])).to_have_text("Ann, Bo, you")

    view = public_snapshot(server, table)["view"]
    ok = allowed(view)
    enter_sheet(host, "en", [ok[0], *ok[10:14]])
    enter_sheet(pages[2], "en", [ok[1], *ok[14:18]])
    for page in (host, pages[2]):
        expect(waiting_names(page)).to_have_text("Bo")
    expect(waiting_names(bo_page)).to_have_text("you")

    # Three seconds on, the late phone rings (a chime and a buzz) and every phone shows the wait.
    expect(bo_page.locator(".waiting-line")).to_have_attribute("data-rung", "1", timeout=15_000)
    assert REMINDER_BUZZ in bo_page.evaluate("window.__buzz")
    assert bo_page.evaluate("window.__tones") == 2
    for page in pages:
        expect(page.locator(".waiting-seat[data-player='p2'] .waiting-time")).to_have_text(re.compile(r"^ 0:0\d$"))

    # The host starts the count without Bo's sheet: Bo sits the round out.
    row = manage(host, "p2")
    expect(row.locator("[data-waited='p2']")).to_have_text(re.compile(r"^waiting 0:\d\d$"))
    confirm(row, "Start without Bo's sheet", "Tap again: Bo sits this round out (no numbers, a round score of 0)")
    for page in pages:
        expect(page.locator(".waiting-line")).to_be_hidden()
        expect(page.locator("#cu-current")).to_be_visible()
    assert public_snapshot(server, table)["view"]["phase"] == "count"
    history = open_history(host)
    expect(history).to_contain_text("Bo sits out round 1")
    expect(history).to_contain_text("Ann handed Bo's seat back to their own phone.")
    expect(history).to_contain_text("Bo is back on their own phone.")
    expect(history).to_contain_text("Ann set the reminder for a late player: 3 s.")


def play_to_vote(server: str, table: str, tokens: dict[str, str]) -> None:
    """King Up!'s placements and moves through the API (the screens follow
    them): each turn places on the highest level it may, then moves the
    highest character, until one reaches the throne and an election begins."""
    any_token = next(iter(tokens.values()))
    for _ in range(200):
        view = snapshot(server, table, any_token)["view"]
        if view["phase"] == "vote":
            return
        mover = view["turn"]
        act = climb(snapshot(server, table, tokens[mover])["legal"], view["positions"])
        post_action(server, table, tokens[mover], act)
    raise AssertionError("no election")


def test_king_up_votes_on_without_a_seat_and_hands_its_phone_back_after_the_reveal(phone, server):
    names = {"p1": "Ann", "p2": "Bo", "p3": "Cy"}
    pages = {p: phone("en-US") for p in names}
    host, bo_page = pages["p1"], pages["p2"]
    table = create_table(host, TITLES["en"], names["p1"], "en")
    for p in ("p2", "p3"):
        join(pages[p], f"{server}/t/{table}", names[p], "en")
    host.get_by_role("button", name="Start game").click()
    for page in pages.values():
        expect(page.locator(".game-kingup .ku-status")).to_be_visible()
    tokens = {p: token_of(pages[p], table) for p in names}
    # Whose turn it is, on every phone.
    expect(waiting_names(pages["p3"])).to_have_text("Ann")
    expect(waiting_names(host)).to_have_text("you")
    play_to_vote(server, table, tokens)
    for page in pages.values():
        expect(page.locator("button.ku-vote[data-vote='yes']")).to_be_visible()
    expect(waiting_names(pages["p3"])).to_have_text("Ann, Bo, you")

    host.locator("button.ku-vote[data-vote='yes']").click()
    host.locator("button.ku-vote-final[data-vote='yes']").click()
    expect(waiting_names(pages["p3"])).to_have_text("Bo, you")

    # Bo steps away and leaves the seat to the host. The phone cannot come back before
    # the reveal (its vote may be a card laid face down); the sheet says so.
    row = manage(host, "p2")
    expect(row.get_by_role("button", name="Count Bo's vote as Yes")).to_be_visible()
    off_my_phone(bo_page, "p2", "Bo")
    expect(bo_page.get_by_role("heading", name="Your seat is paused")).to_be_visible()
    expect(bo_page.locator("button.ku-vote")).to_have_count(0)
    row = manage(host, "p2")
    expect(row.get_by_role("button", name="Hand back to Bo's phone")).to_be_disabled()
    expect(row.locator(".stall-until")).to_have_text(
        "Bo's vote card is on paper: hand the phone back once the votes are revealed.")

    # The host goes on without Bo's vote: it counts as Yes.
    confirm(row, "Count Bo's vote as Yes", "Tap again: Bo is away, their vote counts as Yes and spends no No card")
    # Every phone hears of the host's step for Bo as it happens.
    expect(pages["p3"].locator("#toast")).to_have_text("Ann went on without Bo.")
    expect(waiting_names(pages["p3"])).to_have_text("you")
    pages["p3"].locator("button.ku-vote[data-vote='yes']").click()
    pages["p3"].locator("button.ku-vote-final[data-vote='yes']").click()
    for page in pages.values():
        expect(page.locator(".ku-reveal-vote[data-player='p2']")).to_have_attribute("data-vote", "yes")

    # After the reveal the host hands Bo's seat back; Bo continues on the same phone.
    confirm(manage(host, "p2"), "Hand back to Bo's phone", "Tap again: Bo's own phone plays again")
    expect(bo_page.get_by_role("heading", name="Your seat is back")).to_be_visible()
    bo_page.get_by_role("button", name="Continue as Bo").click()
    expect(bo_page.locator(".paused-card")).to_be_hidden()
    assert snapshot(server, table, tokens["p2"])["view"]["me"]["player"] == "p2"
    history = open_history(host)
    expect(history).to_contain_text("Bo is away: their vote counts as Yes")
    expect(history).to_contain_text("Bo chose to play without their phone. Their phone waits until the host hands the seat back to it.")
    expect(history).to_contain_text("Ann handed Bo's seat back to their own phone.")
    expect(history).to_contain_text("Bo is back on their own phone.")


def test_a_seat_paused_in_the_lobby_is_handed_back_from_the_seat_tools(phone, server, toy):
    host, bo = phone("en-US"), phone("en-US")
    table = create_table(host, toy, "Ann", "en")
    join(bo, f"{server}/t/{table}", "Bo", "en")
    host.get_by_role("button", name="Manage Bo").click()
    panel = host.locator("#seat-panel-p2")
    # Bo's phone is live: only Bo takes the seat off it.
    expect(panel.get_by_role("button", name="Make host")).to_be_visible()
    expect(panel.get_by_role("button", name="No phone")).to_have_count(0)
    bo.get_by_role("button", name="Manage Bo").click()
    bo_panel = bo.locator("#seat-panel-p2")
    bo_panel.get_by_role("button", name="Play without my phone").click()
    bo_panel.get_by_role("button", name=re.compile("^Tap again: this phone pauses")).click()
    expect(bo.get_by_role("heading", name="Your seat is paused")).to_be_visible()
    expect(bo.get_by_role("heading", name="Lobby")).to_be_visible()  # still at the table, not sent to join
    expect(host.locator(".seat[data-player='p2'] .badge.no-phone")).to_be_visible()
    host.get_by_role("button", name="Hand back to Bo's phone").click()
    host.get_by_role("button", name="Tap again: Bo's own phone plays again").click()
    bo.get_by_role("button", name="Continue as Bo").click()
    expect(bo.locator(".paused-card")).to_be_hidden()
    expect(host.locator(".seat[data-player='p2'] .badge.no-phone")).to_have_count(0)
