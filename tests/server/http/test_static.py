"""The PWA's serving (server/http/static.py, server/http/assets.py): compression as the
phone asks, versioned URLs cached for good, the pages and the worker always
revalidated, and the worker's precache list naming files that exist."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path

import brotli
import pytest

from server.http.assets import Assets
from server.http.static import IMMUTABLE, WEB


@pytest.fixture
def assets(app) -> Assets:
    return app.extensions["tablemate.assets"]


def decoded(resp) -> bytes:
    enc = resp.headers.get("Content-Encoding")
    if enc == "br":
        return brotli.decompress(resp.data)
    if enc == "gzip":
        return gzip.decompress(resp.data)
    assert enc is None, enc
    return resp.data


def sw_build(client) -> dict:
    body = client.get("/sw.js", headers={"Accept-Encoding": "identity"}).data.decode()
    return json.loads(re.search(r"const BUILD = (\{.*\});", body).group(1))


@pytest.mark.parametrize("encoding", ["br", "gzip"])
@pytest.mark.parametrize("path", ["/", "/app.js", "/style.css", "/i18n/ko.json", "/games/camelup.js", "/api/games"])
def test_compression_is_negotiated(client, encoding, path) -> None:
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    resp = client.get(path, headers={"Accept-Encoding": f"{encoding}, deflate"})
    assert resp.status_code == 200
    assert resp.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in resp.headers["Vary"]
    assert decoded(resp) == plain.data
    assert len(resp.data) < len(plain.data)


def test_brotli_preferred_when_both_are_offered(client) -> None:
    resp = client.get("/app.js", headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert resp.headers["Content-Encoding"] == "br"


def test_tiny_responses_and_images_are_not_compressed(client, table) -> None:
    tiny = client.get("/healthz", headers={"Accept-Encoding": "br, gzip"})
    assert tiny.status_code == 200 and "Content-Encoding" not in tiny.headers
    png = client.get("/icons/icon-192.png", headers={"Accept-Encoding": "br, gzip"})
    assert png.status_code == 200 and "Content-Encoding" not in png.headers


def test_api_is_never_cacheable(client, table) -> None:
    resp = client.get(f"/api/tables/{table[0].table}", headers={**table[0].auth, "Accept-Encoding": "br"})
    assert resp.headers["Cache-Control"] == "no-store"


def test_versioned_urls_are_immutable(client, assets) -> None:
    for path in ("/app.js", "/games/kingup.js", "/games/kingup.css", "/icons/icon-512.png", "/i18n/en.json"):
        resp = client.get(assets.versioned(path))
        assert resp.status_code == 200, path
        assert resp.headers["Cache-Control"] == IMMUTABLE, path


def test_unversioned_and_stale_urls_still_work_but_revalidate(client, assets) -> None:
    current = client.get(assets.versioned("/app.js"), headers={"Accept-Encoding": "identity"}).data
    for url in ("/app.js", "/app.js?v=000000000000", "/app.js?retry=123"):
        resp = client.get(url, headers={"Accept-Encoding": "identity"})
        assert resp.status_code == 200, url
        assert resp.headers["Cache-Control"] == "no-cache", url
        assert resp.data == current, url
    assert client.get("/games/countup/speech.js").status_code == 200
    assert client.get("/nope.js").status_code == 404


def test_revalidation_answers_304(client, assets) -> None:
    for path, enc in (("/app.js", "br"), ("/app.js", "identity"), ("/icons/icon-192.png", "gzip")):
        first = client.get(path, headers={"Accept-Encoding": enc})
        again = client.get(path, headers={"Accept-Encoding": enc, "If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304, (path, enc)


@pytest.mark.parametrize("path", ["/", "/index.html", "/sw.js"])
def test_pages_and_worker_are_no_cache(client, path) -> None:
    resp = client.get(path)
    assert resp.status_code == 200
    assert resp.headers["Cache-Control"] == "no-cache"


def test_table_page_preloads_its_game(client, table, assets) -> None:
    home = client.get("/", headers={"Accept-Encoding": "identity"}).data.decode()
    page = client.get(f"/t/{table[0].table}", headers={"Accept-Encoding": "identity"}).data.decode()
    assert client.get("/t/NOPE12").status_code == 404
    preloads = set(re.findall(r'<link rel="modulepreload" href="([^"]+)"', page))
    # The toy game has no module of its own; the table screens are preloaded.
    assert assets.versioned("/screens/session.js") in preloads
    assert assets.versioned("/screens/table.js") in preloads
    home_preloads = set(re.findall(r'<link rel="modulepreload" href="([^"]+)"', home))
    assert assets.versioned("/screens/home.js") in home_preloads
    assert not [u for u in home_preloads if u.startswith(("/games/", "/screens/session.js"))], \
        "the home page ships no game and no table screen"


def test_camelup_page_preloads_the_game_graph(client, assets) -> None:
    r = client.post("/api/tables", json={"game": "camelup", "name": "Host", "options": {}})
    assert r.status_code == 201, r.json
    page = client.get(f"/t/{r.json['table']}", headers={"Accept-Encoding": "identity"}).data.decode()
    preloads = set(re.findall(r'<link rel="modulepreload" href="([^"]+)"', page))
    for m in ("/games/camelup.js", "/games/camelup/board.js", "/games/shared.js"):
        assert assets.versioned(m) in preloads, m
    # A stylesheet of the page from the start (its rules in the first style pass).
    assert f'<link rel="stylesheet" href="{assets.versioned("/games/camelup.css")}" data-game-css="camelup">' in page


def test_import_map_covers_every_module_and_is_allowed_by_the_csp(client, assets) -> None:
    resp = client.get("/", headers={"Accept-Encoding": "identity"})
    html = resp.data.decode()
    m = re.search(r'<script type="importmap">(.*?)</script>', html)
    assert m, "index.html has an import map"
    imports = json.loads(m.group(1))["imports"]
    # sw.js carries its own version; boot.js is written into the page itself.
    modules = {p for p in assets.files if p.endswith(".js") and p not in {"/sw.js", "/boot.js"}}
    assert modules <= set(imports)
    for path, url in imports.items():
        assert url == assets.versioned(path)
    assert html.index('type="importmap"') < html.index('type="module"'), "the map comes before any module"
    csp = resp.headers["Content-Security-Policy"]
    assert assets.import_map_csp in csp and "'unsafe-inline'" not in csp
    assert f'src="{assets.versioned("/app.js")}"' in html


def test_boot_script_runs_first_and_is_allowed_by_the_csp(client, assets) -> None:
    resp = client.get("/", headers={"Accept-Encoding": "identity"})
    html = resp.data.decode()
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert scripts == [assets.boot] and "tablemateEarly" in assets.boot
    assert html.index("<script>") < html.index("<link"), "before the stylesheet, which a classic script waits for"
    digest = base64.b64encode(hashlib.sha256(assets.boot.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in resp.headers["Content-Security-Policy"]
    assert "/boot.js" not in sw_build(client)["files"], "not a file of its own in the shell"


@pytest.mark.parametrize("page", ["/", "table"])
def test_every_page_carries_the_game_list(client, table, page) -> None:
    url = f"/t/{table[0].table}" if page == "table" else "/"
    html = client.get(url, headers={"Accept-Encoding": "identity"}).data.decode()
    m = re.search(r'<script type="application/json" id="games-data">(.*?)</script>', html, re.S)
    assert m, "the game list is in the page"
    assert json.loads(m.group(1)) == client.get("/api/games").json


def test_game_list_is_escaped_and_part_of_the_version(tmp_path: Path) -> None:
    plain = Assets(WEB, {"games": [{"name": "a"}]})
    sneaky = Assets(WEB, {"games": [{"name": "</script><script>alert(1)</script>"}]})
    assert plain.version != sneaky.version, "a changed game list is a new worker"
    assert "</script><script>" not in sneaky.index_html().decode()
    assert json.loads(sneaky.games_block)["games"][0]["name"].startswith("</script>")


def test_every_precache_entry_exists_and_is_served(client) -> None:
    build = sw_build(client)
    files = build["files"]
    assert re.fullmatch(r"[0-9a-f]{12}", build["version"])
    on_disk = {"/" + p.relative_to(WEB).as_posix() for p in WEB.rglob("*") if p.is_file()}
    app_files = {f for f in on_disk if not f.endswith((".py", ".md")) and f not in {"/sw.js", "/index.html", "/boot.js"}}
    assert set(files) == app_files | {"/"}
    assert_served_for_good(client, files)


def assert_served_for_good(client, files: dict[str, str]) -> None:
    """Every URL of the worker's list is served, and all but the page immutable."""
    for path, url in files.items():
        resp = client.get(url)
        assert resp.status_code == 200, url
        if path != "/":
            assert resp.headers["Cache-Control"] == IMMUTABLE, url


