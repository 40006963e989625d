"""The server words nothing a phone shows in Korean (issue 40): the history
travels as keys and values (``engines.history.Part``) and the phone words it
(``web/history.js``), so no string the server's code holds is Korean, but a
game's one title on its engine (``title``, sent by ``GET /api/games``).
Docstrings may show Korean examples."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANGUL = re.compile(r"[\uAC00-\uD7A3]")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _titles(tree: ast.AST) -> set[int]:
    """The string constants of ``title = {...}`` (an engine's one title)."""
    out = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "title" for t in node.targets)
                and isinstance(node.value, ast.Dict)):
            out |= {id(v) for v in node.value.values}
    return out


def test_no_korean_words_in_the_servers_code() -> None:
    found = []
    for root in ("engines", "server"):
        for path in sorted((ROOT / root).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"))
            allowed = _docstrings(tree) | _titles(tree)
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:40]!r}" for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in allowed
                      and HANGUL.search(node.value)]
    assert found == []
