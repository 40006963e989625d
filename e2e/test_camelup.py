"""Camel Up on real phones: four phones play a whole race through the screens
(some dice rolled by the server from a tap, some fixed over HTTP) and end with the
engine's money; the odds panel shows the golden figures of position A and follows
the board; six phones form a partnership and see the copy at leg scoring; one
phone runs a pyramid-only leg with taps and shakes; and no phone ever receives
another seat's finish-card colours."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from conftest import skip_or_fail
from e2e.camelup_helpers import (
    GOLDEN_A,
    LABELS,
    POSITION_A,
    VIBRATE_SPY,
    Replica,
    Traffic,
    api_create_table,
    board_on,
    do_bet,
    do_finish,
    do_partner,
    do_tile,
    fixed_random_server,
    join_for_token,
    leaks,
    open_as,
    rolled,
    send,
    settled,
    snapshot,
    wait_version,
)
from e2e.lobby import create_table
from e2e.table_helpers import open_history

NAMES = {"p1": "민수", "p2": "Bora", "p3": "지훈", "p4": "Dana", "p5": "서연", "p6": "Eli"}
LANGS = {"p1": "ko", "p2": "en", "p3": "ko", "p4": "en", "p5": "ko", "p6": "en"}
COLOUR = {"en": {c: c for c in ("blue", "green", "yellow", "red", "purple")},
          "ko": {"blue": "파랑", "green": "초록", "yellow": "노랑", "red": "빨강", "purple": "보라"}}
# One turn each, in a cycle: what the player whose turn it is does.
PLAN = ["bet", "roll", "tile", "finish", "roll", "roll", "bet", "roll", "finish", "roll"]


@pytest.fixture(scope="module")
def fixed(redis_url: str, tmp_path_factory: pytest.TempPathFactory, games) -> Iterator[str]:
    if not any(g["name"] == "camelup" for g in games):
        skip_or_fail("Camel Up is not registered")
    with fixed_random_server(redis_url, tmp_path_factory.mktemp("camelup") / "server.log") as app:
        yield app.base


def seat_table(phone, base: str, seats: list[str], options: dict) -> tuple[str, dict[str, Page], dict[str, str], dict[str, Traffic]]:
    """The host's table made through the API (the fixed board needs it), the others
    joining through the join screen, the game started with the host's button."""
    pages: dict[str, Page] = {}
    traffic: dict[str, Traffic] = {}
    for p in seats:
        page = phone("ko-KR" if LANGS[p] == "ko" else "en-US", base_url=base)
        page.add_init_script(VIBRATE_SPY)
        traffic[p] = Traffic(page, p)
        pages[p] = page
    table, host_token = api_create_table(base, NAMES["p1"], options)
    tokens = {"p1": host_token}
    open_as(pages["p1"], table, host_token)
    expect(pages["p1"].get_by_role("heading", name=LABELS["ko"]["lobby"])).to_be_visible()
    for p in seats[1:]:
        tokens[p] = join_for_token(pages[p], base, table, NAMES[p], LANGS[p])
    snap = snapshot(base, table, host_token)
    assert [pl["id"] for pl in snap["players"]] == seats
    settled(base, table, seats)
    pages["p1"].get_by_role("button", name=LABELS["ko"]["start"]).click()
    for p in seats:
        expect(pages[p].locator(".game-camelup .cm-status")).to_be_visible()
    settled(base, table, seats)
    return table, pages, tokens, traffic


