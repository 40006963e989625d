"""Honest connection state on a silent network (issue 13): a TCP proxy between
one phone and its server stops forwarding anything — no FIN, no RST, like
Wi-Fi that drops at the table. The phone says so within ~5 s, a tap made
meanwhile is applied exactly once after recovery, and the other phones see
the seat go offline and come back. The phones are on two instances sharing
one Redis, so presence crosses instances."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from e2e.lobby import create_table, join
from e2e.test_offline import history_texts
from tests.server.tcpproxy import TcpProxy


def score_row(page: Page, name: str):
    return page.get_by_role("list", name="Players").locator("li").filter(
        has=page.locator(".seat-name", has_text=re.compile(f"^{name}$")))


@pytest.fixture
def proxy(own_server):
    p = TcpProxy([own_server.port])
    yield p
    p.close()


def host_and_late(phone, toy, proxy) -> tuple[Page, Page, str]:
    """The toy game started by Host, with Late on a second instance through the
    proxy, connected and able to note: the two phones and the table id."""
    host = phone("en-US")
    table = create_table(host, toy, "Host", "en")
    late = phone("en-US", base_url=proxy.url)
    join(late, f"{proxy.url}/t/{table}", "Late", "en")
    host.get_by_role("button", name="Start game").click()
    expect(late.locator("html")).to_have_attribute("data-connection", "open")
    expect(late.get_by_role("button", name=re.compile(r"^note"))).to_be_visible()
    return host, late, table


def late_notes(server: str, table: str) -> list[str]:
    """Late's notes in the history, waiting up to 10 s for the first one."""
    deadline = time.monotonic() + 10
    while True:
        notes = [t for t in history_texts(server, table) if t.startswith("Late: noted")]
        if notes or time.monotonic() > deadline:
            return notes
        time.sleep(0.3)


def test_silent_network_shown_within_seconds_and_no_tap_lost_or_doubled(phone, toy, server, proxy):
    host, late, table = host_and_late(phone, toy, proxy)
    expect(host.locator("html")).to_have_attribute("data-connection", "open")
    # Both seats live: no one is marked offline.
    expect(host.locator(".scoreboard .dot.off")).to_have_count(0)

    proxy.silent.set()
    t0 = time.monotonic()
    # A tap in the first moment, before the phone can know: it goes into the dead socket.
    late.get_by_role("button", name=re.compile(r"^note")).click()
    expect(late.locator("html")).to_have_attribute("data-connection", "offline", timeout=8_000)
    noticed = time.monotonic() - t0
    assert noticed <= 7.5, f"a silent network took {noticed:.1f} s to show"
    expect(late.get_by_role("status").filter(has_text="Reconnecting…")).to_be_visible()
    # The tap is not lost: the phone says it will send it.
    expect(late.get_by_text(re.compile("sent once, when the connection is back"))).to_be_visible()

    # The others see the seat drop (the server gives a silent socket up after ~15 s).
    expect(score_row(host, "Late").locator(".dot.off")).to_have_count(1, timeout=25_000)
    # Host plays on meanwhile; the version moves on without Late.
    host.get_by_role("button", name="add n=2").click()
    expect(host.get_by_role("button", name="add n=2")).to_have_count(0)

    proxy.silent.clear()
    expect(late.locator("html")).to_have_attribute("data-connection", "open", timeout=20_000)
    # Back in sync by version: Late sees Host's move and its own turn.
    expect(late.get_by_role("button", name="add n=1")).to_be_enabled(timeout=10_000)
    expect(score_row(host, "Late").locator(".dot.off")).to_have_count(0, timeout=15_000)

    notes = late_notes(server, table)
    assert len(notes) == 1, f"the tap on the silent network was lost or doubled: {history_texts(server, table)}"


def test_tap_while_offline_is_queued_and_sent_once(phone, toy, server, proxy):
    _, late, table = host_and_late(phone, toy, proxy)

    proxy.silent.set()
    expect(late.locator("html")).to_have_attribute("data-connection", "offline", timeout=8_000)
    # Known offline: the tap is queued, and the phone says so.
    late.get_by_role("button", name=re.compile(r"^note")).click()
    expect(late.get_by_text(re.compile("sent once, when the connection is back"))).to_be_visible()
    time.sleep(3)
    assert not [t for t in history_texts(server, table) if t.startswith("Late: noted")]

    proxy.silent.clear()
    expect(late.locator("html")).to_have_attribute("data-connection", "open", timeout=20_000)
    late_notes(server, table)
    # A little longer: a second copy would land now if one were coming.
    time.sleep(3)
    notes = [t for t in history_texts(server, table) if t.startswith("Late: noted")]
    assert len(notes) == 1, f"the queued tap was lost or doubled: {history_texts(server, table)}"
