"""Every visible string exists in Korean and English, and every error code the
server or an engine can send has a text a phone can show.

Where strings live (web/games/README.md): the platform's UI in ``web/i18n/*.json``,
each game's UI and history lines in ``web/games/<game>/strings.js`` (merged under
``<game>.``); the server sends the history as their keys (``web/history.js`` words
them). The client translates an error envelope's code from ``<game>.error.<code>``,
then ``error.<code>`` (``web/i18n.js: errorText``).

Codes are read from the Python sources with ``ast`` rather than imported, so the
check follows refactors of ``server/`` and ``engines/``: any literal passed where
a function or exception takes a parameter called ``code``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.tables import Strings
from tests.web.tables import read_strings_js as game_strings_regex

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
LANGS = ("ko", "en")
GAME_FILES = {p.parent.name: p for p in sorted((WEB / "games").glob("*/strings.js"))}
NODE = shutil.which("node")


# --- reading the dictionaries -------------------------------------------------

def platform_strings() -> Strings:
    return {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8")) for lang in LANGS}


# Imports each strings.js and prints the exported {ko, en} object (a module may
# export it as default or by name). The repo's package.json says "type": "module".
_DUMP_JS = """
import { pathToFileURL } from 'node:url';
const files = JSON.parse(process.env.STRINGS_FILES);
const out = {};
for (const [game, file] of Object.entries(files)) {
  const mod = await import(pathToFileURL(file).href);
  out[game] = [mod.default, ...Object.values(mod)].find((v) => v && typeof v === 'object' && v.ko && v.en) ?? null;
}
process.stdout.write(JSON.stringify(out));
"""


def game_strings_node() -> dict[str, Strings]:
    assert NODE
    env = {**os.environ, "STRINGS_FILES": json.dumps({g: str(p) for g, p in GAME_FILES.items()})}
    out = subprocess.run([NODE, "--input-type=module", "-e", _DUMP_JS], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def game_strings() -> dict[str, Strings]:
    if NODE:
        return game_strings_node()
    return {g: game_strings_regex(p) for g, p in GAME_FILES.items()}


# --- collecting error codes ---------------------------------------------------

def _py_files() -> Iterator[Path]:
    for top in ("server", "engines"):
        yield from sorted((ROOT / top).rglob("*.py"))


def _call_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _code_param(fn: ast.FunctionDef) -> int | None:
    """Position of the parameter named ``code`` (after self/cls), if any."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    return params.index("code") if "code" in params else None


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _is_message(node: ast.expr) -> bool:
    """A human sentence: a literal or f-string with a space in its text."""
    if isinstance(node, ast.JoinedStr):
        return any(" " in (_str(v) or "") for v in node.values)
    return " " in (_str(node) or "")


