"""Safari's engine in the test matrix (issue 13): WebKitGTK's MiniBrowser,
driven by WebKitWebDriver through Selenium under a private Xvfb display.

The platform flow (create, join by link, reload to the same seat), one turn of
each game, and the iPhone fallbacks the app relies on. ``pytest -k webkit``
selects these tests; in CI (``CI=true``) a missing WebKit fails them.
"""

from __future__ import annotations

import glob
import json
import os
import select
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import skip_or_fail
from tests.words import texts

DRIVER = os.environ.get("TABLEMATE_E2E_WEBKITDRIVER", "/usr/bin/WebKitWebDriver")
WAIT = 15.0


def minibrowser() -> str | None:
    found = sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))
    return os.environ.get("TABLEMATE_E2E_MINIBROWSER") or (found[-1] if found else None)


@pytest.fixture(scope="session")
def display() -> Iterator[str]:
    """A private X display (Xvfb) for the browser, so `make test` needs no screen.

    Xvfb picks a free display number itself (``-displayfd``) and writes it once it
    listens: two test workers starting at once would both find the same free number
    if the test looked for one, and the loser's browser would share, then lose, the
    winner's display."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        skip_or_fail("Xvfb is not installed (Debian package xvfb)")
    read, write = os.pipe()
    proc = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1024x1400x24",
                             "-nolisten", "tcp"], pass_fds=(write,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    number = ""
    with os.fdopen(read) as told:
        if select.select([told], [], [], 10)[0]:
            number = told.readline().strip()  # EOF (empty) if Xvfb exits without a display
    if not number.isdigit():
        proc.kill()
        skip_or_fail("Xvfb did not start")
    yield f":{number}"
    proc.terminate()
    proc.wait(5)


class WebKitPhone:
    """One MiniBrowser: a WebKit phone with its own storage."""

    def __init__(self, driver: Any, base: str) -> None:
        self.d = driver
        self.base = base

    def go(self, path: str) -> None:
        self.d.get(self.base + path if path.startswith("/") else path)

    def js(self, script: str, *args: Any) -> Any:
        return self.d.execute_script(script, *args)

    def until(self, check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            try:
                last = check()
                if last:
                    return last
            except Exception as e:  # not there yet (stale element, navigation)
                last = e
            time.sleep(0.1)
        raise AssertionError(f"WebKit: timed out waiting for {what} (last: {last!r}); page text: "
                             f"{self.text()[:600]!r}")

    def text(self) -> str:
        try:
            return str(self.js("return document.body ? document.body.innerText : ''"))
        except Exception:
            return ""

    def tap(self, el: Any) -> None:
        """Clicks like a finger: the element centred first, clear of the sticky bars."""
        self.js("arguments[0].scrollIntoView({block: 'center'})", el)
        el.click()

    def css(self, selector: str) -> list[Any]:
        return self.d.find_elements("css selector", selector)

    def click_button(self, name: str) -> None:
        """Clicks the visible, enabled button whose text (or aria-label) is ``name``."""
        def find() -> Any:
            for b in self.css("button"):
                label = (b.get_attribute("aria-label") or b.text or "").strip()
                if label == name and b.is_displayed() and b.is_enabled():
                    return b
            return None
        self.tap(self.until(find, f"button {name!r}"))

    def fill_label(self, label: str, value: str) -> None:
        """Types into the input that a <label> with this text names."""
        def find() -> Any:
            for lab in self.css("label"):
                if lab.text.strip() == label and lab.get_attribute("for"):
                    el = self.d.find_element("id", lab.get_attribute("for"))
                    if el.is_displayed():
                        return el
            return None
        el = self.until(find, f"field {label!r}")
        el.clear()
        el.send_keys(value)

    def heading(self, text: str, timeout: float = WAIT) -> None:
        self.until(lambda: any(h.text.strip() == text for h in self.css("h1, h2")), f"heading {text!r}", timeout)

    def connection(self) -> str:
        return str(self.js("return document.documentElement.dataset.connection || ''"))


@pytest.fixture
def webkit(display: str, server: str) -> Iterator[Callable[[], WebKitPhone]]:
    binary = minibrowser()
    if not Path(DRIVER).exists() or binary is None:
        skip_or_fail("WebKitGTK is not installed (Debian package webkit2gtk-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.service import Service
    except ImportError:
        skip_or_fail("selenium is not installed (the test extra)")
    drivers: list[Any] = []
    old = os.environ.get("DISPLAY")
    os.environ["DISPLAY"] = display

    def make() -> WebKitPhone:
        opts = webdriver.WebKitGTKOptions()
        opts.binary_location = binary
        opts.add_argument("--automation")
        d = webdriver.WebKitGTK(options=opts, service=Service(executable_path=DRIVER))
        drivers.append(d)
        d.set_window_size(430, 932)
        return WebKitPhone(d, server)

    try:
        yield make
    finally:
        for d in drivers:
            try:
                d.quit()
            except Exception:  # the browser already went away
                pass
        if old is None:
            os.environ.pop("DISPLAY", None)
        else:
            os.environ["DISPLAY"] = old


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, method=method, headers=headers,
                                 data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def test_webkit_platform_flow_create_join_by_link_reload(webkit, games, server):
    """Create on one WebKit phone, join by the lobby's link on another, reload: same seat."""
    game = next((g for g in games if g["name"] == "toy"), None) or games[0]
    host = webkit()
    host.go("/")
    host.click_button("English")
    host.until(lambda: host.css("select#create-game option") or host.css("select option"), "the game list")
    sel = host.until(lambda: next((s for s in host.css("select") if s.is_displayed()), None), "the game picker")
    from selenium.webdriver.support.ui import Select
    title = game.get("title") or game["name"]
    label = title if isinstance(title, str) else title.get("en") or title["ko"]
    Select(sel).select_by_visible_text(label)
    host.fill_label("Your name", "Ada")
    host.click_button("Create table")
    host.heading("Lobby")
    # The lobby shows from the create response; its socket opens just after
    # (and until then the phone says "connecting", as it should).
    host.until(lambda: host.connection() == "open", "an open connection")
    link = host.until(lambda: host.d.find_element("id", "lobby-link").text.strip(), "the table's link")
    table = link.rstrip("/").rsplit("/", 1)[-1]
    assert link == f"{server}/t/{table}"

    guest = webkit()
    guest.go(link)
    guest.heading("Join the table")
    guest.fill_label("Your name", "Grace")
    guest.click_button("Join table")
    guest.heading("Lobby")
    for page in (host, guest):
        page.until(lambda p=page: [e.text for e in p.css(".seats .seat-name")] == ["Ada", "Grace"], "both seats")
    # Presence: the host sees Grace's phone connected.
    host.until(lambda: host.css(".seats li[data-player='p2'] .dot.on"), "Grace shown online")

    guest.d.refresh()
    guest.heading("Lobby")
    guest.until(lambda: [e.text for e in guest.css(".seats li.mine .seat-name")] == ["Grace"], "the same seat after reload")
    assert not any(h.text == "Join the table" for h in guest.css("h1, h2"))
    token = guest.js(f"return localStorage.getItem('tablemate.token.{table}')")
    assert token and call(server, "GET", f"/api/tables/{table}", token=token)["me"] == "p2"


