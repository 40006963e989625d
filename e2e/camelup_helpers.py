"""Helpers of the Camel Up end-to-end tests: a server with fixed random (the test
may give dice and the initial board), tables made through the API and joined
through the screens, a replica of the game in the engine, the driving of each
action through a phone's screen, and a recorder that checks every byte a phone
receives for another seat's finish-card colours."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from e2e import lobby
from e2e.conftest import AppServer
from e2e.traffic import Traffic  # noqa: F401  (re-exported for the tests)
from engines.camelup import ENGINE
from tests import api_client
from tests.engines.camelup import golden

RACING = ("blue", "green", "yellow", "red", "purple")
COLOUR_WORDS = {
    "en": RACING,
    "ko": ("파랑", "초록", "노랑", "빨강", "보라"),
}
#: Issue 6, golden position A: 1:[blue, green] 2:[red, yellow] 3:[purple] 14:[k] 15:[w]
#: (placement order, later on top).
POSITION_A = {
    "racing": [["blue", 1], ["green", 1], ["red", 2], ["yellow", 2], ["purple", 3]],
    "crazy": [["black", 14], ["white", 15]],
}
#: Its exact counts out of 5,598,720 as 1st / 2nd / last.
GOLDEN_A = golden.COUNTS_A
LABELS = {
    "ko": {**lobby.LABELS["ko"], "title": "카멜업 2판", "mode": "플레이 방식", "pyramid": "피라미드만"},
    "en": {**lobby.LABELS["en"], "title": "Camel Up (Second Edition)", "mode": "Play mode",
           "pyramid": "Pyramid only"},
}
VIBRATE_SPY = "window.__vibrations = []; navigator.vibrate = (p) => { window.__vibrations.push(p); return true; };"


def fixed_random_server(redis_url: str, log: Path) -> AppServer:
    """The app with TABLEMATE_FIXED_RANDOM=1: the test may send dice and the setup."""
    app = AppServer(redis_url, log)
    app.env["TABLEMATE_FIXED_RANDOM"] = "1"
    return app


# --- HTTP ------------------------------------------------------------------------------


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    try:
        return api_client.call(base, method, path, body, token)
    except urllib.error.HTTPError as e:
        raise AssertionError(f"{method} {path}: {e.code} {e.read().decode(errors='replace')}") from None


#: The three seats of the game-screen tests (민수 hosts).
NAMES = ["민수", "Bora", "지훈"]


def seat_table(base: str, game: str, options: dict | None = None) -> tuple[str, list[str]]:
    """A table of three (``NAMES``, 민수 hosts) made through the API; the seats'
    tokens in seat order. Any game: the game-screen tests use it for all three."""
    res = call(base, "POST", "/api/tables", {"game": game, "name": NAMES[0], "options": options or {}})
    table, tokens = res["table"], [res["player"]["token"]]
    for name in NAMES[1:]:
        tokens.append(call(base, "POST", f"/api/tables/{table}/players", {"name": name})["player"]["token"])
    return table, tokens


_rid = [0]


def send(base: str, table: str, token: str, action: dict[str, Any]) -> dict[str, Any]:
    """The action; one that draws waits for the live pages' chain links (issue
    38: their pages answer by themselves) and is returned once made."""
    _rid[0] += 1
    body = {"action": action, "request_id": f"e2e-{time.time_ns()}-{_rid[0]}"}
    return drawn(base, table, call(base, "POST", f"/api/tables/{table}/actions", body, token))


def drawn(base: str, table: str, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` of an action; if it announced a draw, once the draw is made:
    the table's version then, and no events (the tests read the board from
    snapshots)."""
    if not any(e.get("type") == "draw_pending" for e in result.get("events", ())):
        return result
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        snap = snapshot(base, table)
        if "pending" not in snap.get("fair", {}):
            return {"version": snap["version"], "events": []}
        time.sleep(0.05)
    raise AssertionError(f"the draw at {table} was never made")


