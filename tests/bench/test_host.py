"""bench/host.py runs and prints its three lines (no timing is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_host_prints_the_cost_of_waking_up() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench/host.py"), "--reps", "5"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    lines = out.splitlines()
    assert len(lines) == 3, out
    assert re.fullmatch(r"after no sleep: work [\d.]+ us, socket round trip [\d.]+ us", lines[0])
    for line, ms in zip(lines[1:], (1, 10), strict=True):
        assert re.fullmatch(rf"after {ms} ms asleep: work [\d.]+ us \([\d.]+x\), "
                            rf"socket round trip [\d.]+ us \([\d.]+x\)", line), line
