"""First-load and repeat-visit benchmark of the PWA on an emulated phone (issue 13).

    python bench/web.py              # every screen, median of 3 runs
    python bench/web.py --runs 1     # quicker
    python bench/web.py --modules    # web/'s modules as written, not the bundles

Starts the server in its production serving model (gunicorn + gevent, one
worker, the embedded store), opens a lobby and a started table of every game
over the API, and loads each screen in Debian's Chromium through Playwright as
a slow phone: CDP ``Network.emulateNetworkConditions`` (560 ms round trip,
1.5 Mbit/s down, 750 kbit/s up) and ``Emulation.setCPUThrottlingRate`` 4.

For each screen (home, lobby, a table of each game) it prints:
- first visit: bytes on the wire (as CDP counts them, headers included) and
  requests of the page (the worker's precache downloads after that are shown
  apart), and the time to usable;
- repeat visit without the worker (HTTP cache only) and with it;
- repeat visit with the worker on "lie-fi": the phone reaches the server
  through a TCP proxy of this script that then goes silent (accepts and reads,
  never answers), like a Wi-Fi that is connected but dead.

"Usable" is when a person can act: home, the Create button enabled (the game
list is in); lobby, the join code shown; a table, the game's own screen shown.
On lie-fi the home counts as usable when its form is shown (the game list
cannot arrive), a table when its game screen is shown (from the last snapshot
the tab saw). Times are from navigation start, medians over --runs. Only
loopback traffic.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests import api_client  # noqa: E402  (after the path: the bench runs as a script)

CHROMIUM = os.environ.get("TABLEMATE_E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
NETWORK = {"offline": False, "latency": 560, "downloadThroughput": 1_500_000 / 8,
           "uploadThroughput": 750_000 / 8}
CPU_SLOWDOWN = 4
GAMES = ("camelup", "kingup", "countup")
GAME_ROOT = {"camelup": ".game-camelup:not([hidden])", "kingup": ".game-kingup:not([hidden])",
             "countup": ".game-countup"}
CREATE_READY = "document.querySelector('#home-game') && !document.querySelector('form button.primary').disabled"
USABLE = {
    "home": CREATE_READY,
    "lobby": "/^[A-Z0-9]{6}$/.test((document.querySelector('#lobby-code') || {}).textContent || '')",
    **{g: f"!!document.querySelector('{GAME_ROOT[g]}')" for g in GAMES},
}
LIEFI_USABLE = {**USABLE, "home": "!!document.querySelector('#home-new') && !!document.querySelector('#home-name')"}
TARGETS = {"home_kb": 60, "home_s": 2.5, "table_s": 3.5, "repeat_s": 1.0}
TIMEOUT_S = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def post(base: str, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    return api_client.call(base, "POST", path, body, token)


def healthy(url: str, ctx: ssl.SSLContext | None = None, within: float = 30) -> bool:
    """Whether ``url`` answers within ``within`` seconds (polled)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1, context=ctx):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def stop_process(proc: subprocess.Popen[bytes], sig: int) -> None:
    proc.send_signal(sig)
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()


def fresh_build() -> Path:
    """A build of web/ as it is now (scripts/build-web.sh), never an older build/web."""
    out = Path(tempfile.mkdtemp(prefix="tablemate-build-")) / "web"
    subprocess.run(["bash", str(ROOT / "scripts" / "build-web.sh"), str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


class Server:
    """``modules=True``: web/'s modules as written (no bundles), the way a
    server without a build serves them; else a fresh build's bundles."""

    def __init__(self, modules: bool = False) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.build = None if modules else fresh_build()
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEMATE_") and k != "REDIS_URL"}
        env.update({"BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": "1", "PYTHONPATH": str(ROOT),
                    "TABLEMATE_RATE_CREATE": "1000", "TABLEMATE_RATE_JOIN": "1000",
                    # A directory that is not there: the modules as written.
                    "TABLEMATE_BUILD_DIR": str(self.build or ROOT / "build" / "none")})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "server/gunicorn_conf.py"), "server:create_app()"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not healthy(f"{self.base}/healthz"):
            self.stop()
            raise RuntimeError("the server did not come up")

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGINT)
        if self.build:
            shutil.rmtree(self.build.parent, ignore_errors=True)


