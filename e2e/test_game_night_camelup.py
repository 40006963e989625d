"""What a family tripped on during a game night (issue 33), on Camel Up's
screens: the host's record of a seat's face-down finish cards, what the
host's status says while the race waits for it, and a finished race's places
and score pad."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import (
    POSITION_A,
    api_create_table,
    call,
    drawn,
    open_as,
    send,
    snapshot,
    wait_version,
)
from e2e.phoneless_helpers import add_phoneless

# The Camel Up tests' fixed-random server (dice and the board given by the test).
from e2e.test_camelup import fixed  # noqa: F401


def send_as(base: str, table: str, token: str, seat: str, action: dict[str, Any]) -> dict[str, Any]:
    """``action`` entered by ``token``'s phone for ``seat``, a seat without a phone."""
    body = {"action": action, "request_id": f"night-{time.time_ns()}", "as": seat}
    return drawn(base, table, call(base, "POST", f"/api/tables/{table}/actions", body, token))


def race_waiting_for_paper_cards(base: str) -> tuple[str, str, str]:
    """민수 (host), Bora and 하린 (no phone): 하린 puts one face-down card on
    each pile, red crosses the line, and the race waits for the host to
    record 하린's cards. The table, the host's and Bora's tokens."""
    table, host = api_create_table(base, "민수", {"setup": POSITION_A})
    bora = call(base, "POST", f"/api/tables/{table}/players", {"name": "Bora"})["player"]["token"]
    harin = add_phoneless(base, table, host, "하린")
    send(base, table, host, {"type": "start"})
    send(base, table, host, {"type": "set_stack", "space": 16, "camels": ["red"]})
    for pile in ("winner", "loser"):
        send(base, table, host, {"type": "leg_bet", "camel": "blue"})
        send(base, table, bora, {"type": "leg_bet", "camel": "green"})
        send_as(base, table, host, harin, {"type": "finish_bet", "pile": pile})
    send(base, table, host, {"type": "pyramid", "die": "red", "value": 1})
    assert snapshot(base, table)["view"]["phase"] == "paper_cards"
    return table, host, bora


def test_face_down_cards_of_one_seat_cannot_name_one_camel_twice(phone, fixed) -> None:  # noqa: F811 (the fixture)
    table, host_token, _ = race_waiting_for_paper_cards(fixed)
    host: Page = phone("ko-KR", base_url=fixed)
    open_as(host, table, host_token)
    wait_version(host, snapshot(fixed, table)["version"])
    recorder = host.locator(".cm-paper-cards")
    winner = recorder.locator(".cm-paper-card[data-pile='winner']")
    loser = recorder.locator(".cm-paper-card[data-pile='loser']")
    winner.locator(".cm-card-pick[data-camel='red']").click()
    # 하린 holds one card per camel: red is taken on her other card, and says where.
    taken = loser.locator(".cm-card-pick[data-camel='red']")
    expect(taken).to_be_disabled()
    expect(taken).to_have_attribute("title", "우승 베팅 칸 1번째 카드에 이미 골랐어요")
    expect(loser.locator(".cm-card-pick:disabled")).to_have_count(1)
    # Changing the first pick frees red again.
    winner.locator(".cm-card-pick[data-camel='blue']").click()
    expect(taken).to_be_enabled()
    expect(loser.locator(".cm-card-pick[data-camel='blue']")).to_be_disabled()
    loser.locator(".cm-card-pick[data-camel='red']").click()
    recorder.locator(".cm-confirm-paper").click()
    expect(host.locator(".cm-paper-cards")).to_have_count(0)
    assert snapshot(fixed, table)["status"] == "over"


