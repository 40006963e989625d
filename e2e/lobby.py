"""The one way e2e tests open a table through the screens: ``create_table`` on the
home screen and ``join`` by the table's link, in Korean or English."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

LABELS = {
    "ko": {"game": "게임", "name": "내 이름", "create": "테이블 만들기", "lobby": "대기실",
           "join_title": "테이블에 참가", "join": "참가하기", "start": "게임 시작"},
    "en": {"game": "Game", "name": "Your name", "create": "Create table", "lobby": "Lobby",
           "join_title": "Join the table", "join": "Join table", "start": "Start game"},
}


def title(game: dict[str, Any], lang: str) -> str:
    """A game's title (as GET /api/games lists it) in ``lang``."""
    t = game.get("title") or game["name"]
    return t if isinstance(t, str) else t.get(lang) or t["en"]


def create_table(page: Page, game: str | dict[str, Any], name: str, lang: str,
                 options: dict[str, str] | None = None) -> str:
    """Home screen: pick the game (its title, or its GET /api/games entry), set
    options by their labels, create. Returns the table id.

    ``options`` maps a field's label to a value: an option's label for a select,
    ``"on"`` for a checkbox, text for a number field.
    """
    lab = LABELS[lang]
    page.goto("/")
    page.get_by_label(lab["game"], exact=True).select_option(
        label=game if isinstance(game, str) else title(game, lang))
    if options:
        page.locator("details.options summary").click()
        for label, value in options.items():
            field = page.get_by_label(label, exact=True)
            kind = field.evaluate("e => e.tagName === 'SELECT' ? 'select' : e.type")
            if kind == "select":
                field.select_option(label=value)
            elif kind == "checkbox":
                field.set_checked(value == "on")
            else:
                field.fill(value)
    page.get_by_label(lab["name"], exact=True).fill(name)
    page.get_by_role("button", name=lab["create"]).click()
    expect(page.get_by_role("heading", name=lab["lobby"])).to_be_visible()
    m = re.fullmatch(r"/t/([A-Za-z0-9_-]+)", urlsplit(page.url).path)
    assert m, page.url
    return m.group(1)


def join(page: Page, url: str, name: str, lang: str) -> None:
    """Opens the table's link and joins it as ``name``."""
    lab = LABELS[lang]
    page.goto(url)
    expect(page.get_by_role("heading", name=lab["join_title"])).to_be_visible()
    page.get_by_label(lab["name"], exact=True).fill(name)
    page.get_by_role("button", name=lab["join"]).click()
    expect(page.get_by_role("heading", name=lab["lobby"])).to_be_visible()
