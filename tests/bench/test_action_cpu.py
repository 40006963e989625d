"""bench/action_cpu.py end to end on a tiny workload, with and without gevent's
monkey-patching (no timing is asserted: figures belong in docs/performance.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("extra", [[], ["--gevent"], ["--gevent", "--chains", "--games", "camelup", "--prefer", "pyramid"]])
def test_action_cpu_plays_and_prints_its_figures(extra: list[str]) -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench/action_cpu.py"), "--tables", "3",
                          "--actions", "20", *extra],
                         capture_output=True, text=True, timeout=120, check=True, cwd=ROOT).stdout
    found = re.search(r"3 tables, \d+ seats, (\d+) actions \(\d+ picks with nothing to play, 0 fan-outs lost, "
                      r"(\d+) draws made from the seats' links\)", out)
    assert found is not None, out
    assert re.search(r"server CPU per action: median [\d.]+ ms, mean [\d.]+ ms", out), out
    if "--chains" in extra:
        # Every roll waited for each live seat's link, and was made from them.
        assert int(found.group(2)) == int(found.group(1)) > 0, out
        assert re.search(r"pyramid: \d+ actions", out), out
    else:
        assert found.group(1) == "20" and found.group(2) == "0", out
