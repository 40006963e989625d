"""The common refusal codes of ``engines.base``: one table, one translation each."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engines.base import COMMON_ERRORS, EngineError, refusal

WEB = Path(__file__).resolve().parents[2] / "web"


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_common_code_is_translated_by_the_platform(lang: str) -> None:
    strings = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert {f"error.{code}" for code in COMMON_ERRORS} <= set(strings)


@pytest.mark.parametrize("game", ["camelup", "kingup", "countup"])
def test_no_game_repeats_a_common_translation(game: str) -> None:
    text = (WEB / "games" / game / "strings.js").read_text(encoding="utf-8")
    keys = set(re.findall(r"'error\.(\w+)'", text))
    assert not keys & set(COMMON_ERRORS)


def test_refusal_uses_the_table() -> None:
    assert refusal("not_seated").message == COMMON_ERRORS["not_seated"]
    assert refusal("game_over", "The race is over.").message == "The race is over."
    with pytest.raises(KeyError):
        refusal("floor_full")
    assert isinstance(refusal("bad_action"), EngineError)
