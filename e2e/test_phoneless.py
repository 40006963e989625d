"""Seats without a phone on real phones (issue 17), Camel Up part: three phones
and a seat without one, added from the lobby; the host enters that seat's leg
bet and its face-down finish card through the "Enter moves for" switcher, a
leg is played to its scoring, and the money is the engine's. No phone receives
a finish card's colour of another seat."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import (
    LABELS,
    POSITION_A,
    Replica,
    Traffic,
    api_create_table,
    call,
    do_bet,
    join_for_token,
    leaks,
    open_as,
    send,
    snapshot,
    wait_version,
)

# The Camel Up tests' fixed-random server and their wait for a screen's action.
from e2e.test_camelup import api_version_after, fixed  # noqa: F401
from tests.words import texts


def after(base: str, table: str, version: int) -> int:
    """The table's version once the action sent from a screen is applied."""
    return int(api_version_after(base, table, version)["version"])


def history_ko(base: str, table: str) -> list[str]:
    return texts(call(base, "GET", f"/api/tables/{table}/history"), "ko")


def test_camelup_three_phones_and_a_seat_without_one(phone, fixed) -> None:  # noqa: F811 (the fixture)
    host: Page = phone("ko-KR", base_url=fixed)
    bora: Page = phone("en-US", base_url=fixed)
    jihun: Page = phone("ko-KR", base_url=fixed)
    traffic = {"p2": Traffic(bora, "p2"), "p3": Traffic(jihun, "p3")}
    table, host_token = api_create_table(fixed, "민수", {"setup": POSITION_A})
    open_as(host, table, host_token)
    expect(host.get_by_role("heading", name=LABELS["ko"]["lobby"])).to_be_visible()
    tokens = {"p1": host_token, "p2": join_for_token(bora, fixed, table, "Bora", "en"),
              "p3": join_for_token(jihun, fixed, table, "지훈", "ko")}

    # The host adds Dana, who has no phone, from the lobby.
    host.get_by_text("휴대폰 없는 자리 추가").click()
    host.get_by_label("휴대폰 없는 참가자 이름").fill("Dana")
    host.get_by_role("button", name="추가", exact=True).click()
    expect(bora.locator(".seats li[data-player='p4'] .badge.no-phone")).to_have_text("no phone")
    expect(host.locator(".seats li[data-player='p4'] .badge.no-phone")).to_have_text("휴대폰 없음")
    host.get_by_role("button", name=LABELS["ko"]["start"]).click()
    for page in (host, bora, jihun):
        expect(page.locator(".game-camelup .cm-status")).to_be_visible()
    snap = snapshot(fixed, table, host_token)
    assert snap["players"][3] == {**snap["players"][3], "id": "p4", "name": "Dana", "phone": False}
    assert list(snap["proxies"]) == ["p4"] and snapshot(fixed, table, tokens["p2"])["proxies"] == {}

    game = Replica(["p1", "p2", "p3", "p4"], {"setup": POSITION_A}, host="p1")
    game.apply("p1", {"type": "set_paper", "seat": "p4"})
    version = snapshot(fixed, table)["version"]
    finish_versions: dict[int, str] = {}

    def by_http(seat: str, action: dict) -> None:
        nonlocal version
        res = send(fixed, table, tokens[seat], action)
        game.apply(seat, action)
        version = res["version"]

    # p1 on the screen, p2 and p3 over HTTP with fixed dice.
    wait_version(host, version)
    do_bet(host, "yellow")
    version = after(fixed, table, version)
    game.apply("p1", {"type": "leg_bet", "camel": "yellow"})
    by_http("p2", {"type": "pyramid", "die": "red", "value": 1})
    by_http("p3", {"type": "pyramid", "die": "green", "value": 2})

    # Dana's turn: the host switches to "Enter moves for: Dana".
    wait_version(host, version)
    host.locator(".proxy-bar button[data-proxy='p4']").click()
    expect(host.locator(".proxy-now")).to_have_text("Dana님 대신 입력 중")
    host.locator(".cm-open-finish").click()
    host.locator(".cm-pile.winner").click()
    expect(host.locator(".cm-finish-picker .cm-card-pick")).to_have_count(0)  # no colour: a face-down card
    host.locator(".cm-confirm-finish").click()
    version = after(fixed, table, version)
    finish_versions[version] = "p4"
    game.apply("p4", {"type": "finish_bet", "pile": "winner"})
    assert history_ko(fixed, table)[-1].startswith("Dana (민수 입력)")

    by_http("p1", {"type": "pyramid", "die": "blue", "value": 1})
    by_http("p2", {"type": "pyramid", "die": "purple", "value": 3})
    by_http("p3", {"type": "leg_bet", "camel": "blue"})

    # Dana again: her card placed, the host was back on its own seat; it
    # switches to her again for a leg bet through the screen.
    wait_version(host, version)
    expect(host.locator(".proxy-now")).to_be_hidden()
    host.locator(".proxy-bar button[data-proxy='p4']").click()
    expect(host.locator(".proxy-now")).to_have_text("Dana님 대신 입력 중")
    do_bet(host, "green")
    version = after(fixed, table, version)
    game.apply("p4", {"type": "leg_bet", "camel": "green"})
    assert history_ko(fixed, table)[-1].startswith("Dana (민수 입력): 초록")

    # Back on the host's own seat by itself, and the leg's fifth die.
    expect(host.locator(".proxy-now")).to_be_hidden()
    by_http("p1", {"type": "pyramid", "die": "yellow", "value": 2})
    final = snapshot(fixed, table, host_token)
    assert final["view"]["leg"] == 2
    assert {p["id"]: p["money"] for p in final["players"]} == game.money()
    for page in (host, bora, jihun):
        wait_version(page, version)

    # Leg 2: the host puts red one step from the line; Dana places a second
    # face-down card (loser pile), then red crosses and the piles wait.
    by_http("p1", {"type": "set_stack", "space": 16, "camels": ["red"]})
    seats = ["p1", "p2", "p3", "p4"]
    while True:
        turn = snapshot(fixed, table)["view"]["current_player"]
        if turn == "p4":
            wait_version(host, version)
            host.locator(".proxy-bar button[data-proxy='p4']").click()
            host.locator(".cm-open-finish").click()
            host.locator(".cm-pile.loser").click()
            host.locator(".cm-confirm-finish").click()
            version = after(fixed, table, version)
            finish_versions[version] = "p4"
            game.apply("p4", {"type": "finish_bet", "pile": "loser"})
            expect(host.locator(".proxy-bar button[data-proxy='self']")).to_have_attribute("aria-pressed", "true")
            continue
        if len(game.state.loser_pile) and turn in seats:
            by_http(turn, {"type": "pyramid", "die": "red", "value": 1})
            break
        by_http(turn, {"type": "leg_bet", "camel": "purple"})
    assert snapshot(fixed, table)["view"]["phase"] == "paper_cards"
    wait_version(host, version)
    wait_version(bora, version)
    expect(bora.locator(".cm-paper-cards .hint")).to_contain_text("host records")
    recorder = host.locator(".cm-paper-cards")
    expect(recorder.locator(".cm-paper-card")).to_have_count(2)
    recorder.locator(".cm-paper-card[data-pile='winner'] .cm-card-pick[data-camel='red']").click()
    recorder.locator(".cm-paper-card[data-pile='loser'] .cm-card-pick[data-camel='green']").click()
    recorder.locator(".cm-confirm-paper").click()
    version = after(fixed, table, version)
    game.apply("p1", {"type": "paper_cards", "winner": ["red"], "loser": ["green"]})
    final = snapshot(fixed, table, host_token)
    assert final["status"] == "over"
    assert {p["id"]: p["money"] for p in final["players"]} == game.money()
    for seat, t in traffic.items():
        assert leaks(t, finish_versions) == [], seat
