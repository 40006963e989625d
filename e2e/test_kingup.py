"""King Up! on four real phones: three full rounds through the screens, secret
goal cards and secret votes (a rejected candidate and crowned Kings), totals equal
to the engine's, nothing secret in any other phone's page or traffic; and score-only
mode scoring a round from one phone."""

from __future__ import annotations

import json
import random
import re
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import redis
from playwright.sync_api import Page, expect

from conftest import skip_or_fail
from e2e.kingup_helpers import TITLES, Replica, Traffic, leaks, token_of
from e2e.lobby import create_table, join
from e2e.test_results import api

SEATS = ["p1", "p2", "p3", "p4"]
NAMES = {"p1": "민수", "p2": "Bora", "p3": "지훈", "p4": "Dana"}
LANGS = {"p1": "ko", "p2": "en", "p3": "ko", "p4": "en"}
# Per round, one entry per election: the seats that vote No (everybody else Yes).
ELECTIONS = {
    1: [{"p2"}, set()],  # rejected, then crowned
    2: [set()],
    # p3 spends all 3 No cards; in the 4th election their No button is disabled.
    3: [{"p3", "p1"}, {"p3"}, {"p3"}, set()],
}
VIBRATE_SPY = "window.__vibrations = []; navigator.vibrate = (p) => { window.__vibrations.push(p); return true; };"


def goal_cards() -> dict[int, dict[str, list[str]]]:
    """Twelve different secret cards (a card recognisable wherever it shows up)."""
    rng = random.Random(4)
    seen: set[frozenset[str]] = set()
    out: dict[int, dict[str, list[str]]] = {}
    for r in (1, 2, 3):
        out[r] = {}
        for p in SEATS:
            while True:
                card = sorted(rng.sample("ABCDEFGHIJKLM", 6))
                if frozenset(card) not in seen:
                    break
            seen.add(frozenset(card))
            out[r][p] = card
    return out


