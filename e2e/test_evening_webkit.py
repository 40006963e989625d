"""An evening, not one game (issue 41) in Safari's engine: a guest's WebKit
phone says which game comes next and who set it up, then shows the evening's
games and running total. Runs with the other WebKit tests (``pytest -k webkit``)."""

from __future__ import annotations

import json

from e2e.test_evening import GOALS, SECOND, kingup_table, play
from e2e.test_results import api
from e2e.test_webkit import WebKitPhone, display, webkit

__all__ = ["display", "webkit"]  # the fixtures, used by name


def rows(phone: WebKitPhone) -> list[list[str]]:
    return phone.js("""return [...document.querySelectorAll('#evening tr')].map(
        (tr) => [...tr.children].map((c) => c.textContent.trim()))""")


def test_webkit_the_evening_adds_up(webkit, server: str) -> None:
    table, (host, mina, _) = kingup_table(server)
    play(server, table, host, GOALS, 1)
    phone = webkit()
    phone.go("/")
    phone.js("localStorage.setItem('tablemate.lang', 'ko')")
    phone.js(f"localStorage.setItem('tablemate.token.{table}', {json.dumps(mina)})")
    phone.go(f"/t/{table}")
    phone.until(lambda: phone.css("#results table.score-pad"), "the results")
    assert not phone.css("#evening")

    api(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "play_again"}, "request_id": "again"}, host)
    line = phone.until(lambda: next((e.text for e in phone.css("#evening-next") if e.is_displayed()), ""),
                       "the next game's line")
    assert line == "오늘 2번째 게임: Host님이 같은 자리로 준비하고 있어요."

    play(server, table, host, SECOND, 2)
    got = phone.until(lambda: rows(phone) if len(rows(phone)) == 4 else None, "the evening's table")
    assert got == [["플레이어", "1번째 게임", "2번째 게임", "승리", "합계"],
                   ["Host", "72 🏆", "51", "1", "123"],
                   ["Bo", "51", "72 🏆", "1", "123"],
                   ["Mina", "45", "45", "0", "90"]]
