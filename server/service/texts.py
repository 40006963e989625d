"""The platform's strings as the server writes them (the history's platform
lines): the very dictionaries the phones load, ``web/i18n/<lang>.json``,
filled in as ``web/i18n.js: tIn`` fills them (``{name}`` the value,
``{name:이/가}`` the value and its Korean particle, ``engines/korean.py``).
One home for every platform string, whoever renders it."""

from __future__ import annotations

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


@cache
def strings(lang: str) -> dict[str, str]:
    """``web/i18n/<lang>.json`` (English for a language the app has not)."""
    lang = lang if lang in LANGS else "en"
    loaded: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
    return loaded


def _value(v: Any) -> str:
    # As web/i18n.js: num() groups digits from 1,000 on, in both languages.
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def say(lang: str, key: str, params: dict[str, Any] | None = None) -> str:
    """The string ``key`` in ``lang`` with ``params`` filled in; English, then
    the key itself, where ``lang`` has none.

    >>> say("ko", "history.remove", {"by": "민지", "name": "Bo"})
    '민지님이 Bo님을 내보냈습니다.'
    >>> say("en", "history.reminder_min_s", {"by": "Mina", "m": 1, "s": 30})
    'Mina set the reminder for a late player: 1 min 30 s.'
    """
    text = strings(lang).get(key) or strings("en").get(key) or key
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