def api_snapshot(server: str, table: str, token: str) -> dict:
    req = urllib.request.Request(f"{server}/api/tables/{table}", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


def vote_count_text(lang: str, count: int, total: int) -> str:
    return f"{total}명 중 {count}명 투표" if lang == "ko" else f"{count} of {total} voted"


def record_card(page: Page, card: list[str]) -> None:
    picker = page.locator(".ku-card .ku-picker")
    for ch in card:
        picker.locator(f"button[data-char='{ch}']").click()
    expect(picker.locator("[aria-pressed='true']")).to_have_count(6)
    page.locator(".ku-card button.ku-save-card").click()
    expect(page.locator(".ku-card .ku-goal li")).to_have_count(6)


def test_four_phones_play_three_rounds(phone, server, games, redis_url):
    if not any(g["name"] == "kingup" for g in games):
        skip_or_fail("King Up! is not registered")
    goals = goal_cards()
    pages: dict[str, Page] = {}
    traffic: dict[str, Traffic] = {}
    for p in SEATS:
        page = phone("ko-KR" if LANGS[p] == "ko" else "en-US")
        page.add_init_script(VIBRATE_SPY)
        traffic[p] = Traffic(page, [p])
        pages[p] = page

    table = create_table(pages["p1"], TITLES["ko"], NAMES["p1"], "ko")
    for p in SEATS[1:]:
        join(pages[p], f"{server}/t/{table}", NAMES[p], LANGS[p])
    pages["p1"].get_by_role("button", name="게임 시작").click()
    for p in SEATS:
        expect(pages[p].locator(".game-kingup .ku-status")).to_be_visible()
    host_token = token_of(pages["p1"], table)
    snap = api_snapshot(server, table, host_token)
    assert [pl["id"] for pl in snap["players"]] == SEATS
    assert [pl["name"] for pl in snap["players"]] == [NAMES[p] for p in SEATS]
    game = Replica(SEATS, {}, host="p1")

    def act(p: str, action: dict) -> None:
        game.apply(p, action)

    for rnd in (1, 2, 3):
        # Secret cards: each phone taps its own printed card.
        for p in SEATS:
            record_card(pages[p], goals[rnd][p])
            act(p, {"type": "goal", "characters": goals[rnd][p]})

        # Placement: the highest open level first (the UI is driven, the choice is ours).
        while game.state.phase == "placement":
            p = game.view()["turn"]
            pick = max((a for a in game.legal(p) if a["type"] == "place"), key=lambda a: (a["level"], -ord(a["char"])))
            page = pages[p]
            page.locator(f".ku-tray.unplaced button[data-char='{pick['char']}']").click()
            page.locator(f".ku-row[data-level='{pick['level']}'] button.ku-row-head").click()
            act(p, {"type": "place", "char": pick["char"], "level": pick["level"]})
            expect(page.locator(f".ku-row[data-level='{pick['level']}'] [data-char='{pick['char']}']")).to_be_visible()

        for no_voters in ELECTIONS[rnd]:
            # Climb: the highest character moves until one reaches the throne.
            while game.state.phase == "movement":
                p = game.view()["turn"]
                moves = [a["char"] for a in game.legal(p) if a["type"] == "move"]
                positions = game.view()["positions"]
                ch = max(moves, key=lambda c: (positions[c], -ord(c)))
                page = pages[p]
                page.locator(f".ku-castle button.ku-token[data-char='{ch}']").click()
                page.locator("button.ku-move").click()
                act(p, {"type": "move", "char": ch})
                if game.state.phase == "movement":
                    expect(page.locator(f".ku-row[data-level='{positions[ch] + 1}'] [data-char='{ch}']")).to_be_visible()
            assert game.state.phase == "vote"
            candidate = game.view()["election"]["candidate"]
            for q in SEATS:
                # On the page too: my own card only, and no result of this round yet.
                shown = pages[q].locator(".ku-card .ku-goal li").evaluate_all("els => els.map(e => e.dataset.char)")
                assert shown == goals[rnd][q]
                expect(pages[q].locator(f".ku-result[data-round='{rnd}']")).to_have_count(0)

            for i, p in enumerate(SEATS):
                page = pages[p]
                vote = "no" if p in no_voters else "yes"
                expect(page.locator(".ku-vote-card h2")).to_contain_text(candidate)
                if game.view(p)["me"]["no_left"] == 0:
                    expect(page.locator("button.ku-vote[data-vote='no']")).to_be_disabled()
                    expect(page.locator(".ku-no-left")).to_be_visible()
                page.locator(f"button.ku-vote[data-vote='{vote}']").click()
                page.locator(f"button.ku-vote-final[data-vote='{vote}']").click()
                act(p, {"type": "vote", "vote": vote})
                if i < len(SEATS) - 1:
                    expect(page.locator(f".ku-my-vote[data-vote='{vote}']")).to_be_visible()
                    for q in SEATS:
                        # Every phone: how many voted, never what; no reveal yet.
                        expect(pages[q].locator(".ku-vote-count")).to_have_text(vote_count_text(LANGS[q], i + 1, 4))
                        expect(pages[q].locator(".ku-reveal-vote")).to_have_count(0)
                        expect(pages[q].locator(".ku-my-vote")).to_have_count(1 if SEATS.index(q) <= i else 0)

            # The simultaneous reveal, on every phone.
            last = game.view()["last_election"]
            assert last["result"] == ("eliminated" if no_voters else "crowned")
            for q in SEATS:
                for p in SEATS:
                    expect(pages[q].locator(f".ku-reveal-vote[data-player='{p}']")).to_have_attribute("data-vote", last["votes"][p])
                word = {"ko": ("왕으로 즉위", "쫓겨남"), "en": ("crowned King", "eliminated")}[LANGS[q]]
                expect(pages[q].locator(".ku-reveal-result")).to_contain_text(word[0] if not no_voters else word[1])
        assert game.state.phase in ("scored", "over")

        # Round result and running totals on every phone = the engine's.
        totals = game.totals()
        result = game.view()["round_results"][-1]
        for q in SEATS:
            res = pages[q].locator(f".ku-result[data-round='{rnd}']").first
            for p in SEATS:
                expect(res.locator(f".ku-result-player[data-player='{p}'] .ku-result-score")).to_have_attribute(
                    "data-score", str(result["players"][p]["score"]))
                expect(pages[q].locator(f".ku-totals tr[data-player='{p}'] .ku-total")).to_have_text(str(totals[p]))
        api = api_snapshot(server, table, host_token)
        assert {pl["id"]: pl["total"] for pl in api["players"]} == totals
        if rnd < 3:
            expect(pages["p2"].locator(".ku-next-wait")).to_be_visible()
            expect(pages["p2"].locator("button.ku-next")).to_have_count(0)
            pages["p1"].locator("button.ku-next").click()
            act("p1", {"type": "next_round"})
            for q in SEATS:
                expect(pages[q].locator(".ku-card .ku-picker")).to_be_visible()

    # The final standings, with the engine's winners.
    outcome = game.view()["result"]
    assert game.state.phase == "over" and outcome
    for q in SEATS:
        final = pages[q].locator(".ku-final")
        for p in SEATS:
            expect(final.locator(f"li[data-player='{p}'] .ku-result-score")).to_have_attribute("data-total", str(outcome["totals"][p]))
        for p in outcome["winners"]:
            expect(final.locator(f"li[data-player='{p}']")).to_have_class(re.compile("winner"))
        # The reveal buzzed every phone (one pattern per election seen live).
        assert len(pages[q].evaluate("window.__vibrations.filter(v => Array.isArray(v) && v.length === 5)")) >= 6

    # Issue 38: every vote left its phone sealed (only the hash) and was opened by it
    # once every vote was in; the store never held a value before that.
    log = [json.loads(x)["action"] for x in redis.Redis.from_url(redis_url, decode_responses=True)
           .lrange(f"tm:{{{table}}}:log", 0, -1)]
    votes = [a for a in log if a.get("type") == "vote"]
    assert votes and all(a["vote"] == "sealed" and len(a["hash"]) == 64 for a in votes), votes
    assert sum(a.get("type") == "open_vote" for a in log) == len(votes)

    for p in SEATS:
        assert traffic[p].messages, f"nothing recorded for {p}"
        assert not leaks(traffic[p], goals), leaks(traffic[p], goals)[:5]
        # The secret cards did reach their owner (the recorder works).
        mine = {frozenset(goals[r][p]) for r in goals}
        seen = {frozenset(m["view"]["me"]["goal"]) for _, m in traffic[p].messages
                if isinstance(m, dict) and isinstance(m.get("view"), dict) and (m["view"].get("me") or {}).get("goal")}
        assert seen == mine


def test_score_only_round_on_one_phone(phone, server, games):
    """Score-only needs 3 seats, like the full game; one phone enters the board and
    the missing cards, one records its own card, the third only watches."""
    if not any(g["name"] == "kingup" for g in games):
        skip_or_fail("King Up! is not registered")
    host, bora, jihun = phone("ko-KR"), phone("en-US"), phone("ko-KR")
    table = create_table(host, TITLES["ko"], "민수", "ko", {"플레이 방식": "점수만", "라운드 수": "1"})
    join(bora, f"{server}/t/{table}", "Bora", "en")
    join(jihun, f"{server}/t/{table}", "지훈", "ko")
    host.get_by_role("button", name="게임 시작").click()
    for page in (host, bora, jihun):
        expect(page.locator(".ku-entry")).to_be_visible()

    # Bora records her printed card on her own phone: it stays hers until scoring.
    bora_card = list("HIJKLM")
    for ch in bora_card:
        bora.locator(f".ku-entry-goal[data-player='p2'] button[data-char='{ch}']").click()
    bora.locator(".ku-entry-goal[data-player='p2'] button.ku-save-card").click()
    expect(host.locator(".ku-recorded")).to_have_text("Bora: 본인 휴대폰에 기록됨")

    # The host's phone: where each character ended, one tap each (the next one is
    # picked automatically), then the two cards nobody recorded.
    board = {"A": "throne", "B": 5, "C": 5, "D": 5, "E": 4, "F": 4, "G": 3,
             "H": "eliminated", "I": "eliminated", "J": "eliminated", "K": "eliminated",
             "L": "eliminated", "M": "eliminated"}
    for ch, where in board.items():
        expect(host.locator(f".ku-entry .ku-tray button[data-char='{ch}']")).to_have_attribute("aria-pressed", "true")
        host.locator(f".ku-entry .ku-row[data-level='{where}'] button.ku-row-head").click()
    expect(host.locator(".ku-entry .ku-row[data-level='eliminated'] .ku-count")).to_have_text("6/12")
    cards = {"p1": list("ABCDEF"), "p3": list("BCDEFG")}
    for p, card in cards.items():
        for ch in card:
            host.locator(f".ku-entry-goal[data-player='{p}'] button[data-char='{ch}']").click()
    expect(host.locator(".ku-ready")).to_be_visible()
    host.locator("button.ku-score").click()

    game = Replica(["p1", "p2", "p3"], {"playMode": "score_only", "rounds": 1}, host="p1")
    game.apply("p2", {"type": "goal", "characters": bora_card})
    game.apply("p1", {"type": "score_round", "board": board, "goals": cards})
    outcome = game.view()["result"]
    # A 33-33 tie: 민수 by points, Bora by the round-3 rule (0 -> 33); the tie-break
    # (characters still on the board) gives it to 민수.
    assert outcome["totals"] == {"p1": 33, "p2": 33, "p3": 26} and outcome["winners"] == ["p1"]
    for page, lang in ((host, "ko"), (bora, "en"), (jihun, "ko")):
        for p, total in outcome["totals"].items():
            expect(page.locator(f".ku-totals tr[data-player='{p}'] .ku-total")).to_have_text(str(total))
        expect(page.locator(".ku-result-player[data-player='p2'] .ku-rule33")).to_be_visible()
        expect(page.locator(".ku-final li[data-player='p1']")).to_have_class(re.compile("winner"))
        tie = page.locator(".ku-tiebreak")
        if lang == "ko":
            expect(tie).to_contain_text("33점 동점: 민수, Bora.")
            expect(tie).to_contain_text("민수: 보드에 6개 · Bora: 보드에 0개")
        else:
            expect(tie).to_contain_text("Tied at 33: 민수, Bora.")
            expect(tie).to_contain_text("민수: 6 on the board · Bora: 0 on the board")


#: Every frame a page sends leaves ~300 ms late: a phone on a slow Wi-Fi.
SLOW_WIFI = """{ const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (m) { setTimeout(() => send.call(this, m), 300); }; }"""


def test_goal_cards_drawn_at_once_on_slow_wifi_are_all_dealt(phone, server):
    """The app deals the goal cards: everyone taps "draw" as the round opens.
    Each card is a draw that waits for every phone's link, and a table holds one
    draw at a time, so a tap made while another seat's card waits is refused
    (409 draw_pending). The phone sends it again once that card is dealt, as
    the server decides a change again when another committed first: no phone
    shows an error, and every seat has its card."""
    made = api(server, "POST", "/api/tables", {"game": "kingup", "name": "민수",
                                                 "options": {"goalCardMode": "deal"}})
    table, tokens = made["table"], [made["player"]["token"]]
    for name in ("Bora", "지훈"):
        tokens.append(api(server, "POST", f"/api/tables/{table}/players", {"name": name})["player"]["token"])
    pages = []
    for token, locale in zip(tokens, ("ko-KR", "en-US", "ko-KR"), strict=True):
        page = phone(locale)
        page.add_init_script(SLOW_WIFI)
        page.goto("/")
        page.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, token])
        page.goto(f"/t/{table}")
        pages.append(page)
    for page in pages:  # every phone's chain anchored: each card waits for all three links
        expect(page.locator("html")).to_have_attribute("data-connection", "open")
    deadline = time.monotonic() + 10
    while len(api(server, "GET", f"/api/tables/{table}").get("fair", {}).get("chains", {})) < 3:
        assert time.monotonic() < deadline, "the phones never anchored their chains"
        time.sleep(0.05)
    api(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "start"}, "request_id": "start"}, tokens[0])
    draws = [page.locator("button.ku-draw-card") for page in pages]
    for button in draws:
        expect(button).to_be_enabled()
    for button in draws:  # one after another, as fast as people do
        button.click()
    for page in pages:
        expect(page.locator(".ku-goal li")).to_have_count(6, timeout=15_000)
        expect(page.get_by_role("alert")).to_have_count(0)
    cards = [api(server, "GET", f"/api/tables/{table}", token=t)["view"]["me"]["goal_card"] for t in tokens]
    assert None not in cards and len(set(cards)) == 3, cards