def snapshot(base: str, table: str, token: str | None = None) -> dict[str, Any]:
    return call(base, "GET", f"/api/tables/{table}", token=token)


def settled(base: str, table: str, seats: list[str]) -> int:
    """Waits until every phone has anchored its fair-dice chain (a change of
    its own, once per table, as its page opens) and no draw waits for the
    phones' links (issue 38), and returns the table's version then: the tests
    count one version per action from there (a fixed-random action draws at once)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        snap = snapshot(base, table)
        fair = snap.get("fair", {})
        if set(seats) <= set(fair.get("chains", {})) and "pending" not in fair:
            return int(snap["version"])
        time.sleep(0.05)
    raise AssertionError(f"the phones' chains for {table} never all arrived")


def rolled(base: str, table: str, tents: int) -> int:
    """Waits until a roll from a tap is drawn (it waits for every live page's
    chain link, issue 38: a version per link) and ``tents`` dice are out;
    returns the table's version then."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        snap = snapshot(base, table)
        if "pending" not in snap.get("fair", {}) and len(snap["view"]["tents"]) == tents:
            return int(snap["version"])
        time.sleep(0.05)
    raise AssertionError(f"the roll at {table} was never drawn")


def api_create_table(base: str, name: str, options: dict[str, Any]) -> tuple[str, str]:
    """A table made through the API (a fixed board needs it): its id and the host's token."""
    res = call(base, "POST", "/api/tables", {"game": "camelup", "name": name, "options": options})
    return res["table"], res["player"]["token"]


# --- the screens -----------------------------------------------------------------------


def open_as(page: Page, table: str, token: str) -> None:
    """The phone that created the table through the API: its token, then the table."""
    page.goto("/")
    page.evaluate("([t, k]) => localStorage.setItem(`tablemate.token.${t}`, k)", [table, token])
    page.goto(f"/t/{table}")


def join_for_token(page: Page, base: str, table: str, name: str, lang: str) -> str:
    """``lobby.join``, then the seat token the phone keeps."""
    lobby.join(page, f"{base}/t/{table}", name, lang)
    return page.evaluate("t => localStorage.getItem(`tablemate.token.${t}`)", table)


def wait_version(page: Page, version: int) -> None:
    """Until the module shows this snapshot (or a newer one)."""
    page.wait_for_function(
        "v => { const el = document.querySelector('.game-camelup'); return el && Number(el.dataset.version) >= v; }",
        arg=version,
        timeout=10_000,
    )


