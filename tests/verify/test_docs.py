"""docs/fairness.md's "by hand" lines run as written, on a real proof."""

from __future__ import annotations

import re

from conftest import ROOT
from tests.verify import tables


def test_the_by_hand_check_runs() -> None:
    text = (ROOT / "docs" / "fairness.md").read_text("utf-8")
    by_hand = text[text.index("### By hand"):]
    code = re.search(r"```python\n(.*?)```", by_hand, re.S)
    assert code is not None
    proof = tables.proof()
    exec(code.group(1), {"proof": proof})  # asserts inside: the first draw replays
    proof["scopes"][0]["outcomes"][0]["draws"][0]["result"] = "nothing"
    try:
        exec(code.group(1), {"proof": proof})
    except AssertionError:
        return
    raise AssertionError("the by-hand check passed an altered draw")
