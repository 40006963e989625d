"""The home form sets every option a host may choose (issue 14): King Up!'s round
where 0 becomes 33, its No cards per player count and its character names, Camel
Up's racing colours and Count Up's tables of numbers, built from each game's
options schema, on a Korean and an English phone."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Locator, Page, expect

from e2e.camelup_helpers import snapshot
from e2e.test_screens import check_screen

TITLES = {"kingup": {"ko": "킹업!", "en": "King Up!"},
          "camelup": {"ko": "카멜업 2판", "en": "Camel Up (Second Edition)"},
          "countup": {"ko": "카운트 업", "en": "Count Up"}}
LABELS = {"ko": ("게임", "내 이름", "테이블 만들기", "대기실"), "en": ("Game", "Your name", "Create table", "Lobby")}


def open_options(page: Page, game: str, lang: str) -> None:
    page.goto("/")
    page.get_by_label(LABELS[lang][0], exact=True).select_option(label=TITLES[game][lang])
    page.locator("details.options > summary").click()


def group(page: Page, legend: str) -> Locator:
    return page.locator("fieldset").filter(has=page.locator("legend", has_text=legend))


def create(page: Page, server: str, lang: str) -> dict[str, Any]:
    _, name, button, lobby = LABELS[lang]
    page.get_by_label(name, exact=True).fill("민수" if lang == "ko" else "Sam")
    page.get_by_role("button", name=button).click()
    expect(page.get_by_role("heading", name=lobby)).to_be_visible()
    m = re.fullmatch(r"/t/([A-Za-z0-9_-]+)", urlsplit(page.url).path)
    assert m, page.url
    return snapshot(server, m.group(1))["options"]


def test_a_korean_host_sets_kingups_list_and_table_options(phone, server) -> None:
    page = phone("ko-KR")
    open_options(page, "kingup", "ko")
    page.get_by_label("0점이 33점이 되는 라운드", exact=True).select_option(label="2라운드")
    group(page, "인원별 반대 카드 수").get_by_label("4명", exact=True).fill("2")
    names = group(page, "캐릭터 이름")
    names.get_by_label("A", exact=True).fill("왕비")
    names.get_by_label("B", exact=True).fill("기사")
    assert not check_screen(page, "ko", "home-kingup-options")
    options = create(page, server, "ko")
    assert options["zeroTo33Round"] == 2
    assert options["noCardsPerPlayer"] == {"3": 4, "4": 2, "5": 2, "6": 2}
    assert options["characterNames"] == {"A": {"ko": "왕비"}, "B": {"ko": "기사"}}
    # The other games' list and table inputs read in Korean too.
    for game in ("camelup", "countup"):
        open_options(page, game, "ko")
        assert not check_screen(page, "ko", f"home-{game}-options")
    expect(group(page, "보너스 점수표").get_by_label("2라운드 · 1", exact=True)).to_have_value("2")
    expect(group(page, "위험구간 카드").get_by_role("button", name="카드 추가")).to_be_visible()


def test_an_english_host_sets_colours_and_number_tables(phone, server, games) -> None:
    page = phone("en-US")
    open_options(page, "camelup", "en")
    colours = group(page, "Racing camel colours")
    expect(colours.get_by_text("Choose 5.")).to_be_visible()
    colours.get_by_label("purple", exact=True).uncheck()
    colours.get_by_label("pink", exact=True).check()
    assert not check_screen(page, "en", "home-camelup-options")
    assert create(page, server, "en")["racingColours"] == ["blue", "green", "yellow", "red", "pink"]

    open_options(page, "countup", "en")
    bonus = group(page, "Bonus table")
    bonus.get_by_label("Round 1 · 5", exact=True).fill("4")
    zones = group(page, "Danger-zone cards")
    zones.get_by_role("button", name="Remove card 5").click()
    zones.get_by_role("button", name="Add a card").click()
    zones.get_by_label("Card 5 · 1", exact=True).fill("45")
    zones.get_by_label("Card 5 · 2", exact=True).fill("60")
    assert not check_screen(page, "en", "home-countup-options")
    options = create(page, server, "en")
    assert options["bonus"][0] == [1, 1, 1, 1, 4] and options["bonus"][1:] == [[2] * 5, [2] * 5, [3] * 5]
    assert options["dangerZones"] == [[1, 10], [11, 20], [21, 30], [31, 40], [45, 60]]