# The page is served by the app's service worker (what an offline reload needs).
SW_CONTROLS = "() => !!(navigator.serviceWorker && navigator.serviceWorker.controller)"


# Every error the page shows, even for a moment (an alert may be gone by the time a test looks);
# not the banner that says the phone is offline (a page loaded offline shows it after 4 s).
ALERTS_SEEN = """window.__alerts = [];
new MutationObserver(() => {
  for (const e of document.querySelectorAll('[role=alert]:not(.stale-banner)')) {
    const text = e.textContent.trim();
    if (text && e.getClientRects().length && !window.__alerts.includes(text)) window.__alerts.push(text);
  }
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});"""


def vote_with_a_slow_third_phone(phone, server: str, slow: Callable[[Page], None]) -> list[Page]:
    """Three phones at a King Up table, the third made slow by ``slow``; played
    to an election through the API; the slow phone votes Yes first and the
    others after it, so the last vote asks every phone for its opening at once.
    Returns the pages once p3's vote is revealed on each."""
    from e2e.test_stall import play_to_vote

    made = api(server, "POST", "/api/tables", {"game": "kingup", "name": "민수"})
    table, tokens = made["table"], [made["player"]["token"]]
    for name in ("Bora", "지훈"):
        tokens.append(api(server, "POST", f"/api/tables/{table}/players", {"name": name})["player"]["token"])
    pages = []
    for i, (token, locale) in enumerate(zip(tokens, ("ko-KR", "en-US", "ko-KR"), strict=True)):
        page = phone(locale)
        page.add_init_script(ALERTS_SEEN)
        if i == 2:
            slow(page)
        page.goto("/")
        page.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, token])
        page.goto(f"/t/{table}")
        pages.append(page)
    for page in pages:
        expect(page.locator("html")).to_have_attribute("data-connection", "open")
    api(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "start"}, "request_id": "start"}, tokens[0])
    play_to_vote(server, table, dict(zip(["p1", "p2", "p3"], tokens, strict=True)))
    for page in (pages[2], pages[0], pages[1]):
        page.locator("button.ku-vote[data-vote='yes']").click()
        page.locator("button.ku-vote-final[data-vote='yes']").click()
        expect(page.locator("button.ku-vote")).to_have_count(0)
    for page in pages:
        expect(page.locator(".ku-reveal-vote[data-player='p3']")).to_have_attribute("data-vote", "yes",
                                                                                    timeout=15_000)
    return pages


