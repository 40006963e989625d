"""A lost phone mid-game (issues 12 and 30), on real phones: the host gets a
one-time rejoin code, never a token; the phone that redeems it is sealed (no
secret, no move) until the PIN chosen in the lobby unlocks it there."""

from __future__ import annotations

import json
import re
import time
import urllib.error

import pytest
from playwright.sync_api import expect

from e2e.test_results import api


def test_the_lobby_pin_unlocks_a_seat_taken_over_mid_game(phone, server):
    made = api(server, "POST", "/api/tables", {"game": "kingup", "name": "Host",
                                               "options": {"goalCardMode": "deal"}})
    table, host = made["table"], made["player"]["token"]
    a = api(server, "POST", f"/api/tables/{table}/players", {"name": "Mina"})["player"]
    api(server, "POST", f"/api/tables/{table}/players", {"name": "Bo"})

    mina = phone("en-US")
    mina.goto("/")
    mina.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, a["token"]])
    mina.goto(f"/t/{table}")
    expect(mina.get_by_role("heading", name="Recovery PIN (optional)")).to_be_visible()
    mina.get_by_label("PIN (4–8 digits)").fill("4821")
    mina.get_by_role("button", name="Set PIN").click()
    expect(mina.get_by_role("heading", name="Recovery PIN is set")).to_be_visible()

    api(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "start"}, "request_id": "s"}, host)
    api(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "draw_goal"}, "request_id": "d"},
        a["token"])
    # The card is dealt once Mina's page has sent its chain link (issue 38: it answers by itself).
    for _ in range(100):
        card = api(server, "GET", f"/api/tables/{table}", token=a["token"])["view"]["me"]["goal_card"]
        if card is not None:
            break
        time.sleep(0.1)
    assert card is not None

    # While Mina's phone is connected nobody moves her seat to another phone.
    with pytest.raises(urllib.error.HTTPError) as live:
        api(server, "POST", f"/api/tables/{table}/players/{a['id']}/rejoin", token=host)
    assert live.value.code == 409 and json.load(live.value)["error"]["code"] == "phone_live"
    # Mina's phone dies; the host makes a rejoin code: a code, not a token.
    mina.close()
    for _ in range(100):
        try:
            rejoin = api(server, "POST", f"/api/tables/{table}/players/{a['id']}/rejoin", token=host)
            break
        except urllib.error.HTTPError:  # its socket's close not heard yet
            time.sleep(0.1)
    else:
        raise AssertionError("the seat's phone never stopped counting as connected")
    assert "token" not in rejoin["player"] and rejoin["rejoin_url"].endswith(f"#claim={rejoin['claim']}")

    new = phone("ko-KR")
    new.goto(rejoin["rejoin_url"])
    expect(new).to_have_url(re.compile(rf"/t/{table}$"))
    expect(new.get_by_role("heading", name="이 휴대폰에서는 자리가 잠겨 있어요")).to_be_visible()
    token = new.evaluate("t => localStorage.getItem(`tablemate.token.${t}`)", table)
    peek = api(server, "GET", f"/api/tables/{table}", token=token)
    assert peek["sealed"] and peek["view"]["me"] is None and peek["legal"] == [{"type": "unlock"}]
    # The code died on use: scanned again (by the host, say), it opens nothing.
    late = phone("en-US")
    late.goto(rejoin["rejoin_url"])
    expect(late.get_by_text("This rejoin code was already used or has expired.")).to_be_visible()
    expect(late.get_by_text("This game has already started.")).to_be_visible()
    assert late.evaluate("t => localStorage.getItem(`tablemate.token.${t}`)", table) is None
    new.get_by_label("비밀번호 (숫자 4–8자리)").fill("0000")
    new.get_by_role("button", name="잠금 해제").click()
    expect(new.get_by_role("alert").filter(has_text="이 자리의 비밀번호가 아니에요")).to_be_visible()
    new.get_by_label("비밀번호 (숫자 4–8자리)").fill("4821")
    new.get_by_role("button", name="잠금 해제").click()
    expect(new.get_by_role("heading", name="이 휴대폰에서는 자리가 잠겨 있어요")).to_be_hidden()
    after = api(server, "GET", f"/api/tables/{table}", token=token)
    assert after["sealed"] is False and after["view"]["me"]["goal_card"] == card


def test_a_pin_typed_offline_is_never_written_to_the_tab_s_storage(phone, server):
    """The outbox keeps an unanswered tap in sessionStorage for the next page
    (a reload), which a browser writes to disk; a PIN must never be kept there
    (web/screens/pin.js marks it a secret), and a later page must not send it."""
    made = api(server, "POST", "/api/tables", {"game": "kingup", "name": "Host"})
    table = made["table"]
    api(server, "POST", f"/api/tables/{table}/players", {"name": "Mina"})
    host = phone("en-US")   # the host's: it also sets the reminder, a tap that is kept
    host.goto("/")
    host.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, made["player"]["token"]])
    host.goto(f"/t/{table}")
    expect(host.get_by_role("heading", name="Recovery PIN (optional)")).to_be_visible()
    expect(host.locator("html")).to_have_attribute("data-connection", "open")

    host.context.set_offline(True)
    expect(host.locator("html")).not_to_have_attribute("data-connection", "open", timeout=10_000)
    # Something else tapped offline is kept: the outbox is writing to storage.
    host.get_by_label("Reminder for a late player", exact=True).select_option(label="30 s")
    host.get_by_label("PIN (4–8 digits)").fill("730519")
    host.get_by_role("button", name="Set PIN").click()
    kept = host.evaluate("(t) => sessionStorage.getItem(`tablemate.outbox.${t}`)", table)
    assert kept is not None and "reminder" in kept, kept
    assert "730519" not in kept
    assert not any("730519" in (host.evaluate("(k) => sessionStorage.getItem(k)", k) or "")
                   for k in host.evaluate("() => Object.keys(sessionStorage)"))
    host.context.set_offline(False)
    expect(host.locator("html")).to_have_attribute("data-connection", "open", timeout=30_000)
