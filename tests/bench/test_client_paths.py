"""bench/resp.py, bench/wsread.py, bench/idle_floor.py, bench/spawn.py,
bench/codec.py and bench/seal.py end to end on tiny counts (no timing is asserted: figures
belong in docs/performance.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(script: str, *args: str) -> str:
    return subprocess.run([sys.executable, str(ROOT / script), *args], capture_output=True, text=True,
                          timeout=120, check=True, cwd=ROOT).stdout


def test_resp_bench_times_both_clients() -> None:
    out = run("bench/resp.py", "--calls", "50", "--rounds", "1")
    assert re.search(r"commit script \(3 KB document\), client CPU per call: "
                     r"redis-py [\d.]+ µs, lean [\d.]+ µs \([\d.]+×\)", out), out
    assert re.search(r"change message \(3 KB document\), client CPU per message: "
                     r"redis-py [\d.]+ µs, lean [\d.]+ µs \([\d.]+×\)", out), out


def test_wsread_bench_times_both_paths() -> None:
    out = run("bench/wsread.py", "--frames", "50", "--rounds", "1")
    for name in ("ping", "action"):
        assert re.search(rf"reading a phone's {name} frame, CPU per frame: library [\d.]+ µs, "
                         rf"whole-frame path [\d.]+ µs \([\d.]+×\)", out), out


def test_idle_floor_bench_prints_the_servers_cpu() -> None:
    out = run("bench/idle_floor.py", "--phones", "20", "--seconds", "0.5")
    assert re.search(r"picows on asyncio, 20 idle phones, a beat after 2 s of silence, a ping every 8 s: "
                     r"server CPU [\d.]+ % of a core", out), out


def test_spawn_bench_times_both_ways() -> None:
    out = run("bench/spawn.py", "--n", "50", "--rounds", "1")
    assert re.search(r"round 1: threading\.Thread\(\.\.\.\)\.start\(\): [\d.]+ µs a start", out), out
    assert re.search(r"round 1: offload\.start \(a bare greenlet\): [\d.]+ µs a start", out), out


def test_codec_bench_dumps_every_game() -> None:
    out = run("bench/codec.py", "--steps", "5", "--rounds", "1")
    for game in ("camelup", "countup", "kingup"):
        assert re.search(rf"{game}: \d+ states, dumped in turn: [\d.]+ µs a state", out), out


def test_seal_bench_seals_and_opens_a_sheet_and_a_card() -> None:
    out = run("bench/seal.py", "--n", "20", "--rounds", "1", "--seats", "3")
    for row in (r"sheet \[[\d, ]+\]: seal", "sheet: open", "sheet as logged: hide_action", "sheet as logged: shown",
                "3 sheets in the state: hide_state, per sheet", "face-down card 'blue': seal",
                "face-down card: open", "card as logged: hide_action", "card as logged: shown"):
        assert re.search(rf"round 1: {row}: [\d.]+ µs", out), (row, out)