def test_sealed_votes_opened_at_once_on_slow_wifi_open_once_each(phone, server):
    """Every vote is in: each phone opens its seal by itself, all at the same
    moment. The slow phone's opening is still on its way when the others'
    land, and the snapshots they bring still show its seal shut: it must not
    open it again (the second came back `not_sealed`, or `wrong_phase` once the
    votes were revealed, as an error on its screen at the reveal)."""
    sent: list[str] = []
    refused: list[str] = []

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda f: sent.append(f) if isinstance(f, str) else None)
        ws.on("framereceived", lambda f: refused.append(f) if isinstance(f, str) and '"type":"error"' in f else None)

    def slow(page: Page) -> None:
        page.add_init_script(SLOW_WIFI.replace("300", "600"))
        page.on("websocket", watch)
    pages = vote_with_a_slow_third_phone(phone, server, slow)
    pages[2].wait_for_timeout(1500)  # a second opening, had one been sent, is answered by now
    assert sum('"open_vote"' in f for f in sent) == 1, [f for f in sent if "open_vote" in f]
    assert refused == []
    assert [page.evaluate("window.__alerts") for page in pages] == [[], [], []]


def test_an_opening_refused_for_a_busy_table_is_sent_again(phone, server):
    """The last opening missing comes back refused for a reason that is not
    about it (`busy`: the store was slow): no new version will come to try it
    again, so the phone sends it again by itself, and the votes are revealed."""
    refused: list[str] = []

    def busy_once(ws: Any) -> None:
        to_server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if not refused and isinstance(message, str) and '"open_vote"' in message:
                refused.append(json.loads(message)["request_id"])
                ws.send(json.dumps({"type": "error", "request_id": refused[0], "error": {
                    "code": "busy", "message": "This table is busy right now; try again in a moment."}}))
                return
            to_server.send(message)
        ws.on_message(from_page)

    def slow(page: Page) -> None:  # the last to open: its opening lands after the others'
        page.add_init_script(SLOW_WIFI)
        page.route_web_socket("**/ws", busy_once)
    pages = vote_with_a_slow_third_phone(phone, server, slow)
    assert len(refused) == 1
    assert [page.evaluate("window.__alerts") for page in pages] == [[], [], []], "a refusal was shown"


