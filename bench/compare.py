"""Tablemate and boardgame.io 0.50.2 side by side, on the same workload, one after the other.

    python bench/compare.py --phones 1000 --rate 50 --duration 30
    python bench/compare.py --phones 5000 --rate 100 --duration 30

Runs bench/load.py (Tablemate: gunicorn + gevent, one instance, its own Redis), then
bench/peers/boardgameio/load.js (boardgame.io: one Node process, in-memory) with the
same number of phones, the same table sizes (the peer replays Tablemate's mix of 3-8
seats), the same total action rate, at most one action in flight per table, and latency
taken to the LAST seat of the table. Prints both results and a table with the ratios
(Tablemate / boardgame.io: above 1 means Tablemate is slower or heavier).

It prints the load average first: on a shared machine the figures mean little unless the
machine was quiet (--wait-quiet waits, bounded, for a lower load). It runs `npm ci` in the
peer folder when node_modules is missing. Only loopback traffic.

The two do not keep the same watch on a link by default: a Tablemate phone notices a
silent network within 5 s (its server sends a frame at least every ~3 s), boardgame.io's
socket.io pings every 10 s and gives a link up after 30. `--peer-liveness tablemate`
sets socket.io to the same bound (a ping every 3 s, answered within 2 s) for a side by
side on equal terms; the default stays boardgame.io as it ships.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.load import load_args  # noqa: E402  (after the path: the bench runs as a script)
from bench.loadkit.servers import raise_fd_limit  # noqa: E402

PEER = ROOT / "bench" / "peers" / "boardgameio"


def loadavg() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def wait_quiet(limit: float, timeout: float) -> None:
    """Wait (at most `timeout` s) for the 1-minute load average to drop below `limit`."""
    deadline = time.monotonic() + timeout
    while os.getloadavg()[0] > limit and time.monotonic() < deadline:
        time.sleep(5)


def ensure_peer_installed() -> None:
    if (PEER / "node_modules" / "boardgame.io").is_dir():
        return
    npm = shutil.which("npm")
    if not npm:
        sys.exit("npm not found: install Node.js 18+ to run the boardgame.io peer (or pass --only tablemate)")
    print("installing the peer: npm ci (pinned by package-lock.json)", file=sys.stderr)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=PEER, check=True, timeout=600)


def run_json(cmd: list[str], out: Path, timeout: float) -> dict[str, Any]:
    # The child's JSON goes to a file; its stdout (the same JSON) goes to our stderr as
    # progress (fd 2 itself: sys.stderr may be a wrapper without a file descriptor).
    sys.stderr.flush()
    subprocess.run(cmd, cwd=ROOT, check=True, timeout=timeout, stdout=2)
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def run_tablemate(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    cmd = [sys.executable, str(ROOT / "bench" / "load.py"), "--phones", str(args.phones),
           "--rate", str(args.rate), "--duration", str(args.duration), "--seed", str(args.seed),
           "--warmup", str(args.warmup), "--instances", "1", "--out", str(out)]
    if args.redis_url:
        cmd += ["--redis-url", args.redis_url]
    return run_json(cmd, out, timeout=args.duration + 600)


def run_peer(args: argparse.Namespace, sizes: dict[str, int] | None, out: Path) -> dict[str, Any]:
    ensure_peer_installed()
    node = shutil.which("node")
    if not node:
        sys.exit("node not found: install Node.js 18+ to run the boardgame.io peer")
    cmd = [node, str(PEER / "load.js"), "--phones", str(args.phones), "--rate", str(args.rate),
           "--duration", str(args.duration), "--warmup", str(args.warmup), "--seed", str(args.seed),
           "--out", str(out)]
    if sizes:
        cmd += ["--sizes", ",".join(f"{k}:{v}" for k, v in sizes.items())]
    if args.peer_liveness != "default":
        cmd += ["--liveness", args.peer_liveness]
    return run_json(cmd, out, timeout=args.duration + 600)


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:,.1f}" if abs(x) < 100 else f"{x:,.0f}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _ratio(a: Any, b: Any) -> str:
    if not isinstance(a, int | float) or not isinstance(b, int | float) or isinstance(a, bool) or not b:
        return ""
    return f"{a / b:.2f}×"


def _errors(r: dict[str, Any]) -> str:
    errs = {k: v for k, v in r.get("errors", {}).items() if v}
    return ", ".join(f"{k} {v}" for k, v in sorted(errs.items())) or "0"


def _gc(r: dict[str, Any] | None) -> str | None:
    if r is None:
        return None
    longest = r.get("loadgen_gc_max_pause_ms")
    return f"{r.get('loadgen_gc_collections')}" + (f" ({longest})" if longest is not None else "")


def rows(tm: dict[str, Any] | None, bg: dict[str, Any] | None) -> list[tuple[str, Any, Any, bool]]:
    """(label, Tablemate value, boardgame.io value, show a ratio)."""
    def get(r: dict[str, Any] | None, *keys: str) -> Any:
        v: Any = r
        for k in keys:
            if v is None:
                return None
            v = v.get(k)
        v = v[0] if isinstance(v, list) and len(v) == 1 else v
        # JSON from Node writes 2.0 as 2: latencies print with their decimal either way.
        return float(v) if keys[0] == "latency_ms" and isinstance(v, int) else v

    def both(label: str, *keys: str, ratio: bool = True) -> tuple[str, Any, Any, bool]:
        return (label, get(tm, *keys), get(bg, *keys), ratio)

    tm_total = None
    if tm and tm.get("server_cpu_ms_per_action") is not None:
        tm_total = tm["server_cpu_ms_per_action"] + (tm.get("redis_cpu_ms_per_action") or 0)
    return [
        ("phones connected", get(tm, "phones_connected"), get(bg, "phones_connected"), False),
        both("tables", "tables", ratio=False),
        both("actions/s achieved", "actions_per_s"),
        both("latency p50 ms", "latency_ms", "p50"),
        both("latency p95 ms", "latency_ms", "p95"),
        both("latency p99 ms", "latency_ms", "p99"),
        both("latency max ms", "latency_ms", "max"),
        both("server CPU, % of a core", "server_cpu_percent"),
        both("server CPU ms / action", "server_cpu_ms_per_action"),
        both("… of it in the kernel, ms / action", "server_kernel_ms_per_action"),
        ("… with Redis, ms / action", tm_total, get(bg, "server_cpu_ms_per_action"), True),
        both("server RSS MB", "server_rss_mb"),
        both("server RSS per phone KB", "rss_per_phone_kb"),
        ("errors", _errors(tm) if tm else None, _errors(bg) if bg else None, False),
        both("reconnects", "reconnects", ratio=False),
        both("load gen longest pause ms", "loadgen_max_pause_ms", ratio=False),
        ("load gen GC runs (longest ms)", _gc(tm), _gc(bg), False),
        both("load gen CPU, % of a core", "loadgen_cpu_percent", ratio=False),
        both("schedule slots dropped", "schedule_skipped", ratio=False),
        both("load average before", "loadavg_before", ratio=False),
    ]


def table(tm: dict[str, Any] | None, bg: dict[str, Any] | None) -> str:
    lines = ["| figure | Tablemate | boardgame.io 0.50.2 | ratio |", "|---|---|---|---|"]
    for label, a, b, ratio in rows(tm, bg):
        lines.append(f"| {label} | {_fmt(a)} | {_fmt(b)} | {_ratio(a, b) if ratio else ''} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    load_args(ap, phones=1000, rate=50.0, duration=30.0, each=", each side")
    ap.add_argument("--only", choices=["tablemate", "boardgameio"], help="run one side only")
    ap.add_argument("--wait-quiet", type=float, default=0.0, metavar="SECONDS",
                    help="before each side, wait up to this long for the load average to drop below --quiet")
    ap.add_argument("--quiet", type=float, default=1.0, help="load average counted as quiet")
    ap.add_argument("--gap", type=float, default=3.0, help="seconds of rest between the two sides")
    ap.add_argument("--out", help="also write both results as JSON to this file")
    ap.add_argument("--peer-liveness", choices=["default", "tablemate"], default="default",
                    help="boardgame.io's socket.io pings: its own (a ping every 10 s, a dead link noticed "
                         "within ~30 s), or at Tablemate's bound (every 3 s, answered within 2 s: noticed "
                         "within 5 s by either side, as a Tablemate phone notices a silent network)")
    args = ap.parse_args(argv)

    # Both generators and both servers are started from here and inherit the limit.
    nofile = raise_fd_limit()[0]
    print(f"load average (1/5/15 min) at start: {loadavg()} on {os.cpu_count()} cores; "
          f"open-file limit {nofile}", flush=True)
    if os.getloadavg()[0] > args.quiet:
        print(f"warning: the machine is busy (1-min load {os.getloadavg()[0]:.2f} > {args.quiet}); "
              "figures will include other processes' contention", flush=True)
    tm = bg = None
    with tempfile.TemporaryDirectory(prefix="tm-compare-") as tmp:
        if args.only in (None, "tablemate"):
            wait_quiet(args.quiet, args.wait_quiet)
            before = loadavg()
            tm = run_tablemate(args, Path(tmp) / "tablemate.json")
            tm["loadavg_before"] = before
        if args.only in (None, "boardgameio"):
            if tm:
                time.sleep(args.gap)
            wait_quiet(args.quiet, args.wait_quiet)
            before = loadavg()
            bg = run_peer(args, tm["table_sizes"] if tm else None, Path(tmp) / "boardgameio.json")
            bg["loadavg_before"] = before
    print(f"\n{args.phones:,} phones, {args.rate:g} actions/s, {args.duration:g} s each side; "
          f"boardgame.io's liveness: {args.peer_liveness}; load average at end: {loadavg()}\n")
    print(table(tm, bg), flush=True)
    result = {"args": vars(args), "tablemate": tm, "boardgameio": bg}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