def api_version_after(base: str, table: str, version: int) -> dict:
    """The snapshot once the server has applied the action sent from a screen."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        snap = snapshot(base, table)
        if snap["version"] > version:
            assert snap["version"] == version + 1, (snap["version"], version)
            return snap
        time.sleep(0.05)
    raise AssertionError(f"the action after version {version} never arrived")


def check_odds(page: Page, game: Replica, seat: str, version: int) -> None:
    """The panel on `page` shows the engine's analysis for this position."""
    a = game.analysis(seat)
    legs = page.locator(f".cm-odds-legs[data-version='{version}']")
    expect(legs).to_have_count(1)
    for camel, ranks in a["leg"]["ranks"].items():
        row = legs.locator(f".cm-odds-row[data-camel='{camel}']")
        for place, i in (("first", 0), ("second", 1), ("last", 4)):
            expect(row.locator(f".cm-bar.{place}")).to_have_attribute("data-count", str(ranks[i]))
    tickets = a["leg"]["tickets"]
    best = max([t["ev"] for t in tickets.values()] + [1.0])
    for camel, t in tickets.items():
        li = page.locator(f".cm-odds-ticket[data-camel='{camel}']")
        assert float(li.get_attribute("data-ev")) == t["ev"]
        expect(li).to_have_class(re.compile(r"\bbest\b") if t["ev"] >= best else re.compile(r"^(?!.*\bbest\b)"))
    spots = page.locator(".cm-odds-spots li").evaluate_all(
        "els => els.map(e => [Number(e.dataset.space), e.dataset.side, Number(e.dataset.ev)])")
    assert spots == [[s["space"], s["side"], s["ev"]] for s in a["tileSpots"][:3]]
    for camel, p in a["race"]["winner"].items():
        assert float(page.locator(f".cm-odds-race li[data-camel='{camel}'] .cm-race-p.winner").get_attribute("data-p")) == p


