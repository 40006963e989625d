"""Benchmark of the Camel Up odds solver (issue 6).

    .venv/bin/python bench/odds.py            # full run, pinned to one core
    .venv/bin/python bench/odds.py --quick    # fewer repeats, no 6-dice brute force
    .venv/bin/python bench/odds.py --analysis # only the full analysis, now and before
    .venv/bin/python bench/odds.py --analysis --before REV   # "before" = git revision REV
    .venv/bin/python bench/odds.py --analysis --rounds 5     # now and before alternated 5 times
    .venv/bin/python bench/odds.py --accuracy # the race estimate's error, now and before

Prints, per standard position, the median CPU time (and, for the ``auto``
column, the median wall time too: on a shared machine the wall time also
counts the time other processes held the core) of the exact leg solver for
6, 5, 4 and 3 dice in the pyramid (NumPy and plain-Python back ends, and the
``auto`` choice the app uses), the plain brute-force enumeration of the
tests (tests/engines/camelup/test_odds.py) in the same run and the ratio;
then all spectator what-ifs and 10,000 simulated races. Every fast result is
checked against the brute force before it is timed.

Last, the full analysis the odds panel asks for after a roll (``odds.analyse``:
leg odds, ticket values, every spectator what-if, the 10,000-race estimate)
at golden A with 6, 5 and 4 dice, as lines ``full analysis, golden A (start),
6 dice: N ms`` (median CPU ms), each next to the same analysis by the code of
an older revision (``--before``, by default 0e63441, the last commit before
issue 16's analysis work): its ``engines`` package is taken with ``git
archive`` into a temporary directory and timed in a child process pinned to
the same core, the same way, right after. The child also returns its exact
answers (leg odds, tickets, what-ifs), which must equal today's. ``--before
none`` skips it (e.g. outside a git checkout).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# One core, one thread: pin before NumPy loads its thread pools.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
if "--cpu" in sys.argv:
    _CPU = int(sys.argv[sys.argv.index("--cpu") + 1])
else:
    _CPU = max(os.sched_getaffinity(0))
os.sched_setaffinity(0, {_CPU})

import numpy as np  # noqa: E402

from engines.camelup import odds, odds_np, odds_sim  # noqa: E402
from tests.engines.camelup import golden  # noqa: E402

#: The last commit before issue 16's analysis work: one solve per what-if, a
#: second solve for the race estimate, the general simulator.
BEFORE_ISSUE_16 = "0e63441"

DICE = ["blue", "green", "yellow", "red", "purple", "grey"]
POSITIONS: dict[str, dict[str, Any]] = {
    "golden A (start)": {"track": golden.TRACK_A},
    "golden B": {"track": golden.TRACK_B},
    "tiles": {
        "track": {
            4: ["blue", "green"],
            5: ["red"],
            6: ["yellow", "purple"],
            12: ["black"],
            14: ["white"],
        },
        "tiles": {7: ["p1", "cheer"], 9: ["p2", "boo"], 11: ["p3", "cheer"]},
    },
    "crazy carrying racers": {
        "track": {1: ["yellow"], 3: ["black", "purple", "green"], 6: ["white", "blue"], 7: ["red"]},
        "tiles": {9: ["p1", "boo"]},
    },
    "race can end this leg": {
        "track": {
            11: ["purple"],
            12: ["green", "yellow"],
            13: ["blue"],
            14: ["red", "white"],
            3: ["black"],
        },
        "tiles": {16: ["p2", "cheer"]},
    },
}


def load_oracle() -> Callable[..., Any]:
    path = ROOT / "tests" / "engines" / "camelup" / "test_odds.py"
    spec = importlib.util.spec_from_file_location("odds_oracle", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    oracle: Callable[..., Any] = module.oracle
    return oracle


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """Median (CPU ms, wall ms) over ``repeats`` runs after one warm-up."""
    fn()  # warm-up: imports, caches
    cpu, wall = [], []
    gc.collect()
    gc.disable()  # as timeit does: a collection in the middle is noise
    try:
        for _ in range(repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
    finally:
        gc.enable()
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


def median_ms(fn: Callable[[], Any], repeats: int) -> float:
    return timed(fn, repeats)[0]


def fresh_analysis(board: dict[str, Any]) -> None:
    """``odds.analyse`` for a first viewer: its cache of the viewer-independent
    part (leg solve and race estimate) emptied first."""
    odds._shared.cache_clear()
    odds.analyse(board)


#: Run by ``python -c`` in a checkout of another revision's ``engines``:
#: times that revision's ``odds.analyse`` as ``timed`` does (one warm-up,
#: collector off, median CPU ms; its result cache, if it has one, emptied
#: before each run) and prints the figures and its exact answers as JSON.
_CHILD = """
import gc, json, os, statistics, sys, time
sys.path.insert(0, sys.argv[1])
os.sched_setaffinity(0, {int(sys.argv[2])})
from engines.camelup import odds
board, repeats = json.loads(sys.stdin.read())
def run():
    if hasattr(odds, "_shared"):
        odds._shared.cache_clear()
    return odds.analyse(board)
