"""Calls only go down (docs/architecture.md, "server/"): the store imports
nothing of the layers above it, and one action's decision holds no client."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_the_store_imports_nothing_above_it() -> None:
    for path in sorted((SERVER / "store").glob("*.py")):
        above = {m for m in imported(path) if m.startswith(("server.service", "server.live", "server.http"))}
        assert not above, f"{path.name} reaches up: {sorted(above)}"


def test_the_decision_holds_no_client() -> None:
    """``decide`` is given what it reads (``Tx``, ``Context``) and gives a
    ``Commit``: it imports no Redis, no socket, none of the store's I/O."""
    mods = imported(SERVER / "service" / "decide.py")
    io = {m for m in mods if m.split(".")[0] in {"redis", "socket", "gevent", "flask", "threading"}
          or m.startswith(("server.store.store", "server.store.writes", "server.store.resp", "server.store.listen",
                           "server.store.commit", "server.live", "server.runtime"))}
    assert not io, sorted(io)
    assert "server.store.Commit" in mods and "server.store.Tx" in mods
