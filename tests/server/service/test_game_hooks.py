"""A game brings its own results hooks: its BGG id and title on the engine,
its score pad columns in its web module (``web/games/<game>/pad.js``), so
the result sheet's server and screen name no game (issue 40)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engines import registry

ROOT = Path(__file__).resolve().parents[3]
GAMES = registry.names()


@pytest.mark.parametrize("path", ["server/service/results.py", "web/screens/results.js"])
def test_the_result_sheet_names_no_game(path: str) -> None:
    source = (ROOT / path).read_text("utf-8")
    assert [g for g in GAMES if re.search(rf"\b{g}\b", source)] == []


@pytest.mark.parametrize("game", GAMES)
def test_each_game_module_draws_its_score_pad(game: str) -> None:
    module = (ROOT / "web" / "games" / f"{game}.js").read_text("utf-8")
    assert re.search(rf"import \{{ scorePad \}} from './{game}/pad\.js';", module)
    assert re.search(r"^\s*scorePad,$", module, re.M)
    pad = (ROOT / "web" / "games" / game / "pad.js").read_text("utf-8")
    assert "export function scorePad(res, t)" in pad


def test_one_title_per_game() -> None:
    """The engine's title is the only one: the game's strings carry none."""
    for game in GAMES:
        strings = (ROOT / "web" / "games" / game / "strings.js").read_text("utf-8")
        assert not re.search(r"^\s*'?title'?:", strings, re.M), game
        engine = registry.get(game)
        assert engine is not None and set(engine.title) == {"ko", "en"}