class Edge:
    """An HTTPS + HTTP/2 reverse proxy in front of the server (Caddy with its
    own local CA), as Fly's edge is in production: the phone's requests share
    one connection instead of queueing for six HTTP/1.1 ones."""

    def __init__(self, port: int) -> None:
        self.port = free_port()
        self.base = f"https://127.0.0.1:{self.port}"
        self.dir = Path(tempfile.mkdtemp(prefix="tablemate-edge-"))
        (self.dir / "Caddyfile").write_text(
            "{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n"
            f"\tstorage file_system {self.dir}/data\n}}\n"
            f"https://127.0.0.1:{self.port} {{\n\ttls internal\n\treverse_proxy 127.0.0.1:{port}\n}}\n")
        caddy = shutil.which("caddy")
        if caddy is None:
            raise SystemExit("--edge h2 needs Caddy (apt-get install caddy)")
        env = {**os.environ, "HOME": str(self.dir), "XDG_DATA_HOME": str(self.dir / "data")}
        self.proc = subprocess.Popen([caddy, "run", "--config", "Caddyfile", "--adapter", "caddyfile"],
                                     cwd=self.dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        if not healthy(f"{self.base}/healthz", ctx):
            self.stop()
            raise RuntimeError("Caddy did not come up")

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGTERM)
        shutil.rmtree(self.dir, ignore_errors=True)


class LieFiProxy:
    """Forwards to the server until ``silent`` is set; then every connection,
    old or new, is accepted and read but never answered."""

    def __init__(self, port: int, scheme: str = "http") -> None:
        self.target = port
        self.silent = False
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.base = f"{scheme}://127.0.0.1:{self.sock.getsockname()[1]}"
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            self.open.append(client)
            if self.silent:
                threading.Thread(target=self._swallow, args=(client,), daemon=True).start()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.open.append(upstream)
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _swallow(self, src: socket.socket) -> None:
        try:
            while src.recv(65536):
                pass
        except OSError:
            pass

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if not self.silent:
                    dst.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        self.sock.close()
        for s in self.open:
            try:
                s.close()
            except OSError:
                pass


@dataclass
class Visit:
    ms: float | None  # time to usable, None if not within TIMEOUT_S
    wire: int = 0  # bytes received from the network by the page
    requests: int = 0  # requests that went to the network
    sw_bytes: int = 0  # bytes of the service worker's precache (first visit)


@dataclass
class Phone:
    """One page with the phone's network and CPU, counting what it fetches."""

    page: Page
    counted: dict[str, int] = field(default_factory=dict)
    cached: set[str] = field(default_factory=set)

    @classmethod
    def open(cls, ctx: BrowserContext) -> Phone:
        page = ctx.new_page()
        phone = cls(page)
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", NETWORK)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        cdp.on("Network.responseReceived", phone._response)
        cdp.on("Network.requestServedFromCache", lambda e: phone.cached.add(e["requestId"]))
        cdp.on("Network.loadingFinished", phone._finished)
        return phone

    def _response(self, e: dict[str, Any]) -> None:
        r = e["response"]
        if r.get("fromServiceWorker") or r.get("fromDiskCache") or r.get("fromPrefetchCache"):
            self.cached.add(e["requestId"])

    def _finished(self, e: dict[str, Any]) -> None:
        if e["requestId"] not in self.cached:
            self.counted[e["requestId"]] = int(e.get("encodedDataLength", 0))

    def visit(self, url: str, usable: str) -> Visit:
        self.counted.clear()
        self.cached.clear()
        self.page.goto(url, wait_until="commit", timeout=TIMEOUT_S * 1000)
        probe = f"() => {{ if (!window.__usable && ({usable})) window.__usable = performance.now(); return window.__usable || false; }}"
        try:
            ms = float(self.page.wait_for_function(probe, polling=50, timeout=TIMEOUT_S * 1000).json_value())
        except Exception:
            ms = None
        self.page.wait_for_timeout(300)  # let the last responses be counted
        return Visit(ms, sum(self.counted.values()), len(self.counted))


