"""The platform on real phones (browser contexts): create, join by QR code,
reorder, start, reload, rejoin, spectate, and both languages."""

from __future__ import annotations

import io
import json
import re
import urllib.request
from typing import Any

import zxingcpp
from PIL import Image
from playwright.sync_api import Locator, Page, WebSocketRoute, expect

from conftest import skip_or_fail
from e2e.lobby import create_table, join, title
from e2e.table_helpers import open_history
from e2e.test_results import api

PREFERRED = ("countup", "kingup", "camelup")


def pick_game(games: list[dict], players: int = 3) -> dict:
    """A real game that seats ``players`` (the toy game only when none is registered)."""
    fits = [g for g in games if g["min_players"] <= players <= g["max_players"]]
    for name in PREFERRED:
        for g in fits:
            if g["name"] == name:
                return g
    real = [g for g in fits if g["name"] != "toy"]
    if real:
        return real[0]
    if fits:
        return fits[0]
    skip_or_fail(f"no registered game seats {players} players (GET /api/games lists {[g['name'] for g in games]})")


def decode_qr(page: Page, img: Locator) -> str:
    """Decodes the QR code the phone shows, from a screenshot of its screen."""
    expect(img).to_be_visible()
    expect(img).to_have_js_property("complete", True)
    # Centred, clear of the sticky bottom bar; then the screen is captured and
    # cut down to the image's box, so another code on screen cannot interfere.
    img.evaluate("e => e.scrollIntoView({block: 'center'})")
    box = img.bounding_box()
    assert box, "the QR image has no box"
    shot = Image.open(io.BytesIO(page.screenshot()))
    scale = shot.width / page.viewport_size["width"]
    pad = 16
    shot = shot.crop((
        max(0, int((box["x"] - pad) * scale)), max(0, int((box["y"] - pad) * scale)),
        min(shot.width, int((box["x"] + box["width"] + pad) * scale)),
        min(shot.height, int((box["y"] + box["height"] + pad) * scale)),
    ))
    found = [r.text for r in zxingcpp.read_barcodes(shot) if r.format == zxingcpp.BarcodeFormat.QRCode]
    assert len(found) == 1, f"expected one QR code on the screen, found {found}"
    return found[0]


#: Games in which every phone has its part as the first round begins (Count Up's sheet,
#: King Up!'s secret card): the scores fold behind "Show scores" meanwhile (screens/turn.js).
FOLDED_AT_START = {"countup", "kingup"}


def players_list(page: Page, game: dict) -> Locator:
    """An English phone's players list at a table just started, unfolded first where
    the round's first part folded it."""
    if game["name"] in FOLDED_AT_START:
        page.get_by_role("button", name="Show scores").click()
    return page.get_by_role("list", name="Players")


def seat_names(page: Page, list_name: str) -> Locator:
    return page.get_by_role("list", name=list_name).locator(".seat-name")


