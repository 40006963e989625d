"""The server's Korean particles (``engines/korean.py``) agree with the web's
(``web/i18n.js: particle``): the same cases, from the web's test."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

from engines import history, korean
from engines.countup import describe as countup_describe
from engines.korean import josa, nim, particle
from tests.web.test_particle import CASES


@pytest.mark.parametrize(("word", "pair", "want"), CASES, ids=[f"{w}{p}" for w, p, _ in CASES])
def test_particle_like_the_web(word: str, pair: str, want: str) -> None:
    assert particle(word, pair) == want


def test_numbers_and_names() -> None:
    assert [josa(n, "은/는") for n in (7, 2, 10, 1000, 33)] == ["7은", "2는", "10은", "1000은", "33은"]
    assert josa("3층", "으로/로") == "3층으로" and josa("왕좌", "으로/로") == "왕좌로"
    assert nim("Sam", "이/가") == "Sam님이" and nim("유나", "을/를") == "유나님을"


@pytest.mark.parametrize("module", [korean, history, countup_describe], ids=lambda m: m.__name__)
def test_doctests(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_history_lines_choose_particles_by_the_word() -> None:
    from engines.camelup.describe import describe as camelup
    from engines.kingup.describe import describe as kingup

    names = {"p1": "Sam", "p2": "민준", "p3": "유나"}
    placed = {"type": "placed", "player": "p1", "char": "M", "level": 3}
    assert kingup(placed, "ko", names).startswith("Sam님이 M을 3층(")
    moved = {"type": "moved", "player": "p2", "char": "G", "from": 2, "to": 3}
    assert kingup(moved, "ko", names).startswith("민준님이 G를 2층에서 3층(") and "으로 올렸습니다" in kingup(moved, "ko", names)
    crowned = {"type": "votes_revealed", "candidate": "L", "result": "crowned", "votes": {}}
    assert "L이 왕이 되었습니다" in kingup(crowned, "ko", names)
    out = {"type": "votes_revealed", "candidate": "A", "result": "eliminated", "votes": {"p3": "no"}, "next": "p3"}
    assert "A는 성에서" in kingup(out, "ko", names) and "유나님 차례" in kingup(out, "ko", names)
    partner = {"type": "partnership_formed", "player": "p2", "with": "p3"}
    assert camelup(partner, "ko", names) == "민준: 유나와 베팅 파트너십"
    assert camelup({**partner, "with": "p1"}, "ko", names) == "민준: Sam과 베팅 파트너십"
