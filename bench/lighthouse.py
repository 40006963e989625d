"""Lighthouse's mobile audit of every screen (issue 13 targets: performance ≥ 95,
accessibility 100, CLS ≤ 0.05).

    (cd bench/lighthouse && npm ci)   # once: Lighthouse 12.2.3, a benchmark dependency only
    python bench/lighthouse.py        # median of 3 runs per screen
    python bench/lighthouse.py --modules   # web/'s modules as written, not the bundles

Starts the server as bench/web.py does (gunicorn + gevent, embedded store),
opens the same tables and runs Lighthouse's default mobile audit in Debian's
Chromium (a mid-range phone, 4× CPU slowdown, "slow 4G" by simulated
throttling) on what a phone without a seat opens: the home, a lobby's link and
a started table's link (the join form everyone but the host sees first).
Lighthouse resets the browser's storage before it loads a page, so it cannot
open a seat's own screen (its token lives in the phone's storage, never in a
URL): bench/web.py times those. Prints the performance and accessibility
scores, LCP, TBT and CLS, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))
if TYPE_CHECKING:
    # mypy names bench/'s scripts from the repository root (pyproject.toml), where
    # `web` is the PWA's folder; run as a script, this one imports its sibling below.
    from bench.web import CHROMIUM, CHROMIUM_ARGS, Server, open_screens
else:
    from web import CHROMIUM, CHROMIUM_ARGS, Server, open_screens

HERE = Path(__file__).resolve().parent / "lighthouse"
TARGETS = {"performance": 95, "accessibility": 100, "cls": 0.05}


def audit(url: str, tries: int = 3) -> dict[str, float]:
    """One audit; a run Lighthouse itself could not record (NO_NAVSTART, a
    Chromium that did not start) is run again, up to `tries` times, and said."""
    for attempt in range(1, tries + 1):
        try:
            return _audit(url)
        except RuntimeError as e:
            if attempt == tries:
                raise
            print(f"lighthouse run failed, running it again: {str(e)[-300:]}", file=sys.stderr, flush=True)
    raise AssertionError("unreachable")


def _audit(url: str) -> dict[str, float]:
    lighthouse = HERE / "node_modules" / ".bin" / "lighthouse"
    if not lighthouse.exists():
        raise SystemExit(f"run `npm ci` in {HERE} first")
    flags = " ".join(["--headless=new", *CHROMIUM_ARGS])
    out = subprocess.run(
        [str(lighthouse), url, "--quiet", "--output=json", "--output-path=stdout",
         "--only-categories=performance,accessibility", f"--chrome-flags={flags}"],
        env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        # Chromium now and then fails to start or to hand over its trace: say what it said.
        raise RuntimeError(f"lighthouse exited {out.returncode} on {url}: {out.stderr.strip()[-2000:]}")
    r = json.loads(out.stdout)
    a = r["audits"]
    return {
        "performance": round(100 * (r["categories"]["performance"]["score"] or 0)),
        "accessibility": round(100 * (r["categories"]["accessibility"]["score"] or 0)),
        "lcp_s": a["largest-contentful-paint"]["numericValue"] / 1000,
        "tbt_ms": a["total-blocking-time"]["numericValue"],
        "cls": a["cumulative-layout-shift"]["numericValue"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--modules", action="store_true",
                    help="serve web/'s modules as written instead of a fresh build's bundles")
    args = ap.parse_args()
    server = Server(modules=args.modules)
    try:
        screens = open_screens(server.base)
        # No seat's token: what a phone that scanned the table's code opens first.
        links = {"home": screens["home"][0], "lobby link": screens["lobby"][0],
                 "table link": screens["camelup"][0]}
        results: dict[str, dict[str, float]] = {}
        for screen, path in links.items():
            runs = [audit(server.base + path) for _ in range(args.runs)]
            results[screen] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"measured {screen}", file=sys.stderr, flush=True)
    finally:
        server.stop()
    print(f"Lighthouse 12.2.3 mobile (simulated slow 4G, 4x CPU); "
          f"{'modules as written' if args.modules else 'bundles'}; median of {args.runs} run(s); "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'screen':10}  perf  a11y  LCP      TBT      CLS")
    for screen, r in results.items():
        print(f"{screen:10}  {r['performance']:4.0f}  {r['accessibility']:4.0f}  {r['lcp_s']:.2f} s   "
              f"{r['tbt_ms']:5.0f} ms  {r['cls']:.3f}")
    print()
    for screen, r in results.items():
        for what, ok in ((f"performance ≥ {TARGETS['performance']}", r["performance"] >= TARGETS["performance"]),
                         (f"accessibility {TARGETS['accessibility']}", r["accessibility"] >= TARGETS["accessibility"]),
                         (f"CLS ≤ {TARGETS['cls']}", r["cls"] <= TARGETS["cls"])):
            print(f"{'met ' if ok else 'MISSED'}  {screen} {what}")


if __name__ == "__main__":
    main()