def test_create_scan_join_reorder_start_reload(phone, games, server):
    game = pick_game(games, 3)
    host = phone("ko-KR")
    table = create_table(host, game, "민수", "ko")

    # Korean from the browser language: the lobby speaks Korean.
    expect(host.locator("html")).to_have_attribute("lang", "ko")
    expect(host.get_by_role("status").filter(has_text="연결됨")).to_be_visible()
    expect(host.get_by_text(re.compile(r"1명 참가 · \d+–\d+명 플레이"))).to_be_visible()

    url = decode_qr(host, host.get_by_role("img", name="이 테이블 참가용 QR 코드"))
    assert url == f"{server}/t/{table}"
    # The link is also shown as text, and so is the short code.
    expect(host.locator("#lobby-link")).to_have_text(url)
    expect(host.locator("#lobby-code")).to_have_text(re.compile(r"^[A-Z0-9]{6}$"))

    bora = phone("en-US")
    join(bora, url, "Bora", "en")
    minji = phone("ko-KR")
    join(minji, url, "민지", "ko")

    for page, seats in ((host, "좌석"), (bora, "Seats"), (minji, "좌석")):
        expect(seat_names(page, seats)).to_have_text(["민수", "Bora", "민지"])
    expect(bora.get_by_text("Waiting for the host to start the game…")).to_be_visible()
    expect(bora.get_by_role("button", name="Start game")).to_be_hidden()
    # Only the host reorders.
    expect(bora.get_by_role("button", name="Move Bora up")).to_have_count(0)

    # Clockwise at the real table: 민수, 민지, Bora.
    host.get_by_role("button", name="민지 위로 이동").click()
    for page, seats in ((host, "좌석"), (bora, "Seats"), (minji, "좌석")):
        expect(seat_names(page, seats)).to_have_text(["민수", "민지", "Bora"])

    host.get_by_role("button", name="게임 시작").click()
    game_ko, game_en = title(game, "ko"), title(game, "en")
    for page, heading, connected in ((host, game_ko, "연결됨"), (bora, game_en, "Connected"), (minji, game_ko, "연결됨")):
        expect(page.get_by_role("heading", level=1, name=heading)).to_be_visible()
        expect(page.get_by_role("status").filter(has_text=connected)).to_be_visible()
    expect(players_list(bora, game).locator(".seat-name")).to_have_text(["민수", "민지", "Bora"])
    # Undo is the host's alone.
    expect(host.get_by_role("button", name="되돌리기")).to_be_visible()
    expect(bora.get_by_role("button", name="Undo", exact=True)).to_be_hidden()

    # A reload keeps the phone in its seat: straight back to the table, no join form.
    bora.reload()
    expect(bora.get_by_role("heading", level=1, name=game_en)).to_be_visible()
    expect(bora.get_by_role("status").filter(has_text="Connected")).to_be_visible()
    mine = players_list(bora, game).locator("li.mine")
    expect(mine.locator(".seat-name")).to_have_text("Bora")
    expect(bora.get_by_role("heading", name="Join the table")).to_have_count(0)

    # The language switch: English → Korean, remembered across a reload.
    bora.get_by_role("button", name="한국어").click()
    expect(bora.locator("html")).to_have_attribute("lang", "ko")
    expect(bora.get_by_role("button", name="기록", exact=True)).to_be_visible()
    expect(bora.get_by_role("heading", level=1, name=game_ko)).to_be_visible()
    bora.reload()
    expect(bora.get_by_role("status").filter(has_text="연결됨")).to_be_visible()
    expect(bora.get_by_role("button", name="한국어")).to_have_attribute("aria-pressed", "true")


def api_join(server: str, table: str, name: str) -> dict:
    """A seat taken over HTTP, for tests where that phone's screen does not matter."""
    req = urllib.request.Request(
        f"{server}/api/tables/{table}/players", data=json.dumps({"name": name}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)["player"]


def test_a_reorder_lands_though_the_table_moved_on(phone, games, server):
    """The host taps "move up" on a screen one change behind: here another
    phone's chain anchor, which every phone sends right after it joins, so a
    host who reorders as people come in often acts on a version the table has
    just left. The tap names the order it was made from, and lands, since the
    order is still that one; were it the version, it would be refused."""
    game = pick_game(games, 3)
    host = phone("ko-KR")
    frames: dict[str, Any] = {"held": None, "page": None}

    def hold_frames(ws: WebSocketRoute) -> None:
        # The host's socket through a proxy whose frames to the page can be held.
        frames["page"] = ws
        to_server = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            if frames["held"] is None:
                ws.send(message)
            else:
                frames["held"].append(message)
        to_server.on_message(down)

    host.route_web_socket(re.compile(r".*"), hold_frames)
    table = create_table(host, game, "민수", "ko")
    minji = api_join(server, table, "민지")
    api_join(server, table, "Bora")
    expect(seat_names(host, "좌석")).to_have_text(["민수", "민지", "Bora"])

    frames["held"] = []  # what the server sends now reaches the page only below
    body = {"action": {"type": "anchor", "anchor": "ab" * 32, "length": 16}, "request_id": "anchor-1"}
    api(server, "POST", f"/api/tables/{table}/actions", body, minji["token"])
    host.get_by_role("button", name="Bora 위로 이동").click()
    held, frames["held"] = frames["held"], None
    for message in held:
        frames["page"].send(message)

    expect(seat_names(host, "좌석")).to_have_text(["민수", "Bora", "민지"])
    expect(host.get_by_role("alert")).to_have_count(0)
    assert [p["id"] for p in api(server, "GET", f"/api/tables/{table}", None, minji["token"])["players"]] == \
        ["p1", "p3", "p2"]


def test_unknown_table_shows_a_clear_page(phone):
    page = phone("en-US")
    page.goto("/t/NoSuchTable0000000000")
    expect(page.get_by_role("heading", name="Table not found")).to_be_visible()
    expect(page.get_by_text("expired after being idle")).to_be_visible()
    page.get_by_role("link", name="Go to the start page").click()
    expect(page.get_by_role("heading", name="New table")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))