# -- one turn of each game ------------------------------------------------------


def seated_table(server: str, game: str, names: list[str], options: dict | None = None) -> tuple[str, list[str]]:
    body = call(server, "POST", "/api/tables", {"game": game, "name": names[0], "options": options or {}})
    table, tokens = body["table"], [body["player"]["token"]]
    for n in names[1:]:
        tokens.append(call(server, "POST", f"/api/tables/{table}/players", {"name": n})["player"]["token"])
    call(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "start"}, "request_id": "start"}, tokens[0])
    return table, tokens


def open_seat(phone: WebKitPhone, table: str, token: str) -> None:
    # As a phone that joined: the seat token kept in localStorage.
    phone.go("/")
    phone.js(f"localStorage.setItem('tablemate.token.{table}', {json.dumps(token)})")
    phone.go(f"/t/{table}")
    phone.until(lambda: phone.css(".game-area > *:not(.loading)"), "the game screen")
    phone.until(lambda: phone.connection() == "open", "an open connection")


def game_moves(snap: dict) -> list[dict]:
    return [a for a in snap["legal"] if a["type"] not in ("undo", "unlock", "seats", "start")]


def version(server: str, table: str) -> int:
    return int(call(server, "GET", f"/api/tables/{table}")["version"])


def test_webkit_camelup_one_turn(webkit, server, games):
    if not any(g["name"] == "camelup" for g in games):
        skip_or_fail("Camel Up is not registered")
    table, tokens = seated_table(server, "camelup", ["Ada", "Grace", "Alan"])
    who = next(t for t in tokens if any(a["type"] == "pyramid" for a in game_moves(
        call(server, "GET", f"/api/tables/{table}", token=t))))
    phone = webkit()
    open_seat(phone, table, who)
    before = version(server, table)
    phone.tap(phone.until(lambda: next((b for b in phone.css("button.cm-roll") if b.is_displayed() and b.is_enabled()), None), "the roll button"))
    phone.until(lambda: version(server, table) > before, "the roll to reach the server")

    def rolled() -> bool:
        return any("rolled" in t.lower() or "die" in t.lower()
                   for t in texts(call(server, "GET", f"/api/tables/{table}/history"), "en"))

    # The tap announces the draw; the roll is made once this phone's chain link is in
    # (docs/fairness.md, "Chains and pending draws"), a moment later.
    phone.until(rolled, "the roll made with this phone's link")


