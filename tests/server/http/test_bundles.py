"""The pages served from a build of web/ (scripts/build-web.sh: esbuild's
per-screen bundles), and the fallback to web/'s modules when the build does
not match web/ (server/http/assets.py)."""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

import pytest

from server import create_app
from server.http.assets import Assets
from server.http.static import IMMUTABLE, WEB
from tests.server.http.test_static import assert_served_for_good
from tests.toy_engine import TOY

# What a table page may ask for before its first render: the app's bundle,
# the table screens', the game's and the chunks they share (7 today, against
# ~37 modules unbundled), with room for one more shared chunk.
MAX_TABLE_SCRIPTS = 8
MAX_HOME_SCRIPTS = 5


@pytest.fixture
def app(redis_url: str, web_build: Path):
    return create_app({"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY], "FIXED_RANDOM": True,
                       "RATE_CREATE": 1000, "RATE_JOIN": 1000, "RATE_CODE": 1000, "WEB_BUILD": web_build})


@pytest.fixture
def assets(app) -> Assets:
    return app.extensions["tablemate.assets"]


def page(client, url: str) -> str:
    resp = client.get(url, headers={"Accept-Encoding": "identity"})
    return resp.data.decode()


def scripts_of(html: str) -> list[str]:
    """Every script URL the page names: its module and its modulepreloads."""
    return (re.findall(r'<script type="module" src="([^"]+)"', html)
            + re.findall(r'<link rel="modulepreload" href="([^"]+)"', html))


def table_page(client, game: str) -> str:
    r = client.post("/api/tables", json={"game": game, "name": "Host", "options": {}})
    assert r.status_code == 201, r.json
    return page(client, f"/t/{r.json['table']}")


def test_the_build_is_used(assets: Assets, web_build: Path) -> None:
    assert assets.bundles is not None
    manifest = json.loads((web_build / "manifest.json").read_text())
    assert manifest["bundler"].startswith("esbuild ")
    assert set(manifest["entries"]) >= {"/app.js", "/screens/session.js", "/games/camelup.js",
                                        "/games/kingup.js", "/games/countup.js", "/games/generic.js"}


@pytest.mark.parametrize("game", ["camelup", "kingup", "countup"])
def test_a_table_page_names_a_handful_of_bundles_and_their_whole_graph(client, assets: Assets, game: str) -> None:
    html = table_page(client, game)
    scripts = scripts_of(html)
    assert len(scripts) == len(set(scripts)) <= MAX_TABLE_SCRIPTS, scripts
    bundles = assets.bundles
    assert bundles is not None
    assert scripts[0] == bundles.entries["/app.js"]
    assert {bundles.entries["/screens/session.js"], bundles.entries[f"/games/{game}.js"]} <= set(scripts)
    # No import chain: whatever any named bundle imports is named too.
    for url in scripts:
        assert set(bundles.imports[url]) <= set(scripts), url
    assert not [u for u in scripts if not re.fullmatch(r"/[a-z]+-[A-Z0-9]{8}\.js", u)], "hashed names only"
    assert f'<link rel="stylesheet" href="{assets.versioned(f"/games/{game}.css")}" data-game-css="{game}">' in html


def test_the_home_page_names_no_table_screen(client, assets: Assets) -> None:
    scripts = scripts_of(page(client, "/"))
    bundles = assets.bundles
    assert bundles is not None
    assert len(scripts) <= MAX_HOME_SCRIPTS, scripts
    assert bundles.entries["/screens/session.js"] not in scripts
    assert not {bundles.entries[g] for g in bundles.entries if g.startswith("/games/")} & set(scripts)


def test_the_proof_checks_come_with_the_table_screens_and_the_word_lists_on_use(client, assets: Assets) -> None:
    """web/fairness.js and web/words.js (issue 31) are part of the table
    screens' bundle (the lobby seeds, the table shows the 4 words and checks
    the start's reveal at once), never of the home page; the word lists are
    on no page's first load, and precached by the worker so a phone offline
    has them."""
    bundles = assets.bundles
    assert bundles is not None
    assert not {"/fairness.js", "/words.js"} & set(bundles.entries), "no file of their own: one request fewer"

    def code(urls: list[str]) -> str:
        return "".join(client.get(u, headers={"Accept-Encoding": "identity"}).data.decode() for u in urls)

    # fairness.js's proof format and words.js's lists, by their strings.
    table_code = code(bundles.closure(bundles.entries["/screens/session.js"]))
    assert "tablemate-proof/2" in table_code and "./words/" in table_code
    assert "tablemate-proof/2" not in code(scripts_of(page(client, "/")))
    for html in (page(client, "/"), *(table_page(client, g) for g in ("camelup", "kingup", "countup"))):
        assert not re.search(r"<link[^>]+/words/", html), "no word list is preloaded"
    body = client.get("/sw.js", headers={"Accept-Encoding": "identity"}).data.decode()
    files = json.loads(re.search(r"const BUILD = (\{.*\});", body).group(1))["files"]
    assert {"/words/en.json", "/words/ko.json"} <= set(files)


