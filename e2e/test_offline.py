"""A phone off the network for a minute while the others play (issue 7): it
comes back to the current state, and its tap made while offline is either
applied once or refused with a clear message, never applied twice."""

from __future__ import annotations

import json
import random
import re
import urllib.request

from playwright.sync_api import expect

from e2e.lobby import create_table, join
from tests.words import worded

OFFLINE_MS = 60_000


def history_texts(server: str, table: str) -> list[str]:
    with urllib.request.urlopen(f"{server}/api/tables/{table}/history", timeout=5) as r:
        data = worded(json.load(r), "en")
    return [e["text"] for rnd in data["rounds"] for e in rnd["entries"] if not e["undone"]]


def test_phone_offline_for_a_minute(phone, toy, server):
    host = phone("en-US")
    table = create_table(host, toy, "Host", "en")
    mid, late = phone("en-US"), phone("en-US")
    join(mid, f"{server}/t/{table}", "Mid", "en")
    join(late, f"{server}/t/{table}", "Late", "en")
    host.get_by_role("button", name="Start game").click()
    expect(late.get_by_text("Connected", exact=True)).to_be_visible()
    expect(late.get_by_role("button", name=re.compile(r"^note"))).to_be_visible()

    late.context.set_offline(True)
    # A tap while offline: the request cannot reach the server.
    late.get_by_role("button", name=re.compile(r"^note")).click()
    expect(late.get_by_role("alert").or_(late.get_by_role("status")).filter(
        has_text=re.compile("server|network|connection", re.I)).first).to_be_visible(timeout=20_000)

    # The phone knows it is cut off (its socket's pings go unanswered).
    expect(late.get_by_text("Reconnecting…", exact=True)).to_be_visible(timeout=60_000)

    # Meanwhile the others play: it becomes Late's turn.
    host.get_by_role("button", name="add n=2").click()
    expect(mid.get_by_role("button", name="add n=3")).to_be_enabled()
    mid.get_by_role("button", name="add n=3").click()
    expect(host.get_by_role("button", name="add n=1")).to_have_count(0)
    host.wait_for_timeout(OFFLINE_MS)  # the minute off the network
    expect(late.get_by_role("button", name="add n=1")).to_have_count(0)  # it could not know

    late.context.set_offline(False)
    # Back: the phone catches up by itself (reconnect + resync), no reload.
    expect(late.get_by_text("Connected", exact=True)).to_be_visible(timeout=30_000)
    expect(late.get_by_role("button", name="add n=1")).to_be_enabled(timeout=30_000)
    late.get_by_role("button", name="add n=1").click()
    # Round 1 is complete: the host (and only the host) may start round 2.
    expect(host.get_by_role("button", name="next_round")).to_be_enabled()

    texts = history_texts(server, table)
    notes = [t for t in texts if t.startswith("Late: noted")]
    assert len(notes) <= 1, f"the offline tap was applied twice: {texts}"
    assert "Late +1" in texts and "Host +2" in texts and "Mid +3" in texts


def test_a_tap_made_offline_survives_a_reload(phone, toy, server):
    """The toast says an offline tap will be sent once the connection is back;
    iOS may reload the page (or the player does) before it is: the next page
    of that tab sends it, once, and says so."""
    host = phone("en-US")
    table = create_table(host, toy, "Host", "en")
    expect(host.get_by_text("Connected", exact=True)).to_be_visible()
    # The reload below is offline: the service worker must already serve the app.
    # Its first install fetches the whole shell: slow on a busy machine.
    host.wait_for_function("() => !!(navigator.serviceWorker && navigator.serviceWorker.controller)", timeout=60_000)

    host.context.set_offline(True)
    expect(host.get_by_text("Connected", exact=True)).to_have_count(0, timeout=10_000)
    host.get_by_label("Reminder for a late player", exact=True).select_option(label="30 s")
    expect(host.get_by_text(re.compile("your move will be sent once", re.I)).first).to_be_visible()

    host.reload()   # offline: the worker's app, the tab's kept snapshot
    expect(host.get_by_role("heading", name="Lobby")).to_be_visible()
    # It says the move is on its way, and the controls wait for it: tapped again, it would be a second move.
    note = host.get_by_role("status").filter(has_text="Sending your move from before the reload")
    expect(note).to_be_visible()
    assert host.get_by_label("Reminder for a late player", exact=True).evaluate(
        "e => getComputedStyle(e.closest('.card')).pointerEvents") == "none"
    host.context.set_offline(False)
    expect(host.get_by_text("Connected", exact=True)).to_be_visible(timeout=30_000)
    expect(note).to_be_hidden()
    expect(host.locator(".reminder-value")).to_have_text("30 s", timeout=10_000)

    with urllib.request.urlopen(f"{server}/api/tables/{table}", timeout=5) as r:
        assert json.load(r)["reminder"] == 30
    texts = history_texts(server, table)
    assert [t for t in texts if "reminder" in t] == ["Host set the reminder for a late player: 30 s."], texts
    # Answered: a further reload sends nothing again.
    assert host.evaluate("() => sessionStorage.getItem(`tablemate.outbox.${location.pathname.split('/')[2]}`)") is None


def test_a_count_called_offline_and_reloaded_moves_the_count_once(phone, server):
    """Count Up's caller is the table's count: a "next number" tapped with the
    Wi-Fi down, then the page reloaded (iOS discarding it, or the player) before
    it was sent, moves the count by one when the network is back: not zero
    (the phones would wait on a number the caller's screen said it called) and
    not two (a second call would pass a number nobody heard)."""
    from e2e.camelup_helpers import open_as, seat_table, send, snapshot
    from e2e.countup_helpers import random_sheets

    table, tokens = seat_table(server, "countup")
    send(server, table, tokens[0], {"type": "start"})
    view = snapshot(server, table)["view"]
    for tok, nums in zip(tokens, random_sheets(view, random.Random(table), players=3), strict=True):
        send(server, table, tok, {"type": "numbers", "numbers": nums})
    host = phone("en-US")
    open_as(host, table, tokens[0])
    step = host.locator(".cu-caller button.cu-step")
    expect(step).to_be_enabled()
    host.wait_for_function("() => !!(navigator.serviceWorker && navigator.serviceWorker.controller)", timeout=60_000)

    host.context.set_offline(True)
    expect(host.get_by_text("Connected", exact=True)).to_have_count(0, timeout=10_000)
    step.click()
    host.reload()   # offline: the worker's app, the tab's kept snapshot
    note = host.get_by_role("status").filter(has_text="Sending your move from before the reload")
    expect(note).to_be_visible()
    host.context.set_offline(False)
    expect(note).to_be_hidden(timeout=30_000)
    expect(host.locator(".cu-caller button.cu-step")).to_be_enabled(timeout=10_000)
    count = snapshot(server, table)["view"]["count"]
    assert count["value"] == 1 and len(count["calls"]) == 1, count
    host.wait_for_timeout(1_000)   # nothing more comes: the call was sent once
    assert snapshot(server, table)["view"]["count"]["value"] == 1
    assert host.evaluate("() => sessionStorage.getItem(`tablemate.outbox.${location.pathname.split('/')[2]}`)") is None
