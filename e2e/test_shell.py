"""The offline shell (issue 13): a table of every game reloads offline into
its real game screen, a deploy is offered as "a new version is ready", and a
game module that fails to download is retried, then offered for retry, never
shown as the generic debug screen."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from e2e.conftest import ROOT, AppServer
from tests import api_client

GAMES = {"camelup": ".game-camelup", "kingup": ".game-kingup", "countup": ".game-countup"}


def post(server: str, path: str, body: dict, token: str | None = None) -> dict:
    return api_client.call(server, "POST", path, body, token)


def started_table(server: str, game: str, players: int = 3) -> tuple[str, str]:
    """A started table of `game` (over the API); the host's table id and token."""
    r = post(server, "/api/tables", {"game": game, "name": "Host", "options": {}})
    table, token = r["table"], r["player"]["token"]
    for i in range(players - 1):
        post(server, f"/api/tables/{table}/players", {"name": f"P{i + 2}"})
    post(server, f"/api/tables/{table}/actions", {"action": {"type": "start"}, "request_id": f"s-{table}"}, token)
    return table, token


def hold_seat(ctx: BrowserContext, table: str, token: str) -> None:
    """Every page of ``ctx`` holds the seat's token, as a phone that joined keeps it."""
    ctx.add_init_script(f"localStorage.setItem({json.dumps('tablemate.token.' + table)}, {json.dumps(token)})")


def wait_controlled(page: Page) -> None:
    page.evaluate("navigator.serviceWorker.ready")
    page.wait_for_function("() => !!navigator.serviceWorker.controller")


def test_offline_reload_of_each_game_shows_the_real_game(phone, server, games):
    names = {g["name"] for g in games}
    page = phone("en-US")
    for game, root in GAMES.items():
        if game not in names:
            pytest.fail(f"{game} is not served")
        table, token = started_table(server, game)
        hold_seat(page.context, table, token)
        page.goto(f"/t/{table}")
        expect(page.locator(root)).to_be_visible()
        wait_controlled(page)

        page.context.set_offline(True)
        page.reload()
        expect(page.locator(root)).to_be_visible()
        expect(page.locator(".generic-view")).to_have_count(0)
        expect(page.get_by_text("The game screen could not be downloaded")).to_have_count(0)
        page.context.set_offline(False)
        # Back online it catches up by itself.
        expect(page.get_by_role("status").filter(has_text="Connected")).to_be_visible(timeout=30_000)


def test_offline_reload_from_the_modules_as_written(browser: Browser, redis_url: str, tmp_path: Path):
    """Without a build (a developer's server, or a stale one) the pages run
    web/'s modules one by one: the worker's list must hold every one of them
    (net.js, live.js, outbox.js, connection.js, snapshot.js and the screens'
    parts), or an installed phone reloading offline gets a blank page."""
    app = AppServer(redis_url, tmp_path / "server.log")
    app.env["TABLEMATE_BUILD_DIR"] = str(tmp_path / "no-build")
    app.start()
    ctx = browser.new_context(base_url=app.base, locale="en-US", viewport={"width": 390, "height": 844})
    try:
        table, token = started_table(app.base, "kingup")
        hold_seat(ctx, table, token)
        page = ctx.new_page()
        page.goto(f"/t/{table}")
        expect(page.locator(GAMES["kingup"])).to_be_visible()
        wait_controlled(page)
        modules = page.evaluate("performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)"
                                ".filter((p) => p.endsWith('.js'))")
        assert {"/live.js", "/outbox.js", "/connection.js", "/snapshot.js", "/net.js"} <= set(modules), modules

        # Only the worker's cache, not the browser's HTTP cache (which a phone
        # may have evicted), may serve the modules offline.
        ctx.new_cdp_session(page).send("Network.clearBrowserCache")
        ctx.set_offline(True)
        page.reload()
        expect(page.locator(GAMES["kingup"])).to_be_visible()
        expect(page.get_by_role("status").filter(has_text="Reconnecting…").or_(
            page.get_by_role("status").filter(has_text="Connecting…"))).to_be_visible()
        page.goto("/")
        expect(page.get_by_role("heading", name="New table")).to_be_visible()
        page.get_by_text("Rule options", exact=True).click()
        expect(page.locator(".options-fields")).not_to_be_empty()
        ctx.set_offline(False)
        page.goto(f"/t/{table}")
        expect(page.get_by_role("status").filter(has_text="Connected")).to_be_visible(timeout=30_000)
    finally:
        ctx.close()
        app.stop()


def test_home_recovers_when_the_network_returns(phone):
    page = phone("en-US")
    page.goto("/")
    expect(page.get_by_role("button", name="Create table")).to_be_enabled()
    wait_controlled(page)
    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", name="New table")).to_be_visible()
    expect(page.get_by_role("button", name="Create table")).to_be_disabled()
    page.context.set_offline(False)
    expect(page.get_by_role("button", name="Create table")).to_be_enabled(timeout=15_000)
    expect(page.get_by_label("Game", exact=True).locator("option")).not_to_have_count(0)


