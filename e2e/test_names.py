"""Hostile and unusual player names (issue 7): shown as text everywhere, trimmed
to the documented 24 characters, and no script ever runs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from playwright.sync_api import expect

from e2e.lobby import create_table
from e2e.table_helpers import open_history
from e2e.test_platform import api_join, seat_names

XSS = "<img src=x onerror=alert(1)>"
LONG_KO = "가나다라마바사아자차카타파하" * 14  # 196 characters (200 is the most accepted)
FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467 민지"
HOST = "<b onclick=x>호스트</b>"  # under 24 characters: the form keeps it whole


def test_hostile_names_render_as_text(phone, games, server):
    toy = next((g for g in games if g["name"] == "toy"), games[0])
    host = phone("ko-KR")
    dialogs: list[str] = []
    host.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    table = create_table(host, toy, HOST, "ko")
    for name in (XSS, LONG_KO, FAMILY):
        api_join(server, table, name)
    # Two seats can't share a name (issue 12): the same hostile name twice is refused.
    try:
        api_join(server, table, XSS)
        raise AssertionError("a second seat took the same name")
    except urllib.error.HTTPError as e:
        assert e.code == 409 and json.load(e)["error"]["code"] == "name_taken"
    expected = [HOST, XSS[:24], LONG_KO[:24], FAMILY]
    expect(seat_names(host, "좌석")).to_have_text(expected)
    # Nothing was parsed as HTML: no <img> from a name, no alert.
    assert host.locator("img[src='x']").count() == 0
    assert host.evaluate("() => document.body.innerHTML.includes('<img src=x')") is False

    host.get_by_role("button", name="게임 시작").click()
    history = open_history(host)
    expect(history.get_by_role("listitem").filter(has_text=LONG_KO[:24])).to_have_count(1)
    expect(history.get_by_role("listitem").filter(has_text=XSS[:24])).to_have_count(1)
    expect(history.get_by_role("listitem").filter(has_text=HOST)).to_have_count(1)
    host.get_by_role("button", name="플레이어").click()
    expect(host.get_by_text(FAMILY, exact=True).first).to_be_visible()
    assert host.locator("img[src='x']").count() == 0
    assert dialogs == []

    with urllib.request.urlopen(f"{server}/api/tables/{table}", timeout=5) as r:
        names = [p["name"] for p in json.load(r)["players"]]
    assert names == expected, "the server trims to 24 characters"