def test_version_follows_the_content(tmp_path: Path) -> None:
    web = tmp_path / "web"
    for p in WEB.rglob("*"):
        if p.is_file():
            (web / p.relative_to(WEB)).parent.mkdir(parents=True, exist_ok=True)
            (web / p.relative_to(WEB)).write_bytes(p.read_bytes())
    before = Assets(web)
    (web / "games" / "kingup.css").write_text((web / "games" / "kingup.css").read_text() + "\n/* new */\n")
    after = Assets(web)
    assert after.version != before.version
    assert after.versioned("/games/kingup.css") != before.versioned("/games/kingup.css")
    assert after.versioned("/app.js") == before.versioned("/app.js")
    assert after.sw_body != before.sw_body, "a deploy is a new worker"


def test_doctests() -> None:
    import doctest

    from server.http import assets as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_a_mistyped_page_address_gets_the_apps_not_found_page(client) -> None:
    for path in ("/foo", "/t/", "/tables/abc"):
        r = client.get(path)
        assert r.status_code == 404 and r.mimetype == "text/html", path
        assert b'<main id="view"' in r.data
    missing = client.get("/nope.js")
    assert missing.status_code == 404 and missing.mimetype == "application/json"
    api = client.get("/api/nothing")
    assert api.status_code == 404 and api.json["error"]["code"]