def test_four_phones_race(phone, fixed):
    seats = ["p1", "p2", "p3", "p4"]
    table, pages, tokens, traffic = seat_table(phone, fixed, seats, {"setup": POSITION_A})
    game = Replica(seats, {"setup": POSITION_A}, host="p1")
    version = snapshot(fixed, table)["version"]
    for p in seats:
        wait_version(pages[p], version)
        assert board_on(pages[p]) == [s["camels"] for s in game.view()["board"]["spaces"]]

    # The odds panel (issue 6), golden position A, on an English and a Korean phone.
    for p in ("p2", "p3"):
        pages[p].locator(".cm-odds summary").click()
        green = pages[p].locator(".cm-odds-row[data-camel='green'] .cm-bar.first")
        expect(green).to_have_attribute("data-count", "1584896")
        expect(green).to_have_text("28.3%")
        expect(pages[p].locator(".cm-odds-legs")).to_have_attribute("data-denominator", "5598720")
        for camel, (first, second, last) in GOLDEN_A.items():
            row = pages[p].locator(f".cm-odds-row[data-camel='{camel}']")
            expect(row.locator(".cm-bar.first")).to_have_attribute("data-count", str(first))
            expect(row.locator(".cm-bar.second")).to_have_attribute("data-count", str(second))
            expect(row.locator(".cm-bar.last")).to_have_attribute("data-count", str(last))
        check_odds(pages[p], game, p, version)
        expect(pages[p].locator(".cm-odds-ticket[data-camel='yellow']")).to_have_class(re.compile(r"\bbest\b"))
    expect(pages["p3"].locator(".cm-race-note")).to_contain_text("시뮬레이션 10,000번")

    finish_versions: dict[int, str] = {}
    turn = 0
    ui_rolls = 0
    odds_checked = False
    done: dict[str, int] = {}
    while game.state.phase != "over":
        v = game.view()
        cur = v["current_player"]
        page = pages[cur]
        wait_version(page, version)
        legal = game.legal(cur)
        kind = PLAN[turn % len(PLAN)]
        turn += 1
        leader = v["ranking"][0]
        if kind == "bet" and any(a["type"] == "leg_bet" for a in legal):
            bets = [a["camel"] for a in legal if a["type"] == "leg_bet"]
            camel = leader if leader in bets else bets[0]
            do_bet(page, camel)
            action = {"type": "leg_bet", "camel": camel}
        elif kind == "tile" and any(a["type"] == "spectator" for a in legal):
            spaces = {a["space"] for a in legal if a["type"] == "spectator"}
            ahead = [s for s in sorted(spaces) if s > min(i + 1 for i, st in enumerate(v["board"]["spaces"]) if st["camels"])]
            space = ahead[0] if ahead else min(spaces)
            side = "cheer" if turn % 2 else "boo"
            do_tile(page, space, side, spaces)
            action = {"type": "spectator", "space": space, "side": side}
        elif kind == "finish" and game.view(cur)["me"]["finish_hand"]:
            hand = game.view(cur)["me"]["finish_hand"]
            pile = "winner" if turn % 3 else "loser"
            want = leader if pile == "winner" else v["ranking"][-1]
            camel = want if want in hand else hand[0]
            do_finish(page, pile, camel, hand)
            action = {"type": "finish_bet", "pile": pile, "camel": camel}
        elif len(v["tents"]) < 4 and v["leg"] <= 2:
            # A tap: the server draws the die; the replica takes it from the tents.
            page.locator(".cm-roll").click()
            # Drawn once every page's link is in (issue 38): a version per link, then the roll's.
            version = rolled(fixed, table, len(v["tents"]) + 1) - 1
            tent = snapshot(fixed, table)["view"]["tents"][-1]
            action = {"type": "pyramid", "die": tent["die"], "value": tent["value"]}
            if tent["die"] == "grey":
                action["color"] = tent["color"]
            ui_rolls += 1
        else:
            # Fixed dice over HTTP: the leader's die, 3 spaces, so the race ends.
            racing = [d for d in v["ranking"] if d in v["pyramid"]]
            action = {"type": "pyramid", "die": racing[0], "value": 3} if racing else {"type": "pyramid", "die": "grey", "value": 3, "color": "white"}
            send(fixed, table, tokens[cur], action)
        leg_before = v["leg"]
        done[action["type"]] = done.get(action["type"], 0) + 1
        game.apply(cur, action)
        version += 1
        if action["type"] == "finish_bet":
            finish_versions[version] = cur
        if action["type"] != "pyramid":
            continue

        # Every roll: every phone mirrors the engine's board, the roller's die shows.
        board = [s["camels"] for s in game.view()["board"]["spaces"]]
        for p in seats:
            wait_version(pages[p], version)
            assert board_on(pages[p]) == board, p
        if "die" in action and game.state.phase != "over" and game.view()["leg"] == leg_before:
            for p in seats:
                last = pages[p].locator(".cm-last .cm-die")
                expect(last).to_have_attribute("data-die", action["die"])
                expect(last).to_have_attribute("data-value", str(action["value"]))
        if ui_rolls == 1 and not odds_checked:
            odds_checked = True
            # The new die came in with a buzz and an animation, and the open panel followed it.
            other = next(p for p in seats if p != cur)
            assert pages[other].evaluate("window.__vibrations.length") >= 1
            check_odds(pages["p2"], game, "p2", version)
        if game.state.phase != "over" and game.view()["leg"] > leg_before:
            # The leg was scored: every phone shows each player's new money, open.
            report = game.view()["last_leg"]
            for p in seats:
                leg = pages[p].locator(f".cm-leg[data-leg='{leg_before}']")
                expect(leg).to_have_attribute("open", "")
                for line in report["players"]:
                    expect(leg.locator(f".cm-leg-player[data-player='{line['player']}']")).to_have_attribute("data-new", str(line["new"]))
            # The pages: finish-card colours only on their owner's phone.
            for p in seats:
                placed = pages[p].locator("[data-pile][data-camel]").evaluate_all(
                    "els => els.map(e => [e.dataset.pile, e.dataset.camel])")
                assert sorted(placed) == sorted([c["pile"], c["camel"]] for c in game.view(p)["me"]["finish_placed"]), p
            # The die that ended the leg, on a phone that did not roll it (from the history).
            watcher = next(p for p in seats if p != cur)
            colour = COLOUR[LANGS[watcher]].get(action["die"], "")
            title = "지난 레그의 마지막 주사위" if LANGS[watcher] == "ko" else "Last die of the previous leg"
            expect(pages[watcher].locator(".cm-last-title")).to_have_text(title)
            expect(pages[watcher].locator(".cm-last-die")).to_contain_text(colour)
            # The next leg's fair dice: every phone seeds them, a change each.
            version = settled(fixed, table, seats)

    print(f"race: {turn} turns, {game.view()['leg']} legs, {ui_rolls} rolls from a tap, {done}")
    assert ui_rolls >= 4 and turn < 80 and game.view()["leg"] >= 3
    assert set(done) == {"leg_bet", "spectator", "finish_bet", "pyramid"}
    # The race is over: standings, money and piles on every phone = the engine's.
    money = game.money()
    result = game.view()["result"]
    for p in seats:
        wait_version(pages[p], version)
        for q, m in money.items():
            expect(pages[p].locator(f".cm-standing-list li[data-player='{q}']")).to_have_attribute("data-money", str(m))
        for pile in ("winner", "loser"):
            expect(pages[p].locator(f".cm-reveal.{pile} .cm-reveal-card")).to_have_count(len(result["piles"][pile]))
        for w in result["winners"]:
            expect(pages[p].locator(f".cm-standing-list li[data-player='{w}']")).to_have_class(re.compile("winner"))
        expect(pages[p].locator(".cm-leg.final")).to_be_visible()
    # The history is read too, and goes into the audit below.
    with pages["p2"].expect_response(lambda r: "/history" in r.url) as hist:
        history = open_history(pages["p2"])
    traffic["p2"].messages.append((f"http {hist.value.url}", hist.value.json()))
    expect(history.get_by_role("listitem").first).to_be_visible()
    assert {pl["id"]: pl["money"] for pl in snapshot(fixed, table)["players"]} == money
    assert finish_versions, "no finish card was placed"
    for p in seats:
        assert traffic[p].messages, f"nothing recorded for {p}"
        found = leaks(traffic[p], finish_versions)
        assert not found, found[:5]
        # The recorder works: each phone did receive its own hand, and the history.
        hands = [m["view"]["me"]["finish_hand"] for _, m in traffic[p].messages
                 if isinstance(m, dict) and isinstance(m.get("view"), dict) and (m["view"].get("me") or {}).get("finish_hand")]
        assert hands, p
    assert any("rounds" in m for p in seats for _, m in traffic[p].messages if isinstance(m, dict))


