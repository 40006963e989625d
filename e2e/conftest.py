"""End-to-end fixtures: a real redis-server, the real app in a subprocess, one
Chromium, and a ``phone`` factory giving each phone its own browser context.

Chromium is Debian's (``/usr/bin/chromium``; Playwright's own download is not
needed). ``TABLEMATE_E2E_CHROMIUM`` points elsewhere if wanted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from conftest import RedisServer, free_port, skip_or_fail

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("TABLEMATE_E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The toy game of the platform tests, served next to the real games so the
# table screens can be driven with predictable rules.
TOY_SPEC = "tests.toy_engine:TOY"

expect.set_options(timeout=10_000)

#: What web/i18n.js logs when a screen shows a string its language lacks.
MISSING_STRING = "Tablemate: no translation for"



def _wait(check: Callable[[], bool], what: str, proc: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited early with code {proc.returncode}")
        if check():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not come up within {timeout:.0f} s")


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)  # gunicorn's quick shutdown: open sockets just drop
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    """The session's redis-server (root conftest); e2e tables never collide."""
    return redis_server.url


class AppServer:
    """The app in its production serving model (gunicorn + gevent) on a fixed
    port, on the given Redis; can be stopped and started again on the same port
    (same origin for the phones)."""

    def __init__(self, redis_url: str, log_path: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.env = {
            **os.environ,
            "REDIS_URL": redis_url,
            # Every phone of the suite comes from 127.0.0.1: one address, many tables.
            "TABLEMATE_RATE_CREATE": "1000",
            "TABLEMATE_RATE_JOIN": "1000",
            "TABLEMATE_RATE_CODE": "1000",
            # The host may go on without a waited seat after a second, not a minute.
            "TABLEMATE_STALL_AFTER": "1",
        }
        self.env.pop("TABLEMATE_FIXED_RANDOM", None)
        if (ROOT / "tests" / "toy_engine.py").exists():
            extra = [s for s in self.env.get("TABLEMATE_EXTRA_ENGINES", "").split(",") if s]
            self.env["TABLEMATE_EXTRA_ENGINES"] = ",".join([*extra, TOY_SPEC])
        self.proc: subprocess.Popen | None = None

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base}/healthz", timeout=1) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "server/gunicorn_conf.py"),
                 "server:create_app()"],
                cwd=ROOT,
                env={**self.env, "BIND": f"127.0.0.1:{self.port}", "PYTHONPATH": str(ROOT)},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            _wait(self.healthy, "the app server", self.proc)
        except RuntimeError as e:
            raise RuntimeError(f"{e}\n{self.log_path.read_text(errors='replace')[-3000:]}") from None

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
            self.proc = None

    def __enter__(self) -> AppServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session", autouse=True)
def bundles(web_build: Path) -> Iterator[Path]:
    """Every app server of the run serves a fresh build of web/'s bundles
    (what users get), through the environment each AppServer copies."""
    before = os.environ.get("TABLEMATE_BUILD_DIR")
    os.environ["TABLEMATE_BUILD_DIR"] = str(web_build)
    yield web_build
    if before is None:
        os.environ.pop("TABLEMATE_BUILD_DIR", None)
    else:
        os.environ["TABLEMATE_BUILD_DIR"] = before


@pytest.fixture(scope="session")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of the app on a free port, on the real Redis."""
    with AppServer(redis_url, tmp_path_factory.mktemp("server") / "server.log") as app:
        yield app.base


@pytest.fixture
def own_server(redis_url: str, tmp_path: Path) -> Iterator[AppServer]:
    """A server of the test's own, which the test may stop and restart."""
    with AppServer(redis_url, tmp_path / "server.log") as app:
        yield app


@pytest.fixture(scope="session")
def games(server: str) -> list[dict]:
    with urllib.request.urlopen(f"{server}/api/games", timeout=5) as r:
        return json.load(r)["games"]


@pytest.fixture
def toy(games: list[dict]) -> dict:
    """The toy game's GET /api/games entry (tests/toy_engine.py): tests of the
    platform itself play it."""
    found = next((g for g in games if g["name"] == "toy"), None)
    if found is None:
        skip_or_fail("the toy engine (tests/toy_engine.py) is not served")
    return found


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        skip_or_fail(f"Chromium not found at {CHROMIUM} (Debian package chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


Phone = Callable[..., Page]


@pytest.fixture
def phone(browser: Browser, server: str) -> Iterator[Phone]:
    """``phone(locale="ko-KR")`` → a new page in its own context: one phone each,
    with its own localStorage (its seat tokens) and a mobile viewport;
    ``color_scheme`` is the phone's light or dark setting (Playwright's: light)."""
    contexts = []
    errors: list[str] = []

    def make(locale: str = "ko-KR", base_url: str | None = None, color_scheme: str = "light") -> Page:
        ctx = browser.new_context(
            base_url=base_url or server,
            viewport={"width": 390, "height": 844},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            locale=locale,
            color_scheme=color_scheme,
        )
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        if os.environ.get("E2E_LATENCY"):
            # E2E_LATENCY=300 (ms): every phone behind Chromium's network emulation, a
            # slow Wi-Fi; not in CI: for a hunt (it found the goal-card and reorder races).
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": int(os.environ["E2E_LATENCY"]),
                                                         "downloadThroughput": -1, "uploadThroughput": -1})
        page.on("pageerror", lambda exc: errors.append(f"{locale}: {exc}"))
        # The strict CSP must never have to block anything the app does.
        page.on("console", lambda msg: errors.append(f"{locale}: {msg.text}")
                if msg.type == "error" and "Content Security Policy" in msg.text else None)
        # A string the screen's language lacks (web/i18n.js: missing), in
        # whatever screen and state this test brought the phone to: every e2e
        # test is a walk over screens, in Korean or English, that fails on it.
        page.on("console", lambda msg: errors.append(f"{locale}: {msg.text}")
                if MISSING_STRING in msg.text else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"errors in the page: {errors}"