def test_import_map_names_what_is_loaded_by_url_and_is_allowed_by_the_csp(client, assets: Assets) -> None:
    resp = client.get("/", headers={"Accept-Encoding": "identity"})
    html = resp.data.decode()
    m = re.search(r'<script type="importmap">(.*?)</script>', html)
    assert m
    imports = json.loads(m.group(1))["imports"]
    bundles = assets.bundles
    assert bundles is not None
    # A game module by name (games-loader.js), the strings and the stylesheets.
    for path, url in bundles.entries.items():
        assert imports[path] == url
    assert imports["/i18n/ko.json"] == assets.versioned("/i18n/ko.json")
    assert imports["/games/kingup.css"] == assets.versioned("/games/kingup.css")
    assert "/ui.js" not in imports, "a bundled module has no URL of its own"
    assert assets.import_map_csp in resp.headers["Content-Security-Policy"]


def test_bundles_are_immutable_and_compressed(client, assets: Assets) -> None:
    for url in assets.built:
        resp = client.get(url, headers={"Accept-Encoding": "br"})
        assert resp.status_code == 200, url
        assert resp.headers["Cache-Control"] == IMMUTABLE
        assert resp.mimetype == "text/javascript"
        if len(assets.built[url].body) > 500:
            assert resp.headers["Content-Encoding"] == "br"
    # A retry's URL of its own gets the same file.
    url = next(iter(assets.built))
    assert client.get(f"{url}?retry=1", headers={"Accept-Encoding": "identity"}).data == assets.built[url].body


def test_the_worker_precaches_the_bundles_not_the_modules(client, assets: Assets) -> None:
    body = client.get("/sw.js", headers={"Accept-Encoding": "identity"}).data.decode()
    files = json.loads(re.search(r"const BUILD = (\{.*\});", body).group(1))["files"]
    assert set(assets.built) <= set(files)
    on_disk = {"/" + p.relative_to(WEB).as_posix() for p in WEB.rglob("*") if p.is_file()}
    others = {f for f in on_disk if not f.endswith((".py", ".md", ".js")) and f != "/index.html"}
    assert set(files) == others | set(assets.built) | {"/"}, "every stylesheet, icon and string file too"
    assert_served_for_good(client, files)


def copy_web(tmp_path: Path) -> Path:
    web = tmp_path / "web"
    shutil.copytree(WEB, web)
    return web


def test_a_stale_build_falls_back_to_the_modules_and_says_why(tmp_path: Path, web_build: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    web = copy_web(tmp_path)
    with caplog.at_level(logging.WARNING, logger="server.http.assets"):
        assert Assets(web, build=web_build).bundles is not None
        assert not caplog.records
        (web / "ui.js").write_text((web / "ui.js").read_text() + "\n// edited, not rebuilt\n")
        stale = Assets(web, build=web_build)
    assert stale.bundles is None and not stale.built
    assert [r.getMessage() for r in caplog.records] == [
        f"web: serving web/'s modules as written, not bundles: the build in {web_build} is stale: "
        "web/ui.js changed since it was built"]
    html = stale.index_html("camelup").decode()
    assert f'src="{stale.versioned("/app.js")}"' in html and "/app.js?v=" in html
    assert f'href="{stale.versioned("/screens/table.js")}"' in html, "the module graph, preloaded"


def test_a_new_module_or_no_build_falls_back_too(tmp_path: Path, web_build: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    web = copy_web(tmp_path)
    (web / "games" / "newgame.js").write_text("export default {};\n")
    with caplog.at_level(logging.WARNING, logger="server.http.assets"):
        assert Assets(web, build=web_build).bundles is None
        assert Assets(web, build=tmp_path / "nothing").bundles is None
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0].endswith("web/games/newgame.js is not in it")
    assert messages[1].endswith(f"no build in {tmp_path / 'nothing'} (scripts/build-web.sh makes one)")