def test_update_prompt_after_a_deploy(browser: Browser, redis_url: str, tmp_path: Path):
    web = tmp_path / "web"
    shutil.copytree(ROOT / "web", web)
    app = AppServer(redis_url, tmp_path / "server.log")
    app.env["TABLEMATE_WEB_DIR"] = str(web)
    app.start()
    ctx = browser.new_context(base_url=app.base, locale="en-US", viewport={"width": 390, "height": 844})
    try:
        page = ctx.new_page()
        page.goto("/")
        expect(page.get_by_role("heading", name="New table")).to_be_visible()
        wait_controlled(page)
        old = page.evaluate("caches.keys()")
        old_css = page.evaluate("document.querySelector('link[rel=stylesheet]').href").split("/")[-1]
        page.reload()
        expect(page.get_by_role("button", name="A new version is ready")).to_have_count(0)

        # A deploy: one stylesheet changed, the server restarted.
        app.stop()
        (web / "style.css").write_text((web / "style.css").read_text() + "\n/* deploy 2 */\n")
        app.start()
        page.reload()
        prompt = page.get_by_role("button", name="A new version is ready — tap to reload")
        expect(prompt).to_be_visible(timeout=20_000)
        # Until the tap, the page runs on the version it started with.
        assert page.evaluate("document.querySelector('link[rel=stylesheet]').href").endswith(old_css)
        with page.expect_event("load"):
            prompt.click()
        expect(page.get_by_role("heading", name="New table")).to_be_visible()
        expect(prompt).to_have_count(0)
        keys = page.evaluate("caches.keys()")
        assert len(keys) == 1 and keys != old, (old, keys)
        css = page.evaluate("""async () => {
          const href = document.querySelector('link[rel=stylesheet]').href;
          return (await (await caches.open((await caches.keys())[0])).match(href)) ? href : null;
        }""")
        assert css, "the new stylesheet is the cached one"
        assert "deploy 2" in page.evaluate("fetch(document.querySelector('link[rel=stylesheet]').href).then(r => r.text())")
    finally:
        ctx.close()
        app.stop()


# King Up!'s module: its bundle (/kingup-<hash>.js), or unbundled /games/kingup.js?v=…
KINGUP_MODULE = "**/kingup*.js*"


@pytest.mark.parametrize("failures", [1, 99])
def test_failed_game_download_is_retried_then_offered(browser: Browser, server: str, failures: int):
    table, token = started_table(server, "kingup")
    # No worker here: the test's route must see every request for the module.
    ctx = browser.new_context(base_url=server, locale="en-US", service_workers="block",
                              viewport={"width": 390, "height": 844})
    seen = {"n": 0}

    def flaky(route) -> None:
        seen["n"] += 1
        if seen["n"] <= failures:
            route.abort("connectionreset")
        else:
            route.continue_()

    try:
        ctx.route(KINGUP_MODULE, flaky)
        hold_seat(ctx, table, token)
        page = ctx.new_page()
        page.goto(f"/t/{table}")
        if failures == 1:
            expect(page.locator(".game-kingup")).to_be_visible()
            assert seen["n"] >= 2
        else:
            expect(page.get_by_role("alert").filter(has_text="The game screen could not be downloaded")).to_be_visible()
            expect(page.locator(".generic-view")).to_have_count(0)
            assert seen["n"] >= 3, "retried before giving up"
            ctx.unroute(KINGUP_MODULE)
            page.get_by_role("button", name="Try again").click()
            expect(page.locator(".game-kingup")).to_be_visible()
            expect(page.get_by_text("The game screen could not be downloaded")).to_have_count(0)
    finally:
        ctx.close()


# A table page served from the bundles: the app's, the table screens', the
# game's and the chunks they share (7 today), against ~37 modules unbundled.
MAX_TABLE_SCRIPTS = 8


@pytest.mark.parametrize("game", list(GAMES))
def test_a_table_page_from_the_bundles_asks_for_a_handful_of_scripts(browser: Browser, server: str, game: str):
    table, token = started_table(server, game)
    # No worker: every request of the page goes to the network and is seen.
    ctx = browser.new_context(base_url=server, locale="en-US", service_workers="block",
                              viewport={"width": 390, "height": 844})
    try:
        page = ctx.new_page()
        scripts: list[str] = []
        page.on("request", lambda r: scripts.append(r.url.removeprefix(server)) if r.resource_type == "script" else None)
        hold_seat(ctx, table, token)
        page.goto(f"/t/{table}")
        expect(page.locator(GAMES[game])).to_be_visible()
        assert len(scripts) == len(set(scripts)) <= MAX_TABLE_SCRIPTS, scripts
        assert all(re.fullmatch(r"/[a-z]+-[A-Z0-9]{8}\.js", s) for s in scripts), scripts
    finally:
        ctx.close()


def test_a_stale_build_still_serves_a_working_app(browser: Browser, redis_url: str, bundles: Path, tmp_path: Path):
    """A developer edits web/ and does not rebuild: the server serves the
    modules as written (and logs why), and every screen works."""
    web = tmp_path / "web"
    shutil.copytree(ROOT / "web", web)
    (web / "ui.js").write_text((web / "ui.js").read_text() + "\n// edited, not rebuilt\n")
    app = AppServer(redis_url, tmp_path / "server.log")
    app.env.update({"TABLEMATE_WEB_DIR": str(web), "TABLEMATE_BUILD_DIR": str(bundles)})
    app.start()
    ctx = browser.new_context(base_url=app.base, locale="en-US", service_workers="block",
                              viewport={"width": 390, "height": 844})
    try:
        table, token = started_table(app.base, "kingup")
        page = ctx.new_page()
        scripts: list[str] = []
        page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
        hold_seat(ctx, table, token)
        page.goto(f"/t/{table}")
        expect(page.locator(".game-kingup")).to_be_visible()
        assert any("/ui.js?v=" in s for s in scripts), scripts
        page.goto("/")
        expect(page.get_by_role("button", name="Create table")).to_be_enabled()
        assert "web/ui.js changed since it was built" in (tmp_path / "server.log").read_text()
    finally:
        ctx.close()
        app.stop()
