"""The Korean particle helper (``web/i18n.js: particle``) and the `{x:이/가}`
placeholder of ``t()``: the particle follows the sound of the word before it,
for Hangul, numbers (read as Koreans say them) and Latin names and letters."""

from __future__ import annotations

import json

import pytest

from conftest import run_node

CASES: list[tuple[str, str, str]] = [
    # Hangul: the final consonant of the last syllable's code point.
    ("민준", "이/가", "이"), ("유나", "이/가", "가"), ("서연", "은/는", "은"),
    ("하나", "을/를", "를"), ("서울", "으로/로", "로"), ("3층", "으로/로", "으로"),
    ("부산", "으로/로", "으로"), ("철수", "과/와", "와"),
    # Numbers by their Korean reading: 칠, 오, 십, 이십, 백, 천, 영, 육, 구.
    ("7", "은/는", "은"), ("5", "을/를", "를"), ("10", "이/가", "이"), ("20", "을/를", "을"),
    ("100", "은/는", "은"), ("1,000", "을/를", "을"), ("0", "이/가", "이"), ("6", "으로/로", "으로"),
    ("9", "이/가", "가"), ("8", "으로/로", "로"), ("42", "이/가", "가"),
    # Letters by their Korean names: 지, 엘, 엠, 알, 에이.
    ("G", "이/가", "가"), ("L", "으로/로", "로"), ("M", "은/는", "은"), ("R", "을/를", "을"), ("A", "이/가", "가"),
    # Latin names by their usual Korean spelling: 샘, 빌, 잭, 케이트, 맥스, 테드.
    ("Sam", "이/가", "이"), ("Bill", "으로/로", "로"), ("Jack", "은/는", "은"), ("Kate", "은/는", "는"),
    ("Max", "이/가", "가"), ("Ted", "이/가", "가"),
    # Brackets and punctuation are not read; nothing readable keeps both forms.
    ("Sam (2)", "이/가", "가"), ('"민준"', "을/를", "을"), ("🙂", "이/가", "이(가)"),
]

_JS = """
import { particle, t, addStrings } from './web/i18n.js';
const cases = JSON.parse(process.env.CASES);
const got = cases.map(([w, p]) => particle(w, p));
addStrings('x', { en: { s: '{name:이/가} {n:을/를} {n}' } });
process.stdout.write(JSON.stringify({ got, t: t('x.s', { name: 'Sam', n: 1500 }) }));
"""


@pytest.fixture(scope="module")
def results() -> dict:
    return run_node(_JS, env={"CASES": json.dumps([c[:2] for c in CASES])})


@pytest.mark.parametrize(("i", "case"), list(enumerate(CASES)), ids=[f"{w}{p}" for w, p, _ in CASES])
def test_particle(results: dict, i: int, case: tuple[str, str, str]) -> None:
    word, pair, want = case
    assert results["got"][i] == want, f"{word} + {pair}"




def test_t_placeholder(results: dict) -> None:
    assert results["t"] == "Sam이 1,500을 1,500"