def test_six_phones_partnership(phone, fixed):
    seats = ["p1", "p2", "p3", "p4", "p5", "p6"]
    table, pages, tokens, traffic = seat_table(phone, fixed, seats, {"setup": POSITION_A})
    game = Replica(seats, {"setup": POSITION_A}, host="p1")
    version = snapshot(fixed, table)["version"]

    wait_version(pages["p1"], version)
    pages["p1"].locator(".cm-open-partner").click()
    offered = pages["p1"].locator(".cm-partner").evaluate_all("els => els.map(e => e.dataset.player)")
    assert offered == [a["with"] for a in game.legal("p1") if a["type"] == "partner"] == seats[1:]
    pages["p1"].locator(".cm-open-partner").click()
    do_partner(pages["p1"], "p2")
    game.apply("p1", {"type": "partner", "with": "p2"})
    version += 1
    for p in seats:
        wait_version(pages[p], version)
        expect(pages[p].locator(".cm-player[data-player='p1'] .cm-chip.partner")).to_contain_text("Bora")
    do_bet(pages["p2"], "yellow")
    game.apply("p2", {"type": "leg_bet", "camel": "yellow"})
    version += 1
    wait_version(pages["p3"], version)
    do_bet(pages["p3"], "green")
    game.apply("p3", {"type": "leg_bet", "camel": "green"})
    version += 1
    wait_version(pages["p3"], version)  # the tap has landed before p4 rolls over HTTP
    # Five dice end the leg: yellow runs away.
    for p, die, value in (("p4", "yellow", 3), ("p5", "green", 1), ("p6", "red", 1), ("p1", "blue", 1), ("p2", "purple", 1)):
        send(fixed, table, tokens[p], {"type": "pyramid", "die": die, "value": value})
        game.apply(p, {"type": "pyramid", "die": die, "value": value})
        version += 1
    report = {line["player"]: line for line in game.view()["last_leg"]["players"]}
    copy = report["p1"]["copy"]
    assert report["p1"]["partner"] == "p2" and copy["camel"] == "yellow" and copy["reward"] == 5
    for p in seats:
        wait_version(pages[p], version)
        leg = pages[p].locator(".cm-leg[data-leg='1']")
        expect(leg).to_have_attribute("open", "")
        line = leg.locator(".cm-leg-player[data-player='p1'] .cm-copy-line")
        expect(line).to_have_attribute("data-partner", "p2")
        expect(line).to_have_attribute("data-reward", "5")
        if LANGS[p] == "en":
            expect(line).to_contain_text("Copy of Bora's yellow 5 ticket (1st)")
            # 민수 rolled blue: Bora copies his pyramid ticket.
            expect(leg.locator(".cm-leg-player[data-player='p2'] .cm-copy-line")).to_contain_text("Copy of 민수's pyramid ticket")
        else:
            expect(line).to_contain_text("Bora 티켓 복사: 노랑 5 티켓 (1등)")
        for q, entry in report.items():
            expect(leg.locator(f".cm-leg-player[data-player='{q}']")).to_have_attribute("data-new", str(entry["new"]))
    for p in seats:
        assert not leaks(traffic[p], {}), leaks(traffic[p], {})[:5]


