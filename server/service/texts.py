"""The platform's strings as the server writes them (the history's platform
lines): the very dictionaries the phones load, ``web/i18n/<lang>.json``,
filled in as ``web/i18n.js: tIn`` fills them (``{name}`` the value,
``{name:이/가}`` the value and its Korean particle, ``engines/korean.py``).
One home for every platform string, whoever renders it."""

from __future__ import annotations

import ast
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from engines.korean import particle

#: The web app's sources (where the Dockerfile puts them: ``TABLEMATE_WEB_DIR``).
WEB = Path(os.environ.get("TABLEMATE_WEB_DIR") or Path(__file__).resolve().parents[2] / "web")
LANGS = ("ko", "en")
_FIELD = re.compile(r"\{(\w+)(?::([^{}]+))?\}")
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


def _value(v: Any) -> str:
    # As web/i18n.js: num() groups digits from 1,000 on, in both languages.
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def say(lang: str, key: str, params: dict[str, Any] | None = None, game: str | None = None) -> str:
    """The string ``key`` in ``lang`` with ``params`` filled in; English, then
    the key itself, where ``lang`` has none. With ``game``, the game's own
    string of that key comes first (as a game module's ``ctx.t``).

    >>> say("ko", "history.remove", {"by": "민지", "name": "Bo"})
    '민지님이 Bo님을 내보냈습니다.'
    >>> say("en", "history.reminder_min_s", {"by": "Mina", "m": 1, "s": 30})
    'Mina set the reminder for a late player: 1 min 30 s.'
    """
    lang = lang if lang in LANGS else "en"
    own = game_strings(game) if game else {}
    text = (own.get(lang, {}).get(key) or strings(lang).get(key) or own.get("en", {}).get(key)
            or strings("en").get(key) or key)
    if not params:
        return text

    def fill(m: re.Match[str]) -> str:
        name, pair = m.group(1), m.group(2)
        if name not in params:
            return m.group(0)
        value = _value(params[name])
        return value + particle(value, pair) if pair else value

    return _FIELD.sub(fill, text)


def render(lang: str, parts: list[tuple[str, dict[str, Any]]]) -> str:
    """A line made of several strings, one after another."""
    return " ".join(say(lang, key, params) for key, params in parts)
