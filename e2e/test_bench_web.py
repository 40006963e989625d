"""bench/web.py's screens and probes against today's app, unthrottled: each
screen it times must become "usable" as the bench defines it, or the bench
measures a timeout instead of a page (it did, for a lobby and every table,
once tokens left the URL: the bench still opened them with ``#rejoin=``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from playwright.sync_api import Browser

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_web", ROOT / "bench" / "web.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_web"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_screen_the_bench_times_becomes_usable(browser: Browser, server: str) -> None:
    web = _bench()
    screens = web.open_screens(server)
    assert set(screens) == {"home", "lobby", *web.GAMES}
    for screen, (path, seat) in screens.items():
        ctx = browser.new_context(base_url=server, viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, locale="en-US", service_workers="block")
        if seat:
            ctx.add_init_script(seat)
        try:
            page = ctx.new_page()
            page.goto(path)
            page.wait_for_function(f"() => !!({web.USABLE[screen]})", timeout=15_000)
            if screen != "home":
                # The seat's own view, not the join form a phone without a token gets.
                assert page.locator("#join-title").count() == 0, screen
        finally:
            ctx.close()
