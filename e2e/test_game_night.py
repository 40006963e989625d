"""What a family tripped on during a game night (issue 33), on the platform's
screens (the toy game, so each rule is predictable): the "Enter moves for"
switcher goes back to the host's own seat after each entry, ..."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import call, open_as, send
from e2e.phoneless_helpers import add_phoneless


def toy_table(server: str, host: str = "민수", guests: tuple[str, ...] = ("Bora",),
              paper: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """A toy table made through the API: its id and the phones' tokens (the host's first)."""
    res = call(server, "POST", "/api/tables", {"game": "toy", "name": host, "options": {}})
    table, tokens = res["table"], [res["player"]["token"]]
    tokens += [call(server, "POST", f"/api/tables/{table}/players", {"name": g})["player"]["token"] for g in guests]
    for name in paper:
        add_phoneless(server, table, tokens[0], name)
    return table, tokens


def history_ko(server: str, table: str) -> list[str]:
    rounds = call(server, "GET", f"/api/tables/{table}/history?lang=ko")["rounds"]
    return [e["text"] for r in rounds for e in r["entries"]]


def test_an_entry_for_a_seat_without_a_phone_returns_to_the_own_seat(phone, server, toy) -> None:
    table, (host_token, bora) = toy_table(server, paper=("하린",))
    send(server, table, host_token, {"type": "start"})
    host: Page = phone("ko-KR")
    open_as(host, table, host_token)
    host.get_by_role("button", name="add n=1").click()
    send(server, table, bora, {"type": "add", "n": 1})

    # 하린's turn: the host enters it for her.
    host.locator(".proxy-bar button[data-proxy='p3']").click()
    expect(host.locator(".proxy-now")).to_have_text("하린 님 대신 입력 중")
    host.get_by_role("button", name="add n=2").click()
    # Entered: the host is back on its own seat at once.
    expect(host.locator(".proxy-now")).to_be_hidden()
    expect(host.locator(".proxy-bar button[data-proxy='self']")).to_have_attribute("aria-pressed", "true")
    expect(host.locator(".proxy-bar")).not_to_have_class(re.compile(r"\bactive\b"))
    assert history_ko(server, table)[-1] == "하린 (민수 입력) +2"

    # The host's own powers and own turn work without tapping "나" first.
    host.get_by_role("button", name="next_round").click()
    expect(host.get_by_role("button", name="add n=3")).to_be_enabled()
    host.get_by_role("button", name="add n=3").click()
    expect(host.get_by_role("button", name="add n=3")).to_have_count(0)
    assert history_ko(server, table)[-1] == "민수 +3"
