"""Korean as the family read it (issue 41 item 13): one spelling of 님 (no space)
in every Korean string, the history's lines included (``history.*`` of
web/i18n/ko.json and of each game's strings.js), and a wait said as Korean
says a time on a clock."""

from __future__ import annotations

import re

from tests.web.test_strings import game_strings, platform_strings


def korean_strings() -> dict[str, str]:
    out = {f"platform:{k}": v for k, v in platform_strings()["ko"].items()}
    for game, strings in game_strings().items():
        out.update({f"{game}:{k}": v for k, v in strings["ko"].items()})
    return out


def test_nim_is_written_one_way() -> None:
    spaced = {k: v for k, v in korean_strings().items() if re.search(r"\S 님", v)}
    assert spaced == {}


def test_a_wait_reads_as_korean() -> None:
    """"유나 0:54째 기다리는 중" read as the 54th of something."""
    text = platform_strings()["ko"]["stall.waiting"]
    assert "째" not in text
    assert text.replace("{time}", "0:54") == "기다린 지 0:54"