def shake(page: Page) -> None:
    """A burst of strong readings, as one real shake gives."""
    page.evaluate("""() => {
      for (let i = 0; i < 12; i++) {
        window.dispatchEvent(new DeviceMotionEvent('devicemotion', {
          acceleration: {x: i % 2 ? 22 : -22, y: 4, z: 0},
          accelerationIncludingGravity: {x: i % 2 ? 22 : -22, y: 13, z: 0}, interval: 16}));
      }
    }""")


def test_pyramid_only_leg_on_one_phone(phone, server):
    page = phone("en-US")
    page.add_init_script(VIBRATE_SPY)
    lab = LABELS["en"]
    table = create_table(page, lab["title"], "Mina", "en", {lab["mode"]: lab["pyramid"]})
    page.get_by_role("button", name=lab["start"]).click()
    expect(page.locator(".cm-roll")).to_be_enabled()
    token = page.evaluate("t => localStorage.getItem(`tablemate.token.${t}`)", table)
    version = settled(server, table, ["p1"])
    expect(page.locator(".cm-actions")).to_have_count(0)  # no betting, no money
    expect(page.locator(".cm-players")).to_have_count(0)

    def check_mirror(n: int) -> None:
        snap = snapshot(server, table, token)
        wait_version(page, snap["version"])
        assert board_on(page) == [s["camels"] for s in snap["view"]["board"]["spaces"]]
        shown = page.locator(".cm-tents .cm-die").evaluate_all("els => els.map(e => [e.dataset.die, Number(e.dataset.value)])")
        assert shown == [[t["die"], t["value"]] for t in snap["view"]["tents"]]
        assert len(shown) == n

    for n in (1, 2, 3):
        page.locator(".cm-roll").click()
        version = rolled(server, table, n)
        wait_version(page, version)
        check_mirror(n)
    # Shake to roll: one shake, one roll, however many readings it gives.
    page.locator(".cm-shake").click()
    expect(page.locator(".cm-shake")).to_have_attribute("aria-pressed", "true")
    for n in (4, 5):
        shake(page)
        version = rolled(server, table, n)
        wait_version(page, version)
        page.wait_for_timeout(400)
        # Exactly one roll (the leg's end also opens leg 2's fair dice, which the phone seeds).
        assert len(snapshot(server, table)["view"]["tents"]) == n
        check_mirror(n)
        page.wait_for_timeout(1100)  # still again: the next shake rolls again
    expect(page.locator(".cm-status-title")).to_have_text("Leg 1 is over")
    expect(page.locator(".cm-roll")).to_have_count(0)
    assert page.evaluate("window.__vibrations.length") >= 5
    page.locator(".cm-next-leg").click()
    version += 1
    wait_version(page, version)
    expect(page.locator(".cm-tents .cm-die")).to_have_count(0)
    expect(page.locator(".cm-status .cm-chip").first).to_have_text("Leg 2")
    page.locator(".cm-roll").click()
    version += 1
    wait_version(page, version)
    check_mirror(1)

    # The host fixes the mirror: the white crazy camel alone on an empty space.
    spaces = snapshot(server, table)["view"]["board"]["spaces"]
    empty = next(s["space"] for s in spaces if s["space"] >= 5 and not s["camels"])
    page.locator(".cm-fix summary").click()
    page.get_by_label("Space", exact=True).select_option(str(empty))
    for camel in page.locator(".cm-fix-camel[aria-pressed='true']").evaluate_all("els => els.map(e => e.dataset.camel)"):
        page.locator(f".cm-fix-camel[data-camel='{camel}']").click()
    page.locator(".cm-fix-camel[data-camel='white']").click()
    expect(page.locator(".cm-fix-order")).to_have_text("Bottom → top: white crazy camel")
    page.locator(".cm-fix-apply").click()
    version += 1
    wait_version(page, version)
    expect(page.locator(f".cm-space[data-space='{empty}']")).to_have_attribute("data-camels", "white")
    assert snapshot(server, table)["view"]["board"]["spaces"][empty - 1]["camels"] == ["white"]
