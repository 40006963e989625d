"""The web's string tables read as data, for the tests: the platform's
``web/i18n/<lang>.json`` and each game's ``strings.js`` (no JavaScript engine
needed). The server words nothing itself: the history sends keys and values
(``engines.history.Part``), and the phones fill them in (``web/history.js``)."""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path


WEB = Path(__file__).resolve().parents[2] / "web"
LANGS = ("ko", "en")
#: Per language, key → string.
Strings = dict[str, dict[str, str]]


@cache
def strings(lang: str) -> dict[str, str]:
    """``web/i18n/<lang>.json`` (English for a language the app has not)."""
    lang = lang if lang in LANGS else "en"
    loaded: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
    return loaded


_TOKEN = re.compile(r"""
    (?P<space>\s+) | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)
  | (?P<name>[A-Za-z_$][\w$]*) | (?P<num>\d[\w.]*) | (?P<punct>\.\.\.|[{}()\[\]:,;=])
  | (?P<other>.)""", re.S | re.X)


def _tokens(src: str) -> list[tuple[str, str]]:
    return [(m.lastgroup or "", m.group()) for m in _TOKEN.finditer(src)
            if m.lastgroup not in ("space", "comment")]


def _unquote(tok: tuple[str, str]) -> str:
    kind, text = tok
    if kind != "str":
        return text
    if text[0] == "`":
        return text[1:-1]
    return str(ast.literal_eval(text))


def _object_at(toks: list[tuple[str, str]], i: int) -> tuple[dict[str, str], int]:
    """The flat ``{key: 'text', ...}`` literal whose ``{`` is ``toks[i]``; returns it
    and the index after its ``}``. Refuses what it cannot read (spreads, computed keys)."""
    assert toks[i][1] == "{"
    out: dict[str, str] = {}
    i += 1
    while toks[i][1] != "}":
        key, colon, value = toks[i], toks[i + 1], toks[i + 2]
        assert key[0] in ("str", "name") and colon[1] == ":", f"unreadable entry near {key[1]!r}"
        if value[1] == "{":
            raise ValueError("nested object")
        assert value[0] == "str", f"{key[1]}: not a plain string"
        out[_unquote(key)] = _unquote(value)
        i += 3
        if toks[i][1] == ",":
            i += 1
    return out, i + 1


def read_strings_js(path: Path) -> Strings:
    """A game's ``strings.js`` as the browser reads it, without a JavaScript
    engine: the ``ko`` and ``en`` object literals, found by name (``const ko
    = {`` or ``ko: {``), read entry by entry (``tests/web/test_strings.py``
    checks it against node's reading of every game's file)."""
    toks = _tokens(path.read_text("utf-8"))
    found: Strings = {}
    for i, (kind, text) in enumerate(toks[:-2]):
        if kind == "name" and text in LANGS and toks[i + 1][1] in (":", "=") and toks[i + 2][1] == "{":
            assert text not in found, f"{path}: two {text!r} objects"
            found[text], _ = _object_at(toks, i + 2)
    return found


@cache
def game_strings(game: str) -> Strings:
    """``web/games/<game>/strings.js``: the game's strings, which its module
    merges under ``<game>.`` (none for a game without a module)."""
    path = WEB / "games" / game / "strings.js"
    return read_strings_js(path) if re.fullmatch(r"[a-z][a-z0-9_]*", game) and path.is_file() else {}