def test_join_by_code_rejoin_qr_and_removal(phone, games):
    game = games[0]
    host = phone("en-US")
    table = create_table(host, game, "Host", "en")
    code = host.locator("#lobby-code").inner_text()

    # A phone types the short code (in lower case, with a space) on the home screen.
    old = phone("ko-KR")
    old.goto("/")
    old.get_by_label("테이블 코드", exact=True).fill(f"{code[:3].lower()} {code[3:].lower()}")
    old.get_by_role("button", name="테이블 찾기").click()
    expect(old).to_have_url(re.compile(rf"/t/{table}$"))
    old.get_by_label("내 이름", exact=True).fill("지수")
    old.get_by_role("button", name="참가하기").click()
    expect(seat_names(host, "Seats")).to_have_text(["Host", "지수"])
    expect(old.locator("li.mine .seat-name")).to_have_text("지수")

    # 지수 lost that phone: the host shows a rejoin QR for the seat (two taps)
    # and a new phone scans it: a one-time code, which ends the old link once used.
    host.get_by_role("button", name="Manage 지수").click()
    host.get_by_role("button", name="Rejoin QR").click()
    host.get_by_role("button", name="Tap again: the phone that scans it takes 지수's seat, once").click()
    rejoin_url = decode_qr(host, host.get_by_role("img", name="Rejoin QR code for 지수"))
    assert re.fullmatch(rf".*/t/{table}#claim=[A-Za-z0-9_-]+", rejoin_url), rejoin_url

    new = phone("ko-KR")
    new.goto(rejoin_url)
    expect(new.locator("li.mine .seat-name")).to_have_text("지수")
    # The code left the address bar at once.
    expect(new).to_have_url(re.compile(rf"/t/{table}$"))
    # The old phone's link stopped working: it is told so and offered the form.
    expect(old.get_by_role("alert").filter(has_text="좌석 링크가 더 이상 유효하지 않아요")).to_be_visible()
    expect(old.get_by_role("heading", name="테이블에 참가")).to_be_visible()
    expect(seat_names(host, "Seats")).to_have_text(["Host", "지수"])

    # The host removes the seat (its tools are still open); the new phone is
    # back at the join form.
    expect(host.get_by_role("button", name="Manage 지수")).to_have_attribute("aria-expanded", "true")
    host.get_by_role("button", name="Remove", exact=True).click()
    host.get_by_role("button", name="Tap again to remove 지수").click()
    expect(seat_names(host, "Seats")).to_have_text(["Host"])
    expect(new.get_by_role("heading", name="테이블에 참가")).to_be_visible()

    # A phone whose stored token is refused (401 bad_token) forgets it and says why.
    new.evaluate("t => localStorage.setItem(`tablemate.token.${t}`, 'garbage')", table)
    new.reload()
    expect(new.get_by_role("alert").filter(has_text="좌석 링크가 더 이상 유효하지 않아요")).to_be_visible()
    expect(new.get_by_role("heading", name="테이블에 참가")).to_be_visible()
    assert new.evaluate("t => localStorage.getItem(`tablemate.token.${t}`)", table) is None