def test_the_host_is_told_to_record_the_cards_and_the_others_why_they_wait(phone, fixed) -> None:  # noqa: F811
    table, host_token, bora_token = race_waiting_for_paper_cards(fixed)
    version = snapshot(fixed, table)["version"]
    host: Page = phone("ko-KR", base_url=fixed)
    bora: Page = phone("en-US", base_url=fixed)
    open_as(host, table, host_token)
    open_as(bora, table, bora_token)
    for page in (host, bora):
        wait_version(page, version)
    expect(host.locator(".cm-status-title")).to_have_text("내 차례: 엎어 둔 카드를 기록하세요")
    expect(host.locator(".cm-status")).to_have_class(re.compile(r"\bmy-turn\b"))
    expect(bora.locator(".cm-status-title")).to_have_text("Waiting for 민수 to record the face-down cards")


def finished_race(base: str) -> tuple[str, str]:
    """A race of pyramid rolls only (drawn by the server) to its end, by four
    seats whose money then ties: the table and the host's token."""
    table, host = api_create_table(base, "민수", {})
    tokens = {"p1": host}
    for name in ("Bora", "지훈", "유나"):
        joined = call(base, "POST", f"/api/tables/{table}/players", {"name": name})["player"]
        tokens[joined["id"]] = joined["token"]
    send(base, table, host, {"type": "start"})
    for _ in range(200):
        view = snapshot(base, table)["view"]
        if view["phase"] == "over":
            return table, host
        send(base, table, tokens[view["current_player"]], {"type": "pyramid"})
    raise AssertionError("the race did not end")


def test_a_finished_race_ranks_ties_alike_and_keeps_the_total_in_sight(phone, fixed) -> None:  # noqa: F811
    table, host_token = finished_race(fixed)
    host: Page = phone("ko-KR", base_url=fixed)
    open_as(host, table, host_token)
    pad = host.locator("#results table.score-pad")
    expect(pad).to_be_visible()
    # The race's standings and the results sheet give every seat the same place.
    sheet = {row.locator("th").inner_text().split(". ")[1].removesuffix(" ▶"): row.locator("th").inner_text().split(".")[0]
             for row in pad.locator("tbody tr").all()}
    standings = host.locator(".cm-standing-list li")
    expect(standings).to_have_count(4)
    shown = {li.locator(".cm-name").inner_text(): li.locator(".cm-rank").inner_text().rstrip(".") for li in standings.all()}
    assert shown == sheet, (shown, sheet)
    ranks = list(sheet.values())
    assert len(set(ranks)) < len(ranks), f"the pyramid-only race was meant to end in a tie: {ranks}"
    # The ▶ on a row has its legend under the pad.
    expect(pad.locator("tbody th").filter(has_text="▶")).to_have_count(1)
    expect(host.locator("#results .notes")).to_contain_text("▶ 시작 플레이어")
    # The total column stays on screen however many legs the pad has.
    total = pad.locator("thead th").last
    expect(total).to_have_text("합계")
    box = total.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390, box


def test_a_die_in_the_tents_carries_its_camels_letter(phone, fixed) -> None:  # noqa: F811
    table, host_token = api_create_table(fixed, "민수", {"setup": POSITION_A})
    for name in ("Bora", "지훈"):
        call(fixed, "POST", f"/api/tables/{table}/players", {"name": name})
    send(fixed, table, host_token, {"type": "start"})
    send(fixed, table, host_token, {"type": "pyramid", "die": "blue", "value": 3})
    for locale, letter in (("ko-KR", "파"), ("en-US", "B")):
        page: Page = phone(locale, base_url=fixed)
        open_as(page, table, host_token)
        die = page.locator(".cm-tents .cm-die[data-die='blue']")
        expect(die.locator(".cm-die-letter")).to_have_text(letter)
        expect(die.locator(".cm-die-value")).to_have_text("3")
        # The letter sits on the die, as the camels' letters sit on the camels.
        inner, outer = die.locator(".cm-die-letter").bounding_box(), die.bounding_box()
        assert inner and outer and outer["x"] <= inner["x"] and inner["x"] + inner["width"] <= outer["x"] + outer["width"]
