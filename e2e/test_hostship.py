"""The host whose phone dies (issue 41, item 0), on phones: when the host's
phone has been gone for a while, every phone says who holds host powers now,
the stand-in gets the host's tools, shows a rejoin QR for the host's seat, and
the phone that scans it is locked until the seat's PIN; then the host is back."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from e2e.conftest import AppServer
from e2e.test_platform import decode_qr
from e2e.test_screens import check_screen
from tests import api_client


@pytest.fixture
def quick_server(redis_url: str, tmp_path: Path) -> Iterator[str]:
    """A server whose host powers pass on after 1 s without the host's phone."""
    app = AppServer(redis_url, tmp_path / "server.log")
    app.env["TABLEMATE_HOST_AWAY"] = "1"
    with app:
        yield app.base


def open_seat(page: Page, table: str, token: str) -> None:
    page.goto("/")
    page.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, token])
    page.goto(f"/t/{table}")


def test_the_host_phone_dies_and_the_table_goes_on(phone, quick_server) -> None:
    base = quick_server
    made = api_client.call(base, "POST", "/api/tables", {"game": "camelup", "name": "민수", "options": {}})
    table, host_token = made["table"], made["player"]["token"]
    api_client.call(base, "POST", f"/api/tables/{table}/actions",
                    {"action": {"type": "pin", "pin": "2468"}, "request_id": "pin"}, host_token)
    bora = api_client.call(base, "POST", f"/api/tables/{table}/players", {"name": "Bora"})["player"]["token"]
    jihun = api_client.call(base, "POST", f"/api/tables/{table}/players", {"name": "지훈"})["player"]["token"]

    host = phone("ko-KR", base_url=base)
    open_seat(host, table, host_token)
    b = phone("en-US", base_url=base)
    open_seat(b, table, bora)
    j = phone("ko-KR", base_url=base)
    open_seat(j, table, jihun)
    expect(host.get_by_role("button", name="게임 시작")).to_be_visible()
    expect(b.get_by_role("button", name="Start game")).to_be_hidden()
    expect(b.locator("#host-away")).to_be_hidden()

    host.context.close()  # the battery dies
    expect(b.locator("#host-away")).to_contain_text("You hold host powers until 민수 is back.", timeout=30_000)
    expect(j.locator("#host-away")).to_contain_text("민수님이 돌아올 때까지 Bora님이 호스트 역할을 맡아요.")
    expect(b.get_by_role("button", name="Start game")).to_be_visible()
    expect(j.get_by_role("button", name="게임 시작")).to_be_hidden()
    code = api_client.call(base, "GET", f"/api/tables/{table}")["code"]
    problems = check_screen(b, "en", "lobby-host-away", {code}) + check_screen(j, "ko", "lobby-host-away", {code})
    assert not problems, "\n".join(problems)

    # The stand-in brings the host's seat back on another phone; the host's
    # seat stays the host's (no "make host", no "remove" for it).
    b.get_by_role("button", name="Manage 민수").click()
    expect(b.get_by_role("button", name="Make host")).to_have_count(0)
    expect(b.get_by_role("button", name="Remove", exact=True)).to_have_count(0)
    b.get_by_role("button", name="Rejoin QR").click()
    b.get_by_role("button", name="Tap again: the phone that scans it takes 민수's seat, once").click()
    url = decode_qr(b, b.get_by_role("img", name="Rejoin QR code for 민수"))
    assert re.fullmatch(rf".*/t/{table}#claim=[A-Za-z0-9_-]+", url), url

    new = phone("ko-KR", base_url=base)
    new.goto(url)
    # Locked until the PIN: whoever scanned is not the host yet.
    expect(new.locator(".pin-card.sealed")).to_be_visible()
    expect(new.get_by_role("button", name="게임 시작")).to_be_hidden()
    new.get_by_label("비밀번호 (숫자 4–8자리)").fill("2468")
    new.get_by_role("button", name="잠금 해제").click()
    # Unlocked and connected: the host's powers are back with its seat.
    expect(new.get_by_role("button", name="게임 시작")).to_be_visible(timeout=30_000)
    expect(b.locator("#host-away")).to_be_hidden()
    expect(j.locator("#host-away")).to_be_hidden()
    expect(b.get_by_role("button", name="Start game")).to_be_hidden()