def board_on(page: Page) -> list[list[str]]:
    """The 16 stacks a phone shows, bottom -> top."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.cm-track .cm-space')]"
        ".sort((a, b) => a.dataset.space - b.dataset.space)"
        ".map(s => s.dataset.camels ? s.dataset.camels.split(',') : [])"
    )


def do_bet(page: Page, camel: str) -> None:
    page.locator(f".cm-ticket[data-camel='{camel}']").click()
    page.locator(".cm-confirm-bet").click()


def do_tile(page: Page, space: int, side: str, legal_spaces: set[int]) -> None:
    page.locator(".cm-open-tile").click()
    # The board highlights exactly the legal spaces.
    expect(page.locator(".cm-track .cm-space.target")).to_have_count(len(legal_spaces))
    shown = set(page.locator(".cm-track .cm-space.target").evaluate_all("els => els.map(e => Number(e.dataset.space))"))
    assert shown == legal_spaces, (shown, legal_spaces)
    page.locator(f".cm-space-pick[data-space='{space}']").click()
    page.locator(f".cm-side.{side}").click()
    page.locator(".cm-confirm-tile").click()


def do_finish(page: Page, pile: str, camel: str, hand: list[str]) -> None:
    page.locator(".cm-open-finish").click()
    page.locator(f".cm-pile.{pile}").click()
    # Only my own hand's colours are offered.
    offered = page.locator(".cm-card-pick").evaluate_all("els => els.map(e => e.dataset.camel)")
    assert offered == hand, (offered, hand)
    page.locator(f".cm-card-pick[data-camel='{camel}']").click()
    page.locator(".cm-confirm-finish").click()


def do_partner(page: Page, other: str) -> None:
    page.locator(".cm-open-partner").click()
    page.locator(f".cm-partner[data-player='{other}']").click()
    page.locator(".cm-confirm-partner").click()


# --- the expected game -----------------------------------------------------------------


class Replica:
    """The same table in the engine: the test applies every action a phone sends."""

    def __init__(self, players: list[str], options: dict[str, Any], host: str) -> None:
        self.host = host
        self.state = ENGINE.setup(players, ENGINE.normalize_options(options))

    def apply(self, player: str, action: dict[str, Any]) -> list[dict[str, Any]]:
        full = {**action, "player": player, "host": player == self.host}
        self.state, events = ENGINE.apply(self.state, full)
        return events

    def view(self, player: str | None = None) -> dict[str, Any]:
        return json.loads(json.dumps(ENGINE.view(self.state, player)))

    def legal(self, player: str) -> list[dict[str, Any]]:
        return ENGINE.legal_actions(self.state, player)

    def analysis(self, player: str | None) -> dict[str, Any]:
        return json.loads(json.dumps(ENGINE.analysis(self.state, player)))

    def money(self) -> dict[str, int]:
        return {p: f["money"] for p, f in ENGINE.public_players(self.state).items()}


# --- secrecy -------------------------------------------------------------------------


_SECRET_KEYS = {"finish_hand", "finish_placed", "hand"}


def _walk(obj: Any, path: tuple[Any, ...], over: bool, problems: list[str]) -> None:
    if isinstance(obj, dict):
        mine = path[:2] == ("view", "me") or path[:1] == ("legal",)
        revealed = over and ("result" in path or obj.get("type") == "pile_revealed" or "cards" in path)
        if {"pile", "camel"} <= set(obj) and not (mine or revealed):
            problems.append(f"{'/'.join(map(str, path))}: a finish card's colour {obj}")
        for k, v in obj.items():
            if k in _SECRET_KEYS and not mine:
                problems.append(f"{'/'.join(map(str, (*path, k)))} outside view.me")
            _walk(v, (*path, k), over, problems)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _walk(v, (*path, i), over, problems)


def _history_lines(msg: Any) -> Iterator[tuple[int, str]]:
    # A line travels as keys and values: a colour shows as its key
    # (camelup.colour.red) or a label, either one a word of the JSON.
    for r in msg.get("rounds") or []:
        for e in r.get("entries") or []:
            yield e["version"], json.dumps(e.get("parts"), ensure_ascii=False)


def leaks(traffic: Traffic, finish_versions: dict[int, str]) -> list[str]:
    """What one phone received that it must not have: another seat's finish-card
    colours (a hand, a placed card) before the race ended, anywhere; a view.me of
    another seat; a history line of another seat's finish card naming a colour.
    ``finish_versions`` maps the version of each finish_bet to the seat that sent it."""
    me = traffic.seat
    found = []
    for where, msg in traffic.messages:
        if not isinstance(msg, dict):
            continue
        problems: list[str] = []
        over = msg.get("status") == "over" or any(
            isinstance(e, dict) and e.get("type") in ("race_ended", "pile_revealed")
            for e in msg.get("events") or []
        )
        _walk(msg, (), over, problems)
        view = msg.get("view")
        if isinstance(view, dict) and view.get("me") and view["me"].get("id") != me:
            problems.append(f"view.me is {view['me'].get('id')}, not {me}")
        if "rounds" in msg:
            for version, text in _history_lines(msg):
                owner = finish_versions.get(version)
                if owner and owner != me:
                    words = [w for lang in COLOUR_WORDS.values() for w in lang if re.search(rf"\b{w}\b", text) or (not w.isascii() and w in text)]
                    if words:
                        problems.append(f"history v{version} ({owner}'s finish card) names {words}: {text}")
        found += [f"{where}: {p}" for p in problems]
    return found
