"""Words a phone shows, from the web modules themselves run in node (issue 33's
cosmetic findings): each check imports a module as the app does and asks it
for the text of one case."""

from __future__ import annotations

import re
from typing import Any

from conftest import run_node
from engines.camelup.describe import describe
from tests.words import say


def run(js: str) -> Any:
    """The JSON a module snippet writes to stdout (``out(value)``)."""
    prelude = "const out = (v) => process.stdout.write(JSON.stringify(v));\n"
    return run_node(prelude + js)


def test_a_sheet_entry_that_is_not_a_number_is_quoted_once() -> None:
    got = run("""
        import { addStrings, tIn } from './web/i18n.js';
        import STRINGS from './web/games/countup/strings.js';
        import { sheetProblems } from './web/games/countup/sheet.js';
        addStrings('countup', STRINGS);
        const check = { size: 5, distinct: true, range: [1, 50], refused: {} };
        const [p] = sheetProblems(['-3', '', '', '', ''], check, []);
        const words = {};
        for (const lang of ['ko', 'en']) words[lang] = tIn(lang, `countup.check.${p.code}`, p.params);
        out(words);
    """)
    assert got == {"ko": '"-3": 자연수만 적을 수 있어요.', "en": '"-3": only whole numbers can be written.'}


def test_odds_never_show_a_negative_zero() -> None:
    got = run("""
        import { signed } from './web/games/camelup/common.js';
        out([-0.004, -0, 0, 0.001, -0.21, 1.07].map(signed));
    """)
    assert got == ["0.00", "0.00", "0.00", "0.00", "−0.21", "+1.07"]


def test_camelup_says_leg_one_way_and_money_without_an_unexplained_ep() -> None:
    strings = run("""
        import { STRINGS } from './web/games/camelup/strings.js';
        out(STRINGS);
    """)
    assert [k for k, v in strings["ko"].items() if "구간" in v] == []
    assert [k for k, v in strings["en"].items() if re.search(r"\bEP\b", v)] == []
    assert strings["ko"]["bet.title"] == "레그 베팅 티켓"


def test_camelup_writes_every_amount_of_money_in_its_unit() -> None:
    """Issue 41 item 12: "Money 6" beside "£8 → £8". Every string that shows an
    amount of money writes the unit: £ in English, 파운드 in Korean."""
    strings = run("""
        import { STRINGS } from './web/games/camelup/strings.js';
        out(STRINGS);
    """)
    amounts = {"money", "status.my_money", "leg.money", "race.money", "summary.line", "figure.money.text"}
    for key in amounts:
        en, ko = strings["en"][key], strings["ko"][key]
        assert re.findall(r"£\{\w+\}", en) and not re.search(r"(?<!£)\{(n|old|new|before|after|money|value)\}", en), (key, en)
        assert "파운드" in ko, (key, ko)


def test_camelup_history_says_leg_one_way() -> None:
    line = describe({"type": "leg_bet_taken", "player": "p1", "camel": "red", "value": 5}, {"p1": "민준"})
    assert say([line], "ko") == ["민준: 빨강 레그 베팅 티켓 (5) 가져감"]