def error_codes(sources: dict[str, str]) -> dict[str, set[str]]:
    """code -> the files (relative paths) that can send it, from every literal passed
    as a ``code`` parameter: ``EngineError("code", ...)``, ``ServiceError(kind, "code", ...)``,
    any helper or subclass taking ``code``, ``code="..."`` keywords and defaults, and the
    ``{"code": "..."}`` envelopes and ``codes = {status: "..."}`` tables built by hand,
    and ``("code", "A message.")`` pairs raised later.
    (A table's join code is also called ``code``: ``doc["code"]`` is not an error code.)"""
    trees = {name: ast.parse(src, name) for name, src in sources.items()}
    takers: dict[str, int] = {"EngineError": 0, "ServiceError": 1}
    bases: dict[str, list[str]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = [n for b in node.bases if (n := _call_name(b))]
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        pos = _code_param(item)
                        if pos is not None:
                            takers[node.name] = pos
            elif isinstance(node, ast.FunctionDef) and node.name != "__init__":
                pos = _code_param(node)
                if pos is not None:
                    takers.setdefault(node.name, pos)
    # A subclass without its own __init__ takes the code where its base does.
    for _ in range(len(bases)):
        for cls, parents in bases.items():
            for parent in parents:
                if cls not in takers and parent in takers:
                    takers[cls] = takers[parent]

    found: dict[str, set[str]] = {}

    def add(code: str | None, where: str) -> None:
        if code is not None:
            found.setdefault(code, set()).add(where)

    for where, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                pos = takers.get(_call_name(node.func) or "")
                if pos is not None and len(node.args) > pos:
                    add(_str(node.args[pos]), where)
                for kw in node.keywords:
                    if kw.arg == "code":
                        add(_str(kw.value), where)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args
                named = args.posonlyargs + args.args
                for arg, default in zip(named[len(named) - len(args.defaults):], args.defaults, strict=True):
                    if arg.arg == "code":
                        add(_str(default), where)
                for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                    if arg.arg == "code":
                        add(_str(kw_default), where)
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if key is not None and _str(key) == "code":
                        add(_str(value), where)
            elif isinstance(node, ast.Tuple) and len(node.elts) == 2 and _is_message(node.elts[1]):
                # `("not_five", "Write exactly 5 numbers.")`: a (code, message) pair
                # raised later as `EngineError(*pair)` (Count Up's sheet problems).
                code = _str(node.elts[0])
                if code and re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", code):
                    add(code, where)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                    isinstance(t, ast.Name) and t.id == "codes" for t in node.targets):
                # `codes = {404: "not_found", ...}` (status -> code)
                for value in node.value.values:
                    add(_str(value), where)
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "codes"
                    and len(node.args) == 2):
                # `codes.get(status, "http_error")`: the fallback code
                add(_str(node.args[1]), where)
    return found


def project_codes() -> dict[str, set[str]]:
    return error_codes({str(p.relative_to(ROOT)): p.read_text("utf-8") for p in _py_files()})


def _game_of(path: str) -> str | None:
    """``engines/<game>/...`` -> ``<game>``; the server and shared engine code -> None."""
    parts = Path(path).parts
    return parts[1] if parts[0] == "engines" and len(parts) > 2 else None


# --- the tests ----------------------------------------------------------------

def _lang_gaps(d: Strings) -> dict[str, list[str]]:
    keys = set().union(*(d[lang].keys() for lang in LANGS))
    return {lang: sorted(keys - d[lang].keys()) for lang in LANGS if keys - d[lang].keys()}


def _empty(d: Strings) -> list[str]:
    return sorted(f"{lang}:{k}" for lang in LANGS for k, v in d[lang].items() if not isinstance(v, str) or not v.strip())


# `{name}` or `{name:이/가}` (the value with its Korean particle, web/i18n.js: t).
_PARAM = re.compile(r"\{(\w+)(?::[^{}]+)?\}")


def _param_gaps(d: Strings) -> list[str]:
    """Keys whose ``{param}`` placeholders differ between ko and en (a dropped
    ``{name}`` is a sentence that silently loses who it is about)."""
    return sorted(k for k in d["ko"].keys() & d["en"].keys()
                  if set(_PARAM.findall(d["ko"][k])) != set(_PARAM.findall(d["en"][k])))


def test_platform_strings_in_both_languages() -> None:
    d = platform_strings()
    assert _lang_gaps(d) == {}
    assert _empty(d) == []
    assert _param_gaps(d) == []


@pytest.mark.parametrize("game", sorted(GAME_FILES))
def test_game_strings_in_both_languages(game: str) -> None:
    d = game_strings()[game]
    assert d is not None, f"{GAME_FILES[game]} exports no {{ko, en}} object"
    assert _lang_gaps(d) == {}
    assert _empty(d) == []
    assert _param_gaps(d) == []


# A sentence's last word, before its closing punctuation: the Korean speech level.
_SENTENCE_END = re.compile(r"([가-힣]+)[.!?)…]*(?=\s|$)")


def _register_slips(d: Strings) -> list[str]:
    """Korean keys whose sentences leave the app's two speech levels: the screens
    (buttons, notices, errors, the fair-dice lines) speak polite 해요체 ("끝났어요"),
    the history, a record of the table, formal 합니다체 ("참가했습니다"). One string
    mixing both, or an error in 합니다체 beside 150 in 해요체, reads as two voices."""
    slips = []
    for key, text in d["ko"].items():
        history = key.startswith("history.") or ".history." in key
        for word in _SENTENCE_END.findall(text):
            formal = word.endswith(("니다", "니까"))
            # "세요" (please do) belongs to both levels.
            polite = word.endswith("요") and not word.endswith("세요")
            if (history and polite) or (not history and formal):
                slips.append(f"{key}: {text}")
                break
    return sorted(slips)