def worker_ready(page: Page) -> None:
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("!!navigator.serviceWorker.controller", timeout=TIMEOUT_S * 1000)


def precache_bytes(page: Page) -> int:
    """What the worker downloaded: the compressed size of its cache, as served."""
    return int(page.evaluate("""async () => {
      let n = 0;
      for (const k of await caches.keys()) {
        const c = await caches.open(k);
        for (const req of await c.keys()) {
          const res = await fetch(req.url, {headers: {'Accept-Encoding': 'br'}, cache: 'force-cache'});
          n += Number(res.headers.get('content-length') || (await res.arrayBuffer()).byteLength);
        }
      }
      return n;
    }"""))


def run_screen(browser: Browser, base: str, proxy: LieFiProxy, screen: str, path: str,
               seat: str | None) -> dict[str, Visit]:
    ctx_args: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
                                "is_mobile": True, "has_touch": True, "locale": "en-US",
                                "ignore_https_errors": True}
    out: dict[str, Visit] = {}
    # First visit and repeat visit without the worker (HTTP cache only).
    ctx = browser.new_context(base_url=base, service_workers="block", **ctx_args)
    if seat:
        ctx.add_init_script(seat)
    try:
        phone = Phone.open(ctx)
        out["first"] = phone.visit(path, USABLE[screen])
        out["repeat_http"] = phone.visit(path, USABLE[screen])
    finally:
        ctx.close()
    # Repeat visit with the worker, then on lie-fi (through the proxy).
    proxy.silent = False
    ctx = browser.new_context(base_url=proxy.base, **ctx_args)
    if seat:
        ctx.add_init_script(seat)
    try:
        phone = Phone.open(ctx)
        phone.visit(path, USABLE[screen])
        worker_ready(phone.page)
        out["first"].sw_bytes = precache_bytes(phone.page)
        out["repeat_sw"] = phone.visit(path, USABLE[screen])
        proxy.silent = True
        out["liefi_sw"] = phone.visit(path, LIEFI_USABLE[screen])
    finally:
        proxy.silent = False
        ctx.close()
    return out


def open_screens(base: str) -> dict[str, tuple[str, str | None]]:
    """Per screen, its path and the script that puts the seat's token in the
    phone's storage before the page loads (None: no seat): home, a Camel Up
    lobby and a started three-seat table of every game. A token never rides
    in a URL (docs/api.md); a phone that joined keeps it in localStorage
    (web/tokens.js), so a first visit here is a seated phone opening its
    table's link with nothing of the app cached."""
    def seated(table: str, token: str) -> str:
        return f"try {{ localStorage.setItem('tablemate.token.{table}', '{token}'); }} catch (e) {{}}"

    lobby = post(base, "/api/tables", {"game": "camelup", "name": "Host", "options": {}})
    screens: dict[str, tuple[str, str | None]] = {
        "home": ("/", None),
        "lobby": (f"/t/{lobby['table']}", seated(lobby["table"], lobby["player"]["token"])),
    }
    for game in GAMES:
        r = post(base, "/api/tables", {"game": game, "name": "Host", "options": {}})
        table, token = r["table"], r["player"]["token"]
        for i in range(2):
            post(base, f"/api/tables/{table}/players", {"name": f"P{i + 2}"})
        post(base, f"/api/tables/{table}/actions",
             {"action": {"type": "start"}, "request_id": f"start-{table}"}, token)
        screens[game] = (f"/t/{table}", seated(table, token))
    return screens


def median_ms(values: list[float | None]) -> float | None:
    if any(v is None for v in values):
        return None
    return statistics.median(values)  # type: ignore[type-var]