def test_webkit_kingup_one_turn(webkit, server, games):
    if not any(g["name"] == "kingup" for g in games):
        skip_or_fail("King Up! is not registered")
    table, tokens = seated_table(server, "kingup", ["Ada", "Grace", "Alan"])
    # The secret goal cards over the API; the placement turn on the WebKit phone.
    for i, t in enumerate(tokens):
        moves = game_moves(call(server, "GET", f"/api/tables/{table}", token=t))
        if any(a["type"] == "draw_goal" for a in moves):
            action: dict = {"type": "draw_goal"}
        else:
            action = {"type": "goal", "characters": list("ABCDEFGHIJKLM"[i:i + 6])}
        call(server, "POST", f"/api/tables/{table}/actions", {"action": action, "request_id": f"g{i}"}, t)
    snaps = [call(server, "GET", f"/api/tables/{table}", token=t) for t in tokens]
    i = next(i for i, s in enumerate(snaps) if any(a["type"] == "place" for a in game_moves(s)))
    pick = next(a for a in game_moves(snaps[i]) if a["type"] == "place")
    phone = webkit()
    open_seat(phone, table, tokens[i])
    before = version(server, table)
    phone.tap(phone.until(lambda: phone.css(f".ku-tray.unplaced button[data-char='{pick['char']}']"), "the tray")[0])
    phone.tap(phone.until(lambda: phone.css(f".ku-row[data-level='{pick['level']}'] button.ku-row-head"), "the row")[0])
    phone.until(lambda: version(server, table) > before, "the placement to reach the server")
    phone.until(lambda: phone.css(f".ku-row[data-level='{pick['level']}'] [data-char='{pick['char']}']"),
                "the character on its row")



def test_webkit_kingup_votes_are_sealed_and_opened_on_the_phones(webkit, server, games):
    """Safari seals a King Up vote on the phone (SHA-256 over label, salt and
    value; the salt kept in localStorage) and, once every vote is in, opens it
    by itself: two WebKit phones and a third seat through the API, the reveal
    on both phones, every seal in the proof checked."""
    if not any(g["name"] == "kingup" for g in games):
        skip_or_fail("King Up! is not registered")
    from e2e.test_stall import play_to_vote
    from tablemate_verify import check
    from tests.sealed_votes import VoteSeals

    table, tokens = seated_table(server, "kingup", ["Ada", "Grace", "Alan"])
    phones = [webkit(), webkit()]
    for ph, token in zip(phones, tokens, strict=False):
        open_seat(ph, table, token)
    play_to_vote(server, table, dict(zip(["p1", "p2", "p3"], tokens, strict=True)))
    seals = VoteSeals()
    snap = call(server, "GET", f"/api/tables/{table}", token=tokens[2])
    call(server, "POST", f"/api/tables/{table}/actions", {"action": seals.vote(snap, "p3", "yes"), "request_id": "v3"},
         tokens[2])
    for ph in phones:
        ph.tap(ph.until(lambda ph=ph: ph.css("button.ku-vote[data-vote='yes']"), "the Yes card")[0])
        ph.tap(ph.until(lambda ph=ph: ph.css("button.ku-vote-final[data-vote='yes']"), "the vote sent")[0])
    # Every vote in: the API seat opens its own; the phones open theirs by themselves.
    deadline = time.monotonic() + WAIT
    while not (openings := seals.openings(snap := call(server, "GET", f"/api/tables/{table}", token=tokens[2]))):
        assert time.monotonic() < deadline, snap["view"].get("election")
        time.sleep(0.1)
    for _seat, action in openings:
        call(server, "POST", f"/api/tables/{table}/actions", {"action": action, "request_id": "o3"}, tokens[2])
    for ph in phones:
        for seat in ("p1", "p2", "p3"):
            ph.until(lambda ph=ph, seat=seat: ph.css(f".ku-reveal-vote[data-player='{seat}'][data-vote='yes']"),
                     f"{seat}'s vote revealed")
    report = check(call(server, "GET", f"/api/tables/{table}/proof"))
    assert report.ok and sum(line.code == "seal_ok" for line in report.lines) == 3, report.first_mismatch

