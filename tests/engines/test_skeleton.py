"""Every game package has the same core modules and imports nothing it may not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engines import registry

ENGINES = Path(__file__).resolve().parents[2] / "engines"
CORE = {"__init__", "engine", "state", "options", "actions", "views", "describe", "schemas"}
BANNED = {"random", "time", "secrets", "flask", "flask_sock", "redis", "fakeredis", "server"}


@pytest.mark.parametrize("game", registry.names())
def test_core_modules(game: str) -> None:
    assert CORE <= {p.stem for p in (ENGINES / game).glob("*.py")}


@pytest.mark.parametrize("game", registry.names())
def test_imports_stay_inside_the_game(game: str) -> None:
    others = set(registry.names()) - {game}
    for path in (ENGINES / game).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.module == "random" and [a.name for a in node.names] == ["Random"]:
                    continue  # a seeded generator (Camel Up's race estimate), not global randomness
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                parts = module.split(".")
                assert parts[0] not in BANNED, f"{path.name} imports {module}"
                if parts[0] == "engines" and len(parts) > 1:
                    assert parts[1] not in others, f"{path.name} imports {module}"