first = run()
cpu, wall = [], []
gc.collect()
gc.disable()
for _ in range(repeats):
    c0, w0 = time.process_time(), time.perf_counter()
    run()
    cpu.append(time.process_time() - c0)
    wall.append(time.perf_counter() - w0)
gc.enable()
exact = {"leg": first["leg"], "tileSpots": first["tileSpots"]}
print(json.dumps([statistics.median(cpu) * 1000, statistics.median(wall) * 1000, exact]))
"""

#: Run like ``_CHILD``: that revision's race estimates for a list of seeds.
_CHILD_RACES = """
import json, sys
sys.path.insert(0, sys.argv[1])
from engines.camelup import odds
board, races, seeds = json.loads(sys.stdin.read())
out = []
for seed in seeds:
    race = odds.race_odds(board, races=races, seed=seed)
    out.append([race.winner, race.loser, race.winner_error, race.loser_error])
print(json.dumps(out))
"""


def export_engines(rev: str, into: Path) -> None:
    """``engines/`` of git revision ``rev`` unpacked under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "engines"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def analysis_at(
    tree: Path, board: dict[str, Any], repeats: int, cpu: int
) -> tuple[float, float, Any]:
    """(median CPU ms, median wall ms, exact answers) of ``odds.analyse`` by
    the ``engines`` under ``tree``, in a child process on core ``cpu``."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tree), str(cpu)],
        input=json.dumps([board, repeats]),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    cpu_ms, wall_ms, exact = json.loads(done.stdout)
    return cpu_ms, wall_ms, exact


def race_estimates(
    board: dict[str, Any], races: int, seeds: range, tree: Path | None
) -> list[tuple[dict[str, float], dict[str, float], dict[str, float], dict[str, float]]]:
    """(winner, loser, winner error, loser error) of ``odds.race_odds`` per
    seed: today's, or those of the ``engines`` under ``tree`` (a child)."""
    if tree is None:
        out = []
        for seed in seeds:
            race = odds.race_odds(board, races=races, seed=seed)
            out.append((race.winner, race.loser, race.winner_error, race.loser_error))
        return out
    done = subprocess.run(
        [sys.executable, "-c", _CHILD_RACES, str(tree)],
        input=json.dumps([json.loads(json.dumps(board)), races, list(seeds)]),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    return [tuple(x) for x in json.loads(done.stdout)]


def accuracy(quick: bool, before: str) -> None:
    """The race estimate's error: 100 seeds of 10,000 races against one long
    run of today's code (the reference), at golden A with 6 and 4 dice, for
    today's code and for revision ``before``. Prints the root mean square
    error of the 10 winner and loser probabilities, the mean reported
    standard error and the largest mean error of one of them over the seeds
    (a bias would show there), all x 10^-4."""
    seeds = range(30 if quick else 100)
    reference_races = 500_000 if quick else 2_000_000
    with tempfile.TemporaryDirectory() as tmp:
        trees: dict[str, Path | None] = {"now": None}
        if before != "none":
            export_engines(before, Path(tmp))
            trees[before] = Path(tmp)
        for n in (6, 4):
            board = {**POSITIONS["golden A (start)"], "pyramid": DICE[6 - n :]}
            ref = odds.race_odds(board, races=reference_races, seed=10**6)
            truth = [*ref.winner.values(), *ref.loser.values()]
            for name, tree in trees.items():
                errors, reported = [], []
                for winner, loser, w_err, l_err in race_estimates(board, 10_000, seeds, tree):
                    got = [winner[c] for c in ref.winner] + [loser[c] for c in ref.loser]
                    errors.append([g - t for g, t in zip(got, truth, strict=True)])
                    reported.append([*w_err.values(), *l_err.values()])
                flat = [e for row in errors for e in row]
                rms = (sum(e * e for e in flat) / len(flat)) ** 0.5
                # Per probability (the ten sum to 2 in every run, so the
                # overall mean error is 0 by construction).
                bias = max((statistics.fmean(col) for col in zip(*errors, strict=True)), key=abs)
                rep = statistics.fmean(r for row in reported for r in row)
                print(
                    f"race estimate, golden A, {n} dice, {name}: rms error {rms * 1e4:.1f},"
                    f" reported {rep * 1e4:.1f}, largest mean error {bias * 1e4:+.1f} (x 10^-4;"
                    f" {len(seeds)} seeds x 10,000 races, reference {reference_races:,} races)"
                )


def full_analysis(quick: bool, before: str, rounds: int = 1) -> None:
    """The issue-16 lines: the full analysis after a roll, now and by the
    code of revision ``before`` ("none": now only), alternated ``rounds``
    times (this shared host's speed drifts: the figure is the median of the
    rounds' medians, and each round is listed)."""
    reps = {6: 7 if quick else 15, 5: 11 if quick else 31, 4: 11 if quick else 31}
    cpu = next(iter(os.sched_getaffinity(0)))
    with tempfile.TemporaryDirectory() as tmp:
        if before != "none":
            export_engines(before, Path(tmp))
        for n in (6, 5, 4):
            board = {**POSITIONS["golden A (start)"], "pyramid": DICE[6 - n :]}
            got = odds.analyse(board)
            assert got["tileSpots"] == [
                w.as_dict() for w in odds.tile_what_ifs(board, backend="python")
            ]
            # JSON keys are strings: compare what the panel gets.
            board_json = json.loads(json.dumps(board))
            mine = json.loads(json.dumps({"leg": got["leg"], "tileSpots": got["tileSpots"]}))
            now, then, same = [], [], True
            for _ in range(rounds):
                now.append(timed(partial(fresh_analysis, board), reps[n]))
                if before != "none":
                    cpu_ms, wall_ms, exact = analysis_at(Path(tmp), board_json, reps[n], cpu)
                    then.append((cpu_ms, wall_ms))
                    same = same and exact == mine
            ms = statistics.median(c for c, _ in now)
            wall = statistics.median(w for _, w in now)
            print(f"full analysis, golden A (start), {n} dice: {ms:.1f} ms")
            each = "" if rounds == 1 else f"rounds {' / '.join(f'{c:.1f}' for c, _ in now)}; "
            load = os.getloadavg()[0]
            if before == "none":
                print(f"  ({each}wall {wall:.1f} ms; load average {load:.2f})")
                continue
            old = statistics.median(c for c, _ in then)
            old_wall = statistics.median(w for _, w in then)
            old_each = "" if rounds == 1 else f" (rounds {' / '.join(f'{c:.1f}' for c, _ in then)})"
            print(
                f"  ({each}wall {wall:.1f} ms; {before}: {old:.1f} ms CPU{old_each},"
                f" wall {old_wall:.1f}; {old / ms:.1f}x;"
                f" same exact answers: {'yes' if same else 'NO'}; load average {load:.2f})"
            )


def check(board: dict[str, Any], oracle: Callable[..., Any]) -> None:
    ranks, landings, ends = oracle(board)
    for backend in ("numpy", "python"):
        got = odds.count_leg(odds.position(board), backend)
        assert got.ranks == {c: tuple(r) for c, r in ranks.items()}, (backend, board)
        assert got.landings == {int(s): landings.get(int(s), 0) for s in board.get("tiles", {})}
        assert got.race_ends == ends


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats, no 6-dice brute force")
    parser.add_argument(
        "--analysis", action="store_true", help="only the full analysis, now and before"
    )
    parser.add_argument(
        "--accuracy", action="store_true", help="only the race estimate's error, now and before"
    )
    parser.add_argument(
        "--before",
        default=BEFORE_ISSUE_16,
        help="git revision whose analysis is timed beside today's, or 'none'"
        f" (default {BEFORE_ISSUE_16}, before issue 16)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="full analysis: now and before alternated N times"
    )
    parser.add_argument(
        "--cpu", type=int, default=None, help="core to pin to (default: the last one)"
    )
    args = parser.parse_args()
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    oracle = load_oracle()
    reps = {
        6: 5 if args.quick else 21,
        5: 11 if args.quick else 41,
        4: 41 if args.quick else 201,
        3: 101,
    }
    print(f"pinned to cpu {cpu}; load average {os.getloadavg()[0]:.2f}; NumPy {np.__version__}")
    if args.accuracy:
        accuracy(args.quick, args.before)
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
        return
    if args.analysis:
        full_analysis(args.quick, args.before, args.rounds)
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
        return
    print("median CPU ms per solve (wall ms in brackets); brute = the tests' plain oracle")
    head = ("position", "dice", "auto", "numpy", "python", "brute", "brute/auto")
    print(
        f"{head[0]:24} {head[1]:>4} {head[2]:>16} {head[3]:>8} {head[4]:>8} {head[5]:>9} {head[6]:>10}"
    )
    for name, base in POSITIONS.items():
        for n in (6, 5, 4, 3):
            # Drop dice from the front so the grey die stays in: the harder case.
            board = {**base, "pyramid": DICE[6 - n :]}
            pos = odds.position(board)
            brute = ""
            ratio = ""
            auto, auto_wall = timed(partial(odds.count_leg, pos), reps[n])
            if n < 6 or not args.quick:
                check(board, oracle)
                b = median_ms(partial(oracle, board), 1 if n == 6 else 3)
                brute, ratio = f"{b:9.1f}", f"{b / auto:10.0f}"
            t_np = median_ms(partial(odds.count_leg, pos, "numpy"), reps[n])
            t_py = median_ms(
                partial(odds.count_leg, pos, "python"),
                max(3, reps[n] // 4) if n == 6 else reps[n],
            )
            both = f"{auto:.2f} ({auto_wall:.2f})"
            print(f"{name:24} {n:4} {both:>16} {t_np:8.2f} {t_py:8.2f} {brute:>9} {ratio:>10}")
    print()
    for name in ("golden A (start)", "tiles"):
        board = {**POSITIONS[name], "pyramid": DICE}
        count = len(odds.tile_what_ifs(board, "p9"))
        t, w = timed(partial(odds.tile_what_ifs, board, "p9"), 3 if args.quick else 7)
        print(f"all spectator what-ifs, {name}, 6 dice: {count} placements, {t:.0f} ms ({w:.0f})")
    board = {**POSITIONS["golden A (start)"], "pyramid": DICE}
    t, w = timed(lambda: odds.race_odds(board, races=10_000), 3 if args.quick else 7)
    print(f"10,000 simulated races from golden A, leg solve included: {t:.0f} ms ({w:.0f})")
    rng = np.random.default_rng(0)
    starts = np.repeat(np.array([odds.position(board).places], dtype=np.int16), 10_000, 0)
    t, w = timed(lambda: odds_np.simulate(starts, True, rng), 3 if args.quick else 7)
    print(f"10,000 simulated races from golden A, simulation only: {t:.0f} ms ({w:.0f})")
    t, w = timed(lambda: odds_sim.simulate(starts, True, rng), 3 if args.quick else 7)
    print(f"10,000 simulated races from golden A, lean simulator (odds_sim): {t:.0f} ms ({w:.0f})")
    print()
    full_analysis(args.quick, args.before, args.rounds)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