def test_a_vote_sealed_offline_and_reloaded_is_cast_once_and_opened(phone, server):
    """A vote sealed while the Wi-Fi is down waits to be sent; iOS reloads the
    page before it is. The next page sends it and, until it is answered, does
    not offer the vote again: sealed a second time (a new salt over the first,
    whose hash the server then takes), it could never be opened and the
    election would wait for the host's skip."""
    from e2e.test_stall import play_to_vote

    made = api(server, "POST", "/api/tables", {"game": "kingup", "name": "Ann"})
    table, tokens = made["table"], {"p1": made["player"]["token"]}
    for seat, name in (("p2", "Bo"), ("p3", "Cy")):
        tokens[seat] = api(server, "POST", f"/api/tables/{table}/players", {"name": name})["player"]["token"]
    pages = {}
    for seat in tokens:
        page = phone("en-US")
        page.add_init_script(ALERTS_SEEN)
        page.goto("/")
        page.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, tokens[seat]])
        page.goto(f"/t/{table}")
        pages[seat] = page
    for page in pages.values():
        expect(page.locator("html")).to_have_attribute("data-connection", "open")
    ann = pages["p1"]
    api(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "start"}, "request_id": "start"}, tokens["p1"])
    play_to_vote(server, table, tokens)
    expect(ann.locator("button.ku-vote[data-vote='yes']")).to_be_visible()
    # The reload below is offline: the service worker must serve the app. Its first
    # install fetches the whole shell, one per phone here: slow on a busy machine.
    ann.wait_for_function(SW_CONTROLS, timeout=60_000)

    ann.context.set_offline(True)
    expect(ann.locator("html")).not_to_have_attribute("data-connection", "open")
    ann.locator("button.ku-vote[data-vote='yes']").click()
    ann.locator("button.ku-vote-final[data-vote='yes']").click()
    ann.reload()
    expect(ann.get_by_role("status").filter(has_text="Sending your move from before the reload")).to_be_visible()
    assert ann.locator("button.ku-vote[data-vote='yes']").evaluate("e => getComputedStyle(e).pointerEvents") == "none"
    ann.context.set_offline(False)
    expect(ann.locator("button.ku-vote")).to_have_count(0, timeout=20_000)   # cast: nothing to vote again
    for seat in ("p2", "p3"):
        pages[seat].locator("button.ku-vote[data-vote='no']").click()
        pages[seat].locator("button.ku-vote-final[data-vote='no']").click()
    for page in pages.values():
        expect(page.locator(".ku-reveal-vote[data-player='p1']")).to_have_attribute("data-vote", "yes", timeout=15_000)
    assert [page.evaluate("window.__alerts") for page in pages.values()] == [[], [], []]