def test_webkit_countup_one_turn(webkit, server, games):
    if not any(g["name"] == "countup" for g in games):
        skip_or_fail("Count Up is not registered")
    table, tokens = seated_table(server, "countup", ["Ada", "Grace", "Alan"])
    view = call(server, "GET", f"/api/tables/{table}", token=tokens[1])["view"]
    lo, hi = view["number_range"]
    ok = [n for n in range(lo, hi + 1) if n % 10 not in view["restricted_digits"]]
    phone = webkit()
    open_seat(phone, table, tokens[1])
    phone.click_button("English")
    # This seat's turn: its five numbers, typed and locked.
    for n in range(1, 6):
        phone.fill_label(f"#{n}", str(ok[n * 3]))
    before = version(server, table)
    phone.click_button("Lock my numbers")
    phone.until(lambda: version(server, table) > before, "the locked sheet to reach the server")
    phone.until(lambda: not any(b.text == "Lock my numbers" and b.is_displayed() for b in phone.css("button")),
                "the lock button gone")


def test_webkit_iphone_fallbacks_vibrate_and_wake_lock(webkit, server, games):
    """Where the engine lacks an API an iPhone lacks too, the fallback shows."""
    if not any(g["name"] == "toy" for g in games):
        skip_or_fail("the toy engine (tests/toy_engine.py) is not served")
    table, tokens = seated_table(server, "toy", ["Ada", "Grace"])
    phone = webkit()
    open_seat(phone, table, tokens[0])
    has_vibrate = phone.js("return typeof navigator.vibrate === 'function'")
    has_wake = phone.js("return 'wakeLock' in navigator")
    # Wake Lock: on where the API exists, marked unsupported where it does not.
    phone.until(lambda: phone.js("return document.documentElement.dataset.wake || ''")
                in (("on", "off") if has_wake else ("unsupported",)), "the wake-lock state")
    # A buzz without navigator.vibrate is a flash of the screen's edge.
    phone.js("import('/ui.js').then((m) => m.vibrate(50))")
    if not has_vibrate:
        phone.until(lambda: phone.js("return document.documentElement.classList.contains('buzz')"), "the visual buzz")
        phone.until(lambda: not phone.js("return document.documentElement.classList.contains('buzz')"),
                    "the visual buzz to end")
    # The Korean voice for Count Up's caller may be missing: the caller then ticks.
    said = phone.d.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/games/countup/speech.js').then((m) => {"
        "  const v = new m.Voice(() => {});"
        "  done([Boolean(v.voiceFor('ko')), v.say('하나', 'ko')]);"
        "}, (e) => done(['error', String(e)]));")
    has_ko, how = said
    assert has_ko != "error", how
    assert how == ("voice" if has_ko else "tick"), said


def test_webkit_a_move_left_by_a_page_that_went_away_is_sent_by_the_next(webkit, games, server):
    """Safari's engine keeps a tab's sessionStorage through a reload (iOS
    reloads a backgrounded PWA): a move the page still owed the server when
    it went is sent by the next page, once."""
    game = next((g for g in games if g["name"] == "toy"), None) or games[0]
    body = call(server, "POST", "/api/tables", {"game": game["name"], "name": "Ada"})
    table, token = body["table"], body["player"]["token"]
    phone = webkit()
    phone.go("/")
    phone.js(f"localStorage.setItem('tablemate.token.{table}', {json.dumps(token)})")
    phone.go(f"/t/{table}")
    phone.until(lambda: phone.connection() == "open", "an open connection")
    # What web/outbox.js keeps of a tap still unanswered when the page goes.
    kept = {"token": token, "kept": [{"frame": {"type": "action", "action": {"type": "reminder", "seconds": 30},
                                                 "request_id": "webkit-kept-1"}, "at": 0}]}
    phone.js(f"const k = {json.dumps(kept)}; k.kept[0].at = Date.now();"
             f"sessionStorage.setItem('tablemate.outbox.{table}', JSON.stringify(k))")
    phone.d.refresh()
    phone.until(lambda: call(server, "GET", f"/api/tables/{table}").get("reminder") == 30, "the kept move applied")
    phone.until(lambda: phone.js(f"return sessionStorage.getItem('tablemate.outbox.{table}')") is None,
                "answered: nothing left to send")
    phone.d.refresh()
    phone.until(lambda: phone.connection() == "open", "an open connection")
    history = call(server, "GET", f"/api/tables/{table}/history", token=token)
    lines = [json.dumps(e) for r in history["rounds"] for e in r["entries"]]
    assert len([line for line in lines if "reminder" in line]) == 1, lines
