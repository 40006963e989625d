"""Scaling out as deployed: bench/load.py at 1, 2 and 4 instances with table
routing (``--route fly``, every phone through bench/replay_proxy.py, Fly's
proxy's stand-in), one table of figures:

    .venv/bin/python -m bench.scale                      # 2,000 phones, 100/s, 30 s, 1,2,4
    .venv/bin/python -m bench.scale --instances 1,2 --phones 500 --duration 10   # a smoke run

Per run, per instance: its own actions (the changes it committed), the messages
its listener heard per own action (1.0 when a table lives on one instance), its
CPU per own action and that against one instance's (the issue's bar: within
1.15x), and what explains the rest:
- ``bare ms/s``: its CPU with no phones and no actions (routing beats, the
  listener's and the watchdog's loops, presence sweeps: the fixed cost an
  instance pays however few its actions);
- ``holding ms/own action``: its CPU holding its phones with no actions (pings,
  heartbeats, presence), per own action: this follows its phones as its actions
  do, so it should not grow with instances;
- with ``--controls``, one instance driven at the rate and with the phones one
  of N instances gets (``1@rate/N``): if its CPU per action matches N instances',
  the growth is that of a process doing fewer actions a second (fewer events per
  wake-up, colder caches), not of the instances themselves.
Short runs on a shared machine are noisy: the load average at each start is
printed; the figures that count come from a quiet machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import load  # noqa: E402


def one_run(instances: int, phones: int, rate: float, args: argparse.Namespace) -> dict[str, Any]:
    argv = ["--instances", str(instances), "--phones", str(phones), "--rate", str(rate),
            "--duration", str(args.duration), "--idle", str(args.idle), "--seed", str(args.seed),
            "--route", "fly" if instances > 1 or not args.no_proxy_at_one else "off",
            "--affinity", "table", "--root", str(args.root)]
    load_avg = os.getloadavg()[0]
    with contextlib.redirect_stdout(io.StringIO()):
        result = load.main(argv)
    result["load_average_at_start"] = round(load_avg, 2)
    return result


def fmt(values: list[Any], sep: str = " / ") -> str:
    return sep.join("-" if v is None else f"{v}" for v in values)


def row(name: str, result: dict[str, Any], base_cpu: float | None, wall: float) -> str:
    per = result.get("per_instance") or []
    cpu = [p["cpu_ms_per_own_action"] for p in per]
    worst = max((c for c in cpu if c is not None), default=None)
    ratio = f"{worst / base_cpu:.2f}x" if worst is not None and base_cpu else "-"
    holding = [round(p["idle_with_phones_cpu_ms_per_s"] * wall / p["own_actions"], 2)
               if p.get("idle_with_phones_cpu_ms_per_s") is not None and p["own_actions"] else None
               for p in per]
    proxy = result.get("proxy") or {}
    lat = result["latency_ms"]
    errors = sum(result["errors"].values())
    return (f"| {name} | {result['load_average_at_start']} | {fmt([p['own_actions'] for p in per])} "
            f"| {fmt([p['messages_per_own_action'] for p in per])} | {fmt(cpu)} | {ratio} "
            f"| {fmt([p.get('idle_cpu_ms_per_s') for p in per])} | {fmt(holding)} "
            f"| {proxy.get('cpu_ms_per_action', '-')} | {proxy.get('replays', '-')} "
            f"| {lat['p50']} / {lat['p99']} | {errors} |")


HEADER = ("| run | load at start | own actions (each) | messages / own action | CPU ms / own action (each) "
          "| worst vs 1 | bare ms/s (each) | holding ms / own action (each) | proxy CPU ms / action "
          "| replays | p50 / p99 ms | errors |\n|" + "---|" * 12)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="1,2,4", help="comma-separated instance counts")
    ap.add_argument("--phones", type=int, default=2000)
    ap.add_argument("--rate", type=float, default=100.0, help="actions per second, all instances together")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of driven actions per run")
    ap.add_argument("--idle", type=float, default=10.0,
                    help="seconds of each idle measurement (bare, then holding the phones)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--controls", action="store_true",
                    help="also one instance at rate/N with phones/N for each N > 1")
    ap.add_argument("--no-proxy-at-one", action="store_true",
                    help="run the 1-instance case without the proxy (it then replays nothing anyway)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the checkout whose server runs (bench/load.py --root: an A/B against another revision)")
    ap.add_argument("--out", help="also write every run's JSON here")
    args = ap.parse_args(argv)
    counts = [int(n) for n in args.instances.split(",") if n]
    runs: list[tuple[str, dict[str, Any]]] = []
    for n in counts:
        runs.append((f"{n} instance{'s' if n > 1 else ''}", one_run(n, args.phones, args.rate, args)))
        print(f"done: {runs[-1][0]}", file=sys.stderr)
    if args.controls:
        for n in (n for n in counts if n > 1):
            runs.append((f"1 @ rate/{n}", one_run(1, args.phones // n, args.rate / n, args)))
            print(f"done: {runs[-1][0]}", file=sys.stderr)
    base = next((r for name, r in runs if name == "1 instance"), None)
    base_cpu = (base["per_instance"] or [{}])[0].get("cpu_ms_per_own_action") if base else None
    print(f"{args.phones} phones, {args.rate:g} actions/s, {args.duration:g} s a run, "
          f"table routing through bench/replay_proxy.py")
    print(HEADER)
    for name, result in runs:
        print(row(name, result, base_cpu, args.duration))
    if args.out:
        Path(args.out).write_text(json.dumps([{"run": name, **r} for name, r in runs], indent=2))
    return [r for _, r in runs]


if __name__ == "__main__":
    main()
