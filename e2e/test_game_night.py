"""What a family tripped on during a game night (issue 33), on the platform's
screens (the toy game, so each rule is predictable): the "Enter moves for"
switcher goes back to the host's own seat after each entry; a phone cut off
from the server says so wherever it is scrolled; "play again" reopens the lobby
under its code and the next game's history has groups of its own; the undo
confirm names what undo takes back, or says in the game's words why nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from conftest import wait_for
from e2e.camelup_helpers import call, open_as, send
from e2e.phoneless_helpers import add_phoneless
from e2e.test_results import BOARD, GOALS, finished_kingup
from tests.server.tcpproxy import TcpProxy
from tests.words import texts


def toy_table(server: str, host: str = "민수", guests: tuple[str, ...] = ("Bora",),
              paper: tuple[str, ...] = (), **options: int) -> tuple[str, list[str]]:
    """A toy table made through the API: its id and the phones' tokens (the host's first)."""
    res = call(server, "POST", "/api/tables", {"game": "toy", "name": host, "options": options})
    table, tokens = res["table"], [res["player"]["token"]]
    tokens += [call(server, "POST", f"/api/tables/{table}/players", {"name": g})["player"]["token"] for g in guests]
    for name in paper:
        add_phoneless(server, table, tokens[0], name)
    return table, tokens


def history_ko(server: str, table: str) -> list[str]:
    return texts(call(server, "GET", f"/api/tables/{table}/history"), "ko")


def test_an_entry_for_a_seat_without_a_phone_returns_to_the_own_seat(phone, server, toy) -> None:
    table, (host_token, bora) = toy_table(server, paper=("하린",))
    send(server, table, host_token, {"type": "start"})
    host: Page = phone("ko-KR")
    open_as(host, table, host_token)
    host.get_by_role("button", name="add n=1").click()
    # Taken once the host's turn is over on its screen (the click goes out over the socket).
    expect(host.get_by_role("button", name="add n=1")).to_have_count(0)
    send(server, table, bora, {"type": "add", "n": 1})

    # 하린's turn: the host enters it for her.
    host.locator(".proxy-bar button[data-proxy='p3']").click()
    expect(host.locator(".proxy-now")).to_have_text("하린님 대신 입력 중")
    host.get_by_role("button", name="add n=2").click()
    # Entered: the host is back on its own seat at once.
    expect(host.locator(".proxy-now")).to_be_hidden()
    expect(host.locator(".proxy-bar button[data-proxy='self']")).to_have_attribute("aria-pressed", "true")
    expect(host.locator(".proxy-bar")).not_to_have_class(re.compile(r"\bactive\b"))
    # The switcher goes back at the tap; the entry itself lands a moment later.
    wait_for(lambda: history_ko(server, table)[-1] == "하린 (민수 입력) +2", what="the entry for 하린 in the history")

    # The host's own powers and own turn work without tapping "나" first.
    host.get_by_role("button", name="next_round").click()
    expect(host.get_by_role("button", name="add n=3")).to_be_enabled()
    host.get_by_role("button", name="add n=3").click()
    expect(host.get_by_role("button", name="add n=3")).to_have_count(0)
    assert history_ko(server, table)[-1] == "민수 +3"


@pytest.fixture
def proxy(own_server) -> Iterator[TcpProxy]:
    """A TCP proxy to a server of the test's own, which can go silent (Wi-Fi
    that drops at the table: no FIN, no RST)."""
    p = TcpProxy([own_server.port])
    yield p
    p.close()


def test_a_phone_cut_off_says_so_wherever_it_is_scrolled(phone, toy, own_server, proxy) -> None:
    table, (host_token, _) = toy_table(own_server.base)
    send(own_server.base, table, host_token, {"type": "start"})
    page: Page = phone("ko-KR", base_url=proxy.url)
    open_as(page, table, host_token)
    expect(page.locator("html")).to_have_attribute("data-connection", "open")
    banner = page.locator(".stale-banner")
    expect(banner).to_be_hidden()
    # A short screen, scrolled to its end: the header's pill is far out of sight.
    page.set_viewport_size({"width": 390, "height": 420})
    page.locator("button[aria-controls='players-panel']").click()
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert page.evaluate("window.scrollY") > 300
    expect(page.locator(".conn")).not_to_be_in_viewport()

    proxy.silent.set()
    expect(banner).to_be_visible(timeout=10_000)
    expect(banner).to_be_in_viewport()
    expect(banner).to_have_text("연결이 끊겼어요. 화면이 최신이 아닐 수 있어요. 다시 연결하는 중…")
    # The game screen under it is greyed: the numbers on it may be old.
    game = page.locator(".game-area")
    assert float(game.evaluate("e => getComputedStyle(e).opacity")) < 0.7
    page.evaluate("window.scrollTo(0, 0)")
    expect(banner).to_be_in_viewport()

    proxy.silent.clear()
    expect(page.locator("html")).to_have_attribute("data-connection", "open", timeout=20_000)
    expect(banner).to_be_hidden()
    assert float(game.evaluate("e => getComputedStyle(e).opacity")) == 1


def test_play_again_shows_the_code_and_keeps_each_game_apart_in_the_history(phone, server) -> None:
    table, host_token = finished_kingup(server)
    host: Page = phone("ko-KR")
    open_as(host, table, host_token)
    host.get_by_role("button", name="같은 자리로 한 판 더").click()
    expect(host.get_by_role("heading", name="대기실")).to_be_visible()
    code = host.locator("#lobby-code")
    expect(code).to_have_text(re.compile(r"^[A-Z0-9]{6}$"))
    assert call(server, "GET", f"/api/codes/{code.inner_text()}") == {"table": table, "status": "lobby"}

    host.get_by_role("button", name="게임 시작").click()
    # The start goes out over the socket: taken once the table has left its lobby.
    wait_for(lambda: call(server, "GET", f"/api/tables/{table}")["status"] != "lobby", what="the second game's start")
    send(server, table, host_token, {"type": "score_round", "board": BOARD,
                                     "goals": {p: list(g) for p, g in GOALS.items()}})
    host.locator("button[aria-controls='history-panel']").click()
    headings = host.locator("#history-panel .history-round h3")
    # Newest first: the second game's round, its lobby, then the first game's rounds.
    expect(headings).to_have_text(["2번째 게임 · 1라운드", "2번째 게임 · 첫 라운드 전", "1번째 게임 · 3라운드",
                                   "1번째 게임 · 2라운드", "1번째 게임 · 1라운드", "1번째 게임 · 첫 라운드 전"])
    second = host.locator("#history-panel .history-round").first.get_by_role("listitem")
    # Only the second game's lines (its start, the board, the scores), none of the first game's.
    expect(second).to_have_text([re.compile("^1라운드 점수"), re.compile("최종 보드를 입력"), "게임 시작!"])


def test_the_undo_confirm_names_what_it_takes_back_or_why_nothing(phone, server) -> None:
    made = call(server, "POST", "/api/tables", {"game": "kingup", "name": "민수", "options": {"playMode": "score_only"}})
    table, host_token = made["table"], made["player"]["token"]
    for name in ("Mina", "Bo"):
        call(server, "POST", f"/api/tables/{table}/players", {"name": name})
    send(server, table, host_token, {"type": "start"})
    send(server, table, host_token, {"type": "goal", "characters": list(GOALS["p1"])})
    send(server, table, host_token, {"type": "rename", "player": "p2", "name": "미나"})
    host: Page = phone("ko-KR")
    open_as(host, table, host_token)
    sheet = host.locator("#undo-sheet")
    undo = host.locator("button[aria-controls='undo-sheet']")
    # The newest line is the rename; undo takes back the goal card, and says so.
    undo.click()
    expect(sheet.locator(".undo-what")).to_have_text(re.compile("^되돌릴 행동: (?!.*미나).*민수"))
    expect(sheet.get_by_role("button", name="네, 되돌려요")).to_be_visible()
    sheet.get_by_role("button", name="취소").click()

    # The round's scores are revealed: nothing before them can be undone.
    goals = {p: list(g) for p, g in GOALS.items() if p != "p1"}
    send(server, table, host_token, {"type": "score_round", "board": BOARD, "goals": goals})
    expect(host.locator(".ku-result").first).to_be_visible()
    undo.click()
    expect(sheet.locator(".undo-what")).to_have_text(
        "투표나 라운드 점수가 공개된 뒤로는 되돌릴 수 없어요. 공개된 투표와 점수는 그대로예요.")
    expect(sheet.get_by_role("button", name="네, 되돌려요")).to_be_hidden()
    expect(sheet).not_to_contain_text("시트")


def test_the_your_turn_toast_covers_no_title(phone, server, toy) -> None:
    table, (host_token, _) = toy_table(server)
    send(server, table, host_token, {"type": "start"})
    host: Page = phone("ko-KR")
    open_as(host, table, host_token)
    toast = host.locator("#toast")
    expect(toast).to_have_text("내 차례예요")
    box = toast.bounding_box()
    assert box is not None
    for title in (host.locator("#table-title"), host.locator(".screen-head .eyebrow")):
        head = title.bounding_box()
        assert head is not None and box["y"] + box["height"] <= head["y"], (box, head)


def test_a_lost_seat_after_the_start_is_not_told_to_join_again(phone, server, toy) -> None:
    table, (host_token, _) = toy_table(server)
    send(server, table, host_token, {"type": "start"})
    for locale, started, again in (("ko-KR", "이미 시작된 게임이에요.", "다시 참가"), ("en-US", "This game has already started.",
                                                                            "Join again")):
        page: Page = phone(locale)
        open_as(page, table, "not-a-seat-token-of-this-table")
        card = page.locator("section.card").filter(has=page.locator("#join-title"))
        expect(card.get_by_role("alert")).to_be_visible()
        expect(card).to_contain_text(started)
        expect(card).not_to_contain_text(again)


def test_the_app_follows_the_phones_light_or_dark_setting(phone, server, toy) -> None:
    table, (host_token, _) = toy_table(server)
    send(server, table, host_token, {"type": "start"})
    seen = {}
    for scheme in ("light", "dark"):
        page: Page = phone("ko-KR", color_scheme=scheme)
        open_as(page, table, host_token)
        expect(page.locator("#table-title")).to_be_visible()
        seen[scheme] = page.evaluate("""() => ({
            bg: getComputedStyle(document.body).backgroundColor,
            text: getComputedStyle(document.body).color,
            scheme: getComputedStyle(document.documentElement).colorScheme,
            theme: [...document.querySelectorAll('meta[name=theme-color]')]
              .filter((m) => !m.media || matchMedia(m.media).matches).map((m) => m.content),
        })""")
    assert seen["dark"] == {"bg": "rgb(20, 22, 28)", "text": "rgb(238, 240, 244)", "scheme": "dark", "theme": ["#14161c"]}
    assert seen["light"] == {"bg": "rgb(246, 244, 239)", "text": "rgb(27, 29, 35)", "scheme": "light",
                             "theme": ["#f6f4ef"]}
