"""The installable app: manifest and icons, the service worker's shell cache
(never the API), the app opening offline, and the socket coming back after the
server went away."""

from __future__ import annotations

import io
import json
import re
import urllib.request
from pathlib import Path

from PIL import Image
from playwright.sync_api import expect

SHELL_STATE = """async () => {
  const reg = await navigator.serviceWorker.ready;
  const keys = await caches.keys();
  const paths = [];
  for (const k of keys) {
    for (const req of await (await caches.open(k)).keys()) paths.push(new URL(req.url).pathname);
  }
  return {active: !!reg.active, keys, paths};
}"""


def get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read()


def test_manifest_and_icons(server):
    status, ctype, body = get(f"{server}/manifest.webmanifest")
    assert status == 200
    m = json.loads(body)
    assert m["name"] == "Tablemate" and m["short_name"]
    assert m["display"] == "standalone" and m["start_url"] == "/"
    assert m["theme_color"] and m["background_color"]
    sizes = set()
    for icon in m["icons"]:
        status, ctype, png = get(server + icon["src"])
        assert status == 200 and ctype == "image/png"
        img = Image.open(io.BytesIO(png))
        assert f"{img.width}x{img.height}" == icon["sizes"]
        sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes


def test_service_worker_caches_the_shell_only_and_opens_offline(phone, games):
    page = phone("en-US")
    page.goto("/")
    expect(page.get_by_role("heading", name="New table")).to_be_visible()
    state = page.evaluate(SHELL_STATE)
    assert state["active"]
    assert len(state["keys"]) == 1 and state["keys"][0].startswith("tablemate-shell-")
    assert {"/", "/app.js", "/net.js", "/style.css", "/i18n/ko.json", "/games/generic.js"} <= set(state["paths"])

    # Controlled by the worker now: open a table (API calls, a socket), then
    # check that nothing of the API went into the cache.
    page.reload()
    assert page.evaluate("!!navigator.serviceWorker.controller")
    page.get_by_label("Game", exact=True).select_option(index=0)
    page.get_by_label("Your name", exact=True).fill("Offline Olga")
    page.get_by_role("button", name="Create table").click()
    expect(page.get_by_role("status").filter(has_text="Connected")).to_be_visible()
    paths = page.evaluate(SHELL_STATE)["paths"]
    assert not [p for p in paths if p.startswith("/api/") or p.startswith("/t/")], paths

    # Offline, the installed app still opens (the shell), and says the server is unreachable.
    page.context.set_offline(True)
    page.goto("/")
    expect(page.get_by_role("heading", name="New table")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("could not be reached")
    page.context.set_offline(False)


def test_socket_reconnects_after_the_server_restarts(phone, games, own_server):
    page = phone("en-US", base_url=own_server.base)
    page.goto("/")
    page.get_by_label("Game", exact=True).select_option(index=0)
    page.get_by_label("Your name", exact=True).fill("Rita")
    page.get_by_role("button", name="Create table").click()
    connected = page.get_by_role("status").filter(has_text="Connected")
    expect(connected).to_be_visible()
    table = page.url.rsplit("/", 1)[1]

    own_server.stop()
    expect(page.get_by_role("status").filter(has_text="Reconnecting…")).to_be_visible()
    own_server.start()
    # Backoff with jitter: give it a few attempts.
    expect(connected).to_be_visible(timeout=20_000)

    # Live again: a seat taken now shows up without a reload.
    req = urllib.request.Request(
        f"{own_server.base}/api/tables/{table}/players", data=json.dumps({"name": "Sam"}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    urllib.request.urlopen(req, timeout=5).close()
    expect(page.get_by_role("list", name="Seats").locator(".seat-name")).to_have_text(["Rita", "Sam"])


def test_shell_list_names_every_app_file():
    """The worker's SHELL list must name every module of the app (a forgotten
    one breaks the installed app offline) and nothing that does not exist."""
    web = Path(__file__).resolve().parent.parent / "web"
    listed = set(re.findall(r"'(/[^']*)'", (web / "sw.js").read_text().split("const SHELL = [")[1].split("];")[0]))
    files = {"/" + p.relative_to(web).as_posix() for p in web.rglob("*") if p.is_file()}
    modules = {f for f in files if f.endswith(".js") and f != "/sw.js" and not f.startswith("/games/")}
    assert modules | {"/games/generic.js", "/i18n/ko.json", "/i18n/en.json", "/style.css"} <= listed
    assert listed - {"/"} <= files
