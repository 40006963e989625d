"""The history in words as a phone shows it, for the tests: the server sends
string keys and values (``engines.history.Part``); this runs the web's own
wording (``web/history.js`` over ``web/i18n.js`` and the game's
``strings.js``) in node, so the tests read the one Korean particle
implementation and the one home of every string."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from conftest import run_node
from engines.history import Part
from tests.web.tables import LANGS, game_strings, strings

_JS = """
import { readFileSync } from 'node:fs';
import { addDict, addStrings } from './web/i18n.js';
import { lineText, roundLabel, words } from './web/history.js';
const job = JSON.parse(readFileSync(0, 'utf-8'));
for (const l of ['ko', 'en']) addDict(l, JSON.parse(readFileSync(`./web/i18n/${l}.json`, 'utf-8')));
for (const game of job.games) {
  const mod = await import(`./web/games/${game}/strings.js`);
  addStrings(game, [mod.default, ...Object.values(mod)].find((v) => v && typeof v === 'object' && v.ko && v.en));
}
const out = job.items.map((it) => {
  if (it.lines) return it.lines.map((parts) => parts.map((p) => words(it.lang, p)).join(' '));
  const page = it.page;
  const several = (page.games || 1) > 1;
  for (const r of page.rounds || []) {
    r.label = roundLabel(r, it.game, several, it.lang);
    for (const e of r.entries) e.text = lineText(e, page.names || {}, it.lang);
  }
  return page;
});
process.stdout.write(JSON.stringify(out));
"""

GAMES = ("camelup", "countup", "kingup")


def _run(items: list[dict[str, Any]]) -> list[Any]:
    out: list[Any] = run_node(_JS, stdin=json.dumps({"games": GAMES, "items": items}))
    return out


def _game(page: dict[str, Any]) -> str:
    """The game whose strings the page's lines use (its round headings too)."""
    keys = (str(p["key"]) for r in page.get("rounds", ()) for e in r["entries"] for p in e["parts"])
    return next((k.split(".")[0] for k in keys if k.split(".")[0] in GAMES), "")


def worded(page: dict[str, Any], lang: str, game: str | None = None) -> dict[str, Any]:
    """``page`` (GET .../history) with each group's ``label`` and each entry's
    ``text`` as a phone in ``lang`` shows them (``game``: by default, the one
    whose keys the lines use)."""
    item = {"page": copy.deepcopy(page), "lang": lang, "game": _game(page) if game is None else game}
    result: dict[str, Any] = _run([item])[0]
    return result


def say(lines: list[list[Part]], lang: str) -> list[str]:
    """Lines of parts (``Engine.describe``, ``history_lines``) in words."""
    result: list[str] = _run([{"lines": lines, "lang": lang}])[0]
    return result


def say_both(lines: list[list[Part]]) -> dict[str, list[str]]:
    """``say`` in Korean and English, in one run of node."""
    ko, en = _run([{"lines": lines, "lang": "ko"}, {"lines": lines, "lang": "en"}])
    return {"ko": ko, "en": en}


def texts(page: dict[str, Any], lang: str) -> list[str]:
    """Every line of ``page`` in words, oldest first."""
    return [e["text"] for r in worded(page, lang)["rounds"] for e in r["entries"]]


_FIELD = re.compile(r"\{(\w+)(?::[^{}]+)?\}")


def _string(lang: str, key: str) -> str | None:
    game, _, rest = key.partition(".")
    own = game_strings(game)
    if own:
        return own.get(lang, {}).get(rest)
    return strings(lang).get(key)


def check_parts(parts: list[Part]) -> None:
    """``parts`` are what a phone can word, without running it: every key is
    in both languages' tables (the platform's, or the game's under its
    prefix), every field of those strings is given, and every value is
    plain, a part, a list of values or ``{"and": [...]}``."""
    assert isinstance(parts, list) and parts, parts
    json.dumps(parts)
    for p in parts:
        _check(p)


def _check(p: Any) -> None:
    assert isinstance(p, dict) and set(p) == {"key", "params"}, p
    for lang in LANGS:
        text = _string(lang, p["key"])
        assert text is not None, f"{p['key']}: no {lang} string"
        unfilled = {m.group(1) for m in _FIELD.finditer(text)} - set(p["params"])
        assert not unfilled, f"{p['key']} ({lang}) leaves {unfilled} unfilled"
    for v in p["params"].values():
        _check_value(v)


def _check_value(v: Any) -> None:
    if isinstance(v, list):
        for x in v:
            _check_value(x)
    elif isinstance(v, dict):
        if "key" in v:
            _check(v)
        else:
            assert set(v) == {"and"} and isinstance(v["and"], list), v
            for x in v["and"]:
                _check_value(x)
    else:
        assert isinstance(v, str | int) and not isinstance(v, bool), v


def describe_in(engine: Any, event: dict[str, Any], lang: str, names: dict[str, str]) -> str:
    """One event as a phone in ``lang`` words the engine's parts for it."""
    return say([engine.describe(event, names)], lang)[0]