def fmt_s(ms: float | None) -> str:
    return f">{TIMEOUT_S} s" if ms is None else f"{ms / 1000:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--edge", choices=("none", "h2"), default="none",
                    help="h2: the phone reaches the server through an HTTPS/HTTP-2 proxy (Caddy), as on Fly")
    ap.add_argument("--modules", action="store_true",
                    help="serve web/'s modules as written instead of a fresh build's bundles")
    args = ap.parse_args()

    server = Server(modules=args.modules)
    edge = Edge(server.port) if args.edge == "h2" else None
    # Lie-fi sits on the phone's side of the edge: the TCP (TLS) stream goes silent.
    proxy = LieFiProxy(edge.port, "https") if edge else LieFiProxy(server.port)
    page_base = edge.base if edge else server.base
    try:
        screens = open_screens(server.base)

        results: dict[str, dict[str, Any]] = {}
        with sync_playwright() as p:
            # The edge's certificate comes from its own local CA: a service worker
            # registers only where the browser accepts the certificate.
            extra = ["--ignore-certificate-errors"] if edge else []
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + extra)
            try:
                for screen, (path, seat) in screens.items():
                    runs = [run_screen(browser, page_base, proxy, screen, path, seat) for _ in range(args.runs)]
                    results[screen] = {
                        "wire_bytes": statistics.median(r["first"].wire for r in runs),
                        "requests": statistics.median(r["first"].requests for r in runs),
                        "precache_bytes": statistics.median(r["first"].sw_bytes for r in runs),
                        **{k: median_ms([r[k].ms for r in runs]) for k in ("first", "repeat_http", "repeat_sw", "liefi_sw")},
                        "repeat_http_requests": statistics.median(r["repeat_http"].requests for r in runs),
                        "repeat_sw_requests": statistics.median(r["repeat_sw"].requests for r in runs),
                    }
                    print(f"measured {screen}", file=sys.stderr, flush=True)
            finally:
                browser.close()
    finally:
        proxy.close()
        if edge:
            edge.stop()
        server.stop()

    print(f"Emulated phone: {NETWORK['latency']} ms RTT, 1.5 Mbit/s down, CPU {CPU_SLOWDOWN}x slower; "
          f"{'HTTPS + HTTP/2 edge (Caddy)' if edge else 'plain HTTP/1.1 to the server'}; "
          f"{'modules as written' if args.modules else 'bundles'}; "
          f"median of {args.runs} run(s); load average {os.getloadavg()[0]:.2f}")
    head = ("screen", "first: KB on wire", "requests", "time to usable", "repeat, no worker",
            "repeat, worker", "lie-fi, worker", "worker precache KB")
    rows = [head]
    for screen, r in results.items():
        rows.append((screen, f"{r['wire_bytes'] / 1024:.1f}", f"{r['requests']:.0f}", fmt_s(r["first"]),
                     f"{fmt_s(r['repeat_http'])} ({r['repeat_http_requests']:.0f} req)",
                     f"{fmt_s(r['repeat_sw'])} ({r['repeat_sw_requests']:.0f} req)",
                     fmt_s(r["liefi_sw"]), f"{r['precache_bytes'] / 1024:.0f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))

    checks = [("home ≤ 60 KB on the wire", results["home"]["wire_bytes"] <= TARGETS["home_kb"] * 1024),
              ("home usable ≤ 2.5 s", (results["home"]["first"] or 1e9) <= TARGETS["home_s"] * 1000)]
    for game in GAMES:
        checks.append((f"{game} usable ≤ 3.5 s", (results[game]["first"] or 1e9) <= TARGETS["table_s"] * 1000))
    for screen, r in results.items():
        checks.append((f"{screen} repeat with the worker ≤ 1 s", (r["repeat_sw"] or 1e9) <= TARGETS["repeat_s"] * 1000))
        checks.append((f"{screen} lie-fi with the worker ≤ 1 s", (r["liefi_sw"] or 1e9) <= TARGETS["repeat_s"] * 1000))
    print()
    for what, ok in checks:
        print(f"{'met ' if ok else 'MISSED'}  {what}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
