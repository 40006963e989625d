"""Count Up e2e helpers: the labels of both languages, table set-up through
the screens, sheets that make a game interesting, the secrecy check on what a
phone receives, and an engine replay to compare the phones with."""

from __future__ import annotations

import json
import random
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page, expect

from engines.countup import ENGINE

L: dict[str, dict[str, str]] = {
    "ko": {
        "game": "게임", "title": "카운트 업", "options": "규칙 옵션", "name": "내 이름",
        "create": "테이블 만들기", "lobby": "대기실", "join_title": "테이블에 참가", "join": "참가하기",
        "start_game": "게임 시작", "pace": "부르는 간격 (밀리초)", "sheet_mode": "게임시트",
        "paper": "종이 시트 (앱은 카운트만)", "entry": "내 숫자 5개", "slot": "{n}번", "lock": "숫자 잠그기",
        "start": "카운트 시작", "pause": "일시정지", "resume": "계속", "step": "하나만 부르기",
        "finish": "지금 끝까지", "finish_confirm": "한 번 더: 남은 숫자를 모두 불러요",
        "faster": "빠르게", "result": "{round}라운드 결과", "next": "다음 라운드 시작",
        "voice_on": "음성 켜짐", "voice_off": "음성 꺼짐", "bonus_title": "보너스 점수 입력",
        "bonus_mine": "내 보너스 점수", "bonus_for": "{name}님의 보너스 점수", "bonus_send": "입력",
        "record": "{n} 선언 기록", "record_collision": "{n} 동시 선언 기록 ({count}명)",
        "declare_title": "{n} — 누가 선언했나요?",
    },
    "en": {
        "game": "Game", "title": "Count Up", "options": "Rule options", "name": "Your name",
        "create": "Create table", "lobby": "Lobby", "join_title": "Join the table", "join": "Join table",
        "start_game": "Start game", "pace": "Calling pace (milliseconds)", "sheet_mode": "Game sheets",
        "paper": "Paper sheets (the app only calls)", "entry": "Your 5 numbers", "slot": "#{n}",
        "lock": "Lock my numbers", "start": "Start the count", "pause": "Pause", "resume": "Resume",
        "step": "Call one", "finish": "Finish now", "finish_confirm": "Tap again: call every remaining number",
        "faster": "Faster", "result": "Round {round} result", "next": "Start the next round",
        "voice_on": "Voice on", "voice_off": "Voice off", "bonus_title": "Enter bonus points",
        "bonus_mine": "My bonus points", "bonus_for": "Bonus points of {name}", "bonus_send": "Enter",
        "record": "Record the declaration of {n}",
        "record_collision": "Record the collision on {n} ({count} players)",
        "declare_title": "{n}: who declared?",
    },
}

# What view.result's reason reads as on the winner card (see strings.js).
REASONS = {
    "ko": {
        ("two_stars", "two_stars"): "☆20을 두 번 달성해 즉시 승리.",
        ("last_round", "total"): "합산 점수가 가장 높아요.",
        ("last_round", "tie_break"): "합산 동률",
        ("last_round", "shared"): "완전 동률",
        ("two_stars", "total"): "두 번째 ☆20: 그중 합산 점수가 가장 높아요.",
    },
    "en": {
        ("two_stars", "two_stars"): "Second ☆20: an instant win.",
        ("last_round", "total"): "The highest total.",
        ("last_round", "tie_break"): "Tied on total",
        ("last_round", "shared"): "shared victory",
        ("two_stars", "total"): "the highest total among them wins",
    },
}


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def public_snapshot(server: str, table: str) -> dict:
    """The spectator's snapshot: what anyone may see."""
    return get_json(f"{server}/api/tables/{table}")


def options(lang: str, pace: int | None = None, paper: bool = False) -> dict[str, str]:
    """The home screen's option fields (by label) for ``lobby.create_table``."""
    t = L[lang]
    out = {t["pace"]: str(pace)} if pace is not None else {}
    if paper:
        out[t["sheet_mode"]] = t["paper"]
    return out


