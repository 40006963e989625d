"""Load benchmark: N phones on WebSockets over real games, on 1..k instances.

    python bench/load.py --phones 5000 --rate 100 --duration 60 --instances 1
    python bench/load.py --short          # a few hundred phones for a few seconds

It starts its own redis-server (or uses --redis-url) and the server in its
production serving model (gunicorn + gevent, server/gunicorn_conf.py), creates
tables of 3-8 seats across every registered game, connects every seat's phone
as a WebSocket client, then drives real legal actions at --rate per second (at
most one in flight per table, like a real table). Latency is measured from an
action being sent to the LAST phone of that table receiving the new version.
Prints phones connected, connect errors, reconnects, actions/s, latency
percentiles (p50/p95/p99/max), errors, server CPU (per cent of a core and ms per
action), server RSS (total and per phone), and Redis memory per table. Only
loopback traffic. Per instance (``per_instance``, from each one's /healthz with
the operator's token): its own actions (the changes it committed), the messages
and bytes its listener heard from Redis, each per own action, and its CPU per
own action; with ``--affinity table`` (every phone of a table on that table's
instance) these show what scaling out costs each instance:

    python bench/load.py --phones 2000 --rate 100 --instances 4 --affinity table

The generator must not distort what it measures:
- its garbage collector is frozen and disabled for the driven period (a full
  collection over 5,000 phones' objects paused it for up to 0.5 s);
- its phones are picows sockets, each frame handled in the read callback: with
  websockets' asyncio client (a queue and a task per message) its longest pause
  was ~30 ms at 5,000 phones, charged to whatever action was in flight;
- actions follow a fixed-rate schedule; after a stall the missed slots are
  dropped and counted (`schedule_skipped`), never fired back to back;
- a 1 ms ticker reports the generator's own longest pause (`loadgen_max_pause_ms`),
  a bound on what the generator itself added to any latency;
- every phone pings every 8 s like the web client (without it the server
  closes every socket after 25 s of silence, and a run measures reconnects),
  and gets the server's heartbeat (a frame at least every 2 s) like a phone;
- a phone whose socket closes (e.g. 1013 in a connect storm) is counted and
  reconnects with backoff like the web client, and an action that never lands
  on every phone times out (`action_timeout`) instead of stalling its table;
- a warm-up (`--warmup`, 2 s) at the same rate comes before the measured
  period, so a fresh server's first code paths are not in the figures.

`--root DIR` runs the server of another checkout (e.g. a `git worktree` of the
parent revision) with this same generator: an A/B of a server change.

This file is the command line; the generator's parts are bench/loadkit/.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.loadkit.phones import PING_S  # noqa: E402  (after the path: the bench runs as a script)
from bench.loadkit.run import run  # noqa: E402


def load_args(ap: argparse.ArgumentParser, *, phones: int, rate: float, duration: float,
              each: str = "") -> None:
    """The driven load's flags: this script's, and compare.py's, which hands the
    same values on to this script and to the boardgame.io peer (``each``: how
    its help says that)."""
    ap.add_argument("--phones", type=int, default=phones)
    ap.add_argument("--rate", type=float, default=rate, help="actions per second, all tables together")
    ap.add_argument("--duration", type=float, default=duration, help=f"seconds of driven actions{each}")
    ap.add_argument("--warmup", type=float, default=2.0,
                    help=f"seconds of actions driven first at the same rate{each}, not measured")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--redis-url", help="a Redis for the Tablemate server (default: its own redis-server)")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    load_args(ap, phones=5000, rate=100.0, duration=60.0)
    ap.add_argument("--instances", type=int, default=1)
    ap.add_argument("--affinity", choices=("spread", "table"), default="spread",
                    help="spread: a table's phones on the instances in turn (every change crosses "
                         "instances); table: all on the table's own instance (per_instance figures "
                         "then show what scaling out costs each instance)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the checkout whose server runs (an A/B against another revision, same generator)")
    ap.add_argument("--ping", type=float, default=PING_S,
                    help="seconds between one phone's pings (the web client's by default)")
    ap.add_argument("--short", action="store_true", help="smoke run: 300 phones, 20 actions/s, 5 s")
    ap.add_argument("--action-timeout", type=float, default=10.0,
                    help="seconds before an action that never reached every phone frees its table")
    ap.add_argument("--ticker-ms", type=float, default=1.0, help="period of the pause-measuring ticker")
    ap.add_argument("--out", help="also write the JSON result to this file")
    ap.add_argument("--token-in-url", action="store_true",
                    help="send the seat token in the socket's URL, as builds before issue 30 read it "
                         "(to time such a build with --root)")
    ap.add_argument("--games", default="", help="comma-separated games to play (default: all three)")
    ap.add_argument("--prefer", default="",
                    help="an action type played whenever it is legal: --games camelup --prefer pyramid "
                         "times rolls, each phone answering every roll with its chain link as the web client does")
    ap.add_argument("--no-chains", action="store_true",
                    help="phones anchor no hash chains and answer no draws (a build from before issue 38, with --root)")
    ap.add_argument("--route", choices=("off", "fly"), default="off",
                    help="fly: table routing as deployed on Fly (TABLEMATE_ROUTE=fly), every phone through "
                         "bench/replay_proxy.py, which replays a table's request to its owner as Fly's "
                         "proxy does (--affinity then has no effect)")
    ap.add_argument("--idle", type=float, default=0.0,
                    help="seconds of no actions to measure each instance's idle CPU over, before the "
                         "tables are made and again with every phone connected (per_instance)")
    ap.add_argument("--samples", help="also write every action's send time, latency (s, ms), game and seats to this file")
    args = ap.parse_args(argv)
    if args.short:
        args.phones, args.rate, args.duration = min(args.phones, 300), 20.0, 5.0
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=2)
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return result


if __name__ == "__main__":
    main()
