"""Lighthouse's mobile audit of every screen (issue 13 targets: performance ≥ 95,
accessibility 100, CLS ≤ 0.05).

    (cd bench/lighthouse && npm ci)   # once: Lighthouse 12.2.3, a benchmark dependency only
    python bench/lighthouse.py        # median of 3 runs per screen
    python bench/lighthouse.py --modules   # web/'s modules as written, not the bundles

Starts the server as bench/web.py does (gunicorn + gevent, embedded store),
opens the same tables and runs Lighthouse's default mobile audit in Debian's
Chromium (a mid-range phone, 4× CPU slowdown, "slow 4G" by simulated
throttling) on what a phone without a seat opens (the home, a lobby's link and
a started table's link: the join form everyone but the host sees first) and
on what a seat opens (the lobby, and a started table of each game, as its
host). Lighthouse resets the browser's storage before it loads a page, and a
seat's token lives in the phone's storage, never in a URL: for a seat's screen
this script starts the Chromium itself, puts the token in its storage (by a
page of the server's that loads nothing of the app), and has Lighthouse load
the screen in it without the reset, so nothing of the app is cached and no
worker is installed: a seat's first visit. Prints the performance and
accessibility scores, LCP, TBT and CLS, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))
if TYPE_CHECKING:
    # mypy names bench/'s scripts from the repository root (pyproject.toml), where
    # `web` is the PWA's folder; run as a script, this one imports its sibling below.
    from bench.web import CHROMIUM, CHROMIUM_ARGS, GAMES, Server, free_port, healthy, open_screens
else:
    from web import CHROMIUM, CHROMIUM_ARGS, GAMES, Server, free_port, healthy, open_screens

HERE = Path(__file__).resolve().parent / "lighthouse"
TARGETS = {"performance": 95, "accessibility": 100, "cls": 0.05}


def audit(url: str, seat: str | None = None, tries: int = 3) -> dict[str, float]:
    """One audit (``seat``: the script that puts a seat's token in the phone's
    storage, bench/web.py's ``open_screens``); a run Lighthouse itself could
    not record (NO_NAVSTART, a Chromium that did not start) is run again, up to
    `tries` times, and said."""
    for attempt in range(1, tries + 1):
        try:
            return _audit(url) if seat is None else _audit_seated(url, seat)
        except RuntimeError as e:
            if attempt == tries:
                raise
            print(f"lighthouse run failed, running it again: {str(e)[-300:]}", file=sys.stderr, flush=True)
    raise AssertionError("unreachable")


def _audit(url: str, *how: str) -> dict[str, float]:
    """Lighthouse on ``url``, in a Chromium of its own unless ``how`` names one."""
    lighthouse = HERE / "node_modules" / ".bin" / "lighthouse"
    if not lighthouse.exists():
        raise SystemExit(f"run `npm ci` in {HERE} first")
    flags = " ".join(["--headless=new", *CHROMIUM_ARGS])
    out = subprocess.run(
        [str(lighthouse), url, "--quiet", "--output=json", "--output-path=stdout",
         "--only-categories=performance,accessibility", *(how or [f"--chrome-flags={flags}"])],
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


def _audit_seated(url: str, seat: str) -> dict[str, float]:
    """A seat's screen: a fresh Chromium (its own profile, so nothing cached),
    the seat's token put in its storage first, then Lighthouse without its
    storage reset."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    profile = tempfile.mkdtemp(prefix="tablemate-lighthouse-")
    chrome = subprocess.Popen([CHROMIUM, "--headless=new", *CHROMIUM_ARGS, f"--remote-debugging-port={port}",
                               f"--user-data-dir={profile}", "about:blank"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not healthy(f"http://127.0.0.1:{port}/json/version"):
            raise RuntimeError("Chromium did not start")
        origin = url.split("/t/")[0]
        with sync_playwright() as p:
            # Leaving the block disconnects; the Chromium stays for Lighthouse.
            page = p.chromium.connect_over_cdp(f"http://127.0.0.1:{port}").contexts[0].new_page()
            page.goto(origin + "/healthz")  # the origin's storage, none of the app's files
            page.evaluate(f"() => {{ {seat} }}")
            page.close()
        result = _audit(url, f"--port={port}", "--disable-storage-reset")
        with sync_playwright() as p:
            # The token is still there, so what Lighthouse loaded was the seat's
            # screen, not the join form (bench/web.py once timed that unawares).
            page = p.chromium.connect_over_cdp(f"http://127.0.0.1:{port}").contexts[0].new_page()
            page.goto(url)
            page.wait_for_selector(".table, .lobby, #join-title", timeout=30_000)
            if page.locator("#join-title").count():
                raise RuntimeError(f"{url} showed the join form: the seat's token was not in storage")
            page.close()
        return result
    finally:
        chrome.kill()
        chrome.wait()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--modules", action="store_true",
                    help="serve web/'s modules as written instead of a fresh build's bundles")
    args = ap.parse_args()
    server = Server(modules=args.modules)
    try:
        screens = open_screens(server.base)
        # No seat's token: what a phone that scanned the table's code opens first;
        # then a seat's own screens, its token in the phone's storage.
        links: dict[str, tuple[str, str | None]] = {
            "home": ("/", None), "lobby link": (screens["lobby"][0], None),
            "table link": (screens["camelup"][0], None), "lobby seat": screens["lobby"],
            **{f"{game} seat": screens[game] for game in GAMES}}
        results: dict[str, dict[str, float]] = {}
        for screen, (path, seat) in links.items():
            runs = [audit(server.base + path, seat) for _ in range(args.runs)]
            results[screen] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"measured {screen}", file=sys.stderr, flush=True)
    finally:
        server.stop()
    print(f"Lighthouse 12.2.3 mobile (simulated slow 4G, 4x CPU); "
          f"{'modules as written' if args.modules else 'bundles'}; median of {args.runs} run(s); "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'screen':14}  perf  a11y  LCP      TBT      CLS")
    for screen, r in results.items():
        print(f"{screen:14}  {r['performance']:4.0f}  {r['accessibility']:4.0f}  {r['lcp_s']:.2f} s   "
              f"{r['tbt_ms']:5.0f} ms  {r['cls']:.3f}")
    print()
    for screen, r in results.items():
        for what, ok in ((f"performance ≥ {TARGETS['performance']}", r["performance"] >= TARGETS["performance"]),
                         (f"accessibility {TARGETS['accessibility']}", r["accessibility"] >= TARGETS["accessibility"]),
                         (f"CLS ≤ {TARGETS['cls']}", r["cls"] <= TARGETS["cls"])):
            print(f"{'met ' if ok else 'MISSED'}  {screen} {what}")


if __name__ == "__main__":
    main()