def enter_sheet(page: Page, lang: str, numbers: list[int]) -> None:
    t = L[lang]
    expect(page.get_by_role("heading", name=t["entry"])).to_be_visible()
    for i, n in enumerate(numbers):
        page.get_by_label(t["slot"].format(n=i + 1), exact=True).fill(str(n))
    page.get_by_role("button", name=t["lock"]).click()
    expect(page.get_by_role("button", name=t["lock"])).to_be_hidden()


def allowed(view: dict) -> list[int]:
    lo, hi = view["number_range"]
    return [n for n in range(lo, hi + 1) if n % 10 not in view["restricted_digits"]]


def star_sheets(view: dict, rng: random.Random) -> list[list[int]]:
    """Seat 1 declares a low number alone and nobody declares for 20 more:
    their marker reaches 20 (☆20). Seats 2 and 3 collide once up high."""
    ok = allowed(view)
    low = ok[0]
    high = [n for n in ok if n > low + 21]
    first = [low, *high[-4:]]
    rest = high[:-4]
    shared = rest[0]
    two = sorted([shared, *rng.sample(rest[1:], 4)])
    three = sorted([shared, *rng.sample([n for n in rest[1:] if n not in two], 4)])
    return [first, two, three]


def random_sheets(view: dict, rng: random.Random, players: int = 3) -> list[list[int]]:
    """Random legal sheets sharing some numbers, so collisions happen."""
    ok = allowed(view)
    common = rng.sample(ok, 4)
    out = []
    for _ in range(players):
        own = rng.sample(common, 2)
        own += rng.sample([n for n in ok if n not in own], 3)
        out.append(sorted(own))
    return out


@dataclass
class Wire:
    """Everything a phone received from the server (socket frames and HTTP
    bodies of the table), for the secrecy check."""

    frames: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: self.frames.append(
            payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))))

        def on_response(resp: Any) -> None:
            if "/api/tables/" not in resp.url or resp.request.method not in ("GET", "POST"):
                return
            try:
                self.frames.append(resp.text())
            except Exception:  # noqa: BLE001 (a body gone with a navigation)
                pass

        page.on("response", on_response)


def _ints(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [i for v in value for i in _ints(v)]
    if isinstance(value, dict):
        return [i for v in value.values() for i in _ints(v)]
    return []


def check_secrecy(wire: Wire, me: str) -> int:
    """No snapshot this phone received during writing or counting holds a
    number of another seat that was not called yet (a called number of a
    sheet is declared at once on phone sheets, so it is public). Returns the
    number of snapshots checked."""
    checked = 0
    for raw in wire.frames:
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "view" not in msg or msg.get("game") != "countup":
            continue
        view = msg["view"]
        if not view or view.get("phase") not in ("entry", "count") or view["count"]["end"]:
            continue
        assert msg["me"] == me, msg["me"]
        value = view["count"]["value"]
        for p, sheet in view["sheets"].items():
            if p == me:
                continue
            assert sheet["numbers"] is None, (p, sheet)
            assert all(n <= value for n in _ints(sheet)), (value, p, sheet)
        assert all(n <= value for n in _ints(view["count"])), view["count"]
        for p in msg["players"]:
            assert p.get("marker", 0) <= value
        checked += 1
    return checked


def replay(players: list[str], options: dict, rounds: list[dict], sheets: list[dict[str, list[int]]]) -> Any:
    """The phone-sheet game again on the engine alone: the same cards, the same
    sheets, each round's count called to its end."""
    opts = {**options, "firstRestrictionCard": rounds[0]["restriction"]}
    state = ENGINE.setup(players, ENGINE.normalize_options(opts))
    host = players[0]
    for r, numbers in enumerate(sheets):
        if r:
            state, _ = ENGINE.apply(state, {"type": "next_round", "player": host, "host": True,
                                            "restriction": rounds[r]["restriction"]})
        for p in players:
            state, _ = ENGINE.apply(state, {"type": "numbers", "player": p, "host": p == host,
                                            "numbers": numbers[p]})
        state, _ = ENGINE.apply(state, {"type": "call", "until": "end", "player": host, "host": True})
    return state
