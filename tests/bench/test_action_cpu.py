"""bench/action_cpu.py end to end on a tiny workload, with and without gevent's
monkey-patching (no timing is asserted: figures belong in docs/performance.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("extra", [[], ["--gevent"]])
def test_action_cpu_plays_and_prints_its_figures(extra: list[str]) -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench/action_cpu.py"), "--tables", "3",
                          "--actions", "20", *extra],
                         capture_output=True, text=True, timeout=120, check=True, cwd=ROOT).stdout
    assert re.search(r"3 tables, \d+ seats, 20 actions \(\d+ picks with nothing to play, 0 fan-outs lost\)", out), out
    assert re.search(r"server CPU per action: median [\d.]+ ms, mean [\d.]+ ms", out), out