def test_korean_keeps_one_speech_level_per_kind() -> None:
    assert _register_slips(platform_strings()) == []
    for game, d in game_strings().items():
        assert _register_slips(d) == [], game
    assert _register_slips({"ko": {"error.x": "끝났습니다.", "history.y": "쉬어요.",
                                   "history.z": "참가했습니다. 다시 오세요.", "a.b": "끝났어요 ({n})."}}) == [
        "error.x: 끝났습니다.", "history.y: 쉬어요."]

def test_every_error_code_has_a_text() -> None:
    platform = platform_strings()
    games = game_strings()
    missing = []
    for code, files in sorted(project_codes().items()):
        key = f"error.{code}"
        for where in sorted(files):
            game = _game_of(where)
            homes = [platform] + ([games[game]] if game in games else [])
            for lang in LANGS:
                if not any(key in home[lang] for home in homes):
                    missing.append(f"{code} ({where}, {lang})")
    assert missing == [], "error codes without a text in web/i18n or the game's strings.js"


def test_codes_are_found() -> None:
    """The collector still sees the codes it must (a refactor that hides them
    would make the test above pass on nothing)."""
    codes = project_codes()
    for code in ("table_not_found", "bad_token", "invalid_payload", "bad_options", "not_found",
                 "http_error", "internal", "invalid_json", "not_your_turn", "game_over"):
        assert code in codes, code
    assert {_game_of(f) for files in codes.values() for f in files} >= {None, *GAME_FILES}


def test_collector_forms() -> None:
    src = '''
class EngineError(ValueError):
    def __init__(self, code: str, message: str) -> None: ...
class Refused(EngineError): ...
class ServiceError(Exception):
    def __init__(self, kind: str, code: str, message: str) -> None: ...
def refuse(code: str, message: str) -> EngineError: ...
def validate(value, key, code="d_default"): ...
def _(x):
    """EngineError("not_in_docstrings", "...")"""
    raise EngineError("a_engine", f"{x}")
    raise ServiceError("invalid", "b_api", "m")
    raise ServiceError(kind="invalid", code="c_kw", message="m")
    raise Refused("e_subclass", "m")
    raise refuse("f_helper", "m")
    raise ValueError("not_a_code")
    send({"error": {"code": "g_envelope", "message": "m"}})
    codes = {404: "h_table"}
    code = codes.get(500, "i_fallback")
    raise EngineError(x.code, "m")
    join = doc.get("code")
    problems = [("j_pair", f"Write {x} numbers."), ("leg_bet", "finish_bet"), ("Not", "a code")]
'''
    found = set(error_codes({"server/x.py": src}))
    assert found == {"a_engine", "b_api", "c_kw", "d_default", "e_subclass", "f_helper",
                     "g_envelope", "h_table", "i_fallback", "j_pair"}


def test_regex_reader_on_forms() -> None:
    src = """// a comment: { not: 'this' }
/** @type {Record<string, string>} */
const ko = {
  title: '카운트 업', // trailing
  'a.b': "it's {n}",
  /* block */ "c": 'x\\'y',
};
export const STRINGS = { ko, en: { title: `Count Up`, 'a.b': 'x', c: 'y', } };
"""
    p = Path(os.environ.get("TMPDIR", "/tmp")) / f"strings-{os.getpid()}.js"
    p.write_text(src, "utf-8")
    try:
        d = game_strings_regex(p)
    finally:
        p.unlink()
    assert d == {"ko": {"title": "카운트 업", "a.b": "it's {n}", "c": "x'y"},
                 "en": {"title": "Count Up", "a.b": "x", "c": "y"}}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_regex_reader_agrees_with_node() -> None:
    """The fallback for machines without node reads the real files as node does."""
    assert {g: game_strings_regex(p) for g, p in GAME_FILES.items()} == game_strings_node()
