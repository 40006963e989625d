"""Every game package has the same core modules and imports nothing it may not."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from engines import registry, skeleton

ENGINES = Path(__file__).resolve().parents[2] / "engines"
CORE = {"__init__", "engine", "state", "options", "actions", "views", "describe", "schemas", "result", "fair",
        "legal", "stall"}
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


@pytest.mark.parametrize("game", registry.names())
def test_the_skeleton_names_the_packages_own_modules_and_last_phase(game: str) -> None:
    """``SkeletonEngine`` answers from the modules its engine names: they are
    the game's own package's, and the phase in which it offers nothing is the
    game's own ``state.OVER``."""
    engine = registry.get(game)
    assert isinstance(engine, skeleton.SkeletonEngine)
    for name in ("actions", "views", "result", "describe", "schemas", "options", "fair", "legal", "stall"):
        assert getattr(engine.modules, name) is importlib.import_module(f"engines.{game}.{name}"), name
    assert importlib.import_module(f"engines.{game}.state").OVER == skeleton.OVER
    assert engine.action_schemas is engine.modules.schemas.ACTION_SCHEMAS