def test_big_screen_is_read_only(phone, games, server):
    game = pick_game(games, 3)
    host = phone("ko-KR")
    table = create_table(host, game, "민수", "ko")
    for name in ("Bora", "지훈"):
        api_join(server, table, name)

    tablet = phone("en-US")
    tablet.goto(f"/t/{table}?view=spectator")
    expect(tablet.get_by_text("Big screen view · read-only")).to_be_visible()
    expect(tablet.get_by_role("img", name="QR code to join this table")).to_be_visible()
    expect(seat_names(tablet, "Seats")).to_have_text(["민수", "Bora", "지훈"])
    expect(tablet.get_by_role("button", name="Start game")).to_have_count(0)
    expect(tablet.get_by_role("button", name=re.compile("^Manage"))).to_have_count(0)

    host.get_by_role("button", name="게임 시작").click()
    expect(tablet.get_by_role("heading", level=1, name=title(game, "en"))).to_be_visible()
    expect(tablet.get_by_text("Big screen view · read-only")).to_be_visible()
    expect(tablet.get_by_role("button", name="Undo", exact=True)).to_have_count(0)
    expect(tablet.get_by_role("heading", name="What you can do")).to_be_hidden()


def test_generic_module_play_history_and_undo(phone, toy, server):
    host = phone("ko-KR")
    table = create_table(host, toy, "민수", "ko")
    guest = phone("en-US")
    join(guest, f"{server}/t/{table}", "Bora", "en")
    host.get_by_role("button", name="게임 시작").click()

    # The host sits first and plays first; the guest waits.
    expect(host.get_by_role("button", name="add n=2")).to_be_enabled()
    expect(guest.get_by_role("button", name="add n=2")).to_have_count(0)
    host.get_by_role("button", name="add n=2").click()
    # Live: the guest's buttons appear without a reload.
    expect(guest.get_by_role("button", name="add n=2")).to_be_enabled()
    expect(host.get_by_role("button", name="add n=2")).to_have_count(0)

    history = open_history(host)
    expect(history.get_by_role("listitem").filter(has_text="민수 +2")).to_be_visible()

    host.get_by_role("button", name="되돌리기").click()
    # It says what it will take back before it does.
    expect(host.locator("#undo-sheet .undo-what")).to_contain_text("되돌릴 행동: 민수 +2")
    host.get_by_role("button", name="네, 되돌려요").click()
    expect(host.get_by_role("status").filter(has_text="마지막 행동을 되돌렸어요.")).to_be_visible()
    expect(history.get_by_role("listitem").filter(has_text="민수 +2")).to_contain_text("취소됨")
    expect(host.get_by_role("button", name="add n=2")).to_be_enabled()
    expect(guest.get_by_role("button", name="add n=2")).to_have_count(0)

    # Every phone reads the same history, in its own language.
    expect(open_history(guest).get_by_role("listitem").filter(has_text="undone")).to_be_visible()


def test_rename_and_hand_over_host(phone, games, server):
    game = games[0]
    host = phone("en-US")
    table = create_table(host, game, "Ann", "en")
    guest = phone("en-US")
    join(guest, f"{server}/t/{table}", "Bo", "en")

    # A seat may rename itself.
    guest.get_by_role("button", name="Manage Bo").click()
    guest.get_by_label("New name for Bo").fill("Bo <i>Kim</i>")
    guest.get_by_role("button", name="Save", exact=True).click()
    expect(seat_names(host, "Seats")).to_have_text(["Ann", "Bo <i>Kim</i>"])

    # The host renames another seat and hands over host powers.
    host.get_by_role("button", name="Manage Bo <i>Kim</i>").click()
    host.get_by_label("New name for Bo <i>Kim</i>").fill("Bona")
    host.get_by_role("button", name="Save", exact=True).click()
    expect(seat_names(guest, "Seats")).to_have_text(["Ann", "Bona"])
    host.get_by_role("button", name="Manage Bona").click()
    host.get_by_role("button", name="Make host").click()
    host.get_by_role("button", name="Tap again to hand host powers to Bona").click()
    expect(guest.get_by_role("button", name="Start game")).to_be_visible()
    expect(guest.get_by_role("button", name="Move Ann down")).to_be_visible()
    expect(host.get_by_role("button", name="Start game")).to_be_hidden()
    expect(host.get_by_text("Waiting for the host to start the game…")).to_be_visible()
