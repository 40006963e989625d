"""The PWA's files, read once at start-up: content hashes for versioned URLs,
the ES-module import graph, and the three documents built from them (the
import map in index.html, the precache list inside sw.js, modulepreload
hints per screen). A deploy is a restart.

Two ways to serve the modules. With a build of web/ (``scripts/build-web.sh``:
esbuild's per-screen bundles with content-hashed names and a manifest) that
still matches web/ byte for byte, pages load the bundles: a table screen needs
about seven scripts instead of ~37 modules, which over HTTP/1.1's six
connections is several round trips fewer. Without one, or with one older than
web/ (a developer editing a file without rebuilding), every module is served as
written, and one log line says why.

Why query strings (``/app.js?v=<hash>``) for web/'s own files, where the
bundles have hashed names: a file keeps its path, so relative imports inside
the modules, the unversioned URLs that old pages and tests use, and the source
tree all stay as they are. The import map in index.html sends every module
import to its versioned URL, so a module cached "forever" can never pull in a
stale neighbour.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import mimetypes
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# Files in web/ that are tooling or notes, not part of the app.
_NOT_APP = (".py", ".md")
# index.html is rendered per screen and sw.js carries the version itself: both
# must be revalidated on every visit, so neither gets a versioned URL. boot.js
# is written into index.html itself (it must run before anything downloads).
_UNVERSIONED = ("/index.html", "/sw.js", "/boot.js")
_STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]""", re.M)
# The one line of web/sw.js the server fills in (see there).
SW_MARKER = "const BUILD = { version: 'dev', files: {} };"
_SCRIPT_SRC = "script-src 'self'"

mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("application/manifest+json", ".webmanifest")


@dataclass(frozen=True)
class Asset:
    path: str  # "/games/camelup.js"
    body: bytes
    mimetype: str
    digest: str  # first 12 hex digits of the SHA-256 of body (a bundle: its name's hash)
    named: bool = False  # the version is in the name (a bundle): the path is the versioned URL

    @property
    def url(self) -> str:
        return self.path if self.named else f"{self.path}?v={self.digest}"


def _digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:12]


def _closure(entries: tuple[str, ...], imports: dict[str, list[str]], known: dict[str, Asset]) -> list[str]:
    """Every file of ``known`` reachable from ``entries`` through ``imports``,
    entries first, each before what it imports (breadth first).

    >>> a = Asset("/a.js", b"", "text/javascript", "")
    >>> _closure(("/a.js", "/x.js"), {"/a.js": ["/b.js", "/a.js"]}, {"/a.js": a, "/b.js": a})
    ['/a.js', '/b.js']
    """
    seen: dict[str, None] = {}
    todo = list(entries)
    while todo:
        path = todo.pop(0)
        if path in seen or path not in known:
            continue
        seen[path] = None
        todo.extend(imports.get(path, []))
    return list(seen)


@dataclass(frozen=True)
class Bundles:
    """A build of web/ (scripts/build-web.mjs's manifest.json): ``entries``
    maps a source module to its bundle's URL, ``imports`` a bundle to the
    bundles it imports statically, ``files`` every bundle by URL (its name
    carries its content hash, so it is versioned as it is)."""

    entries: dict[str, str]
    imports: dict[str, list[str]]
    files: dict[str, Asset]

    def closure(self, *entries: str) -> list[str]:
        """Every bundle reachable by static imports from ``entries``, entries included."""
        return _closure(entries, self.imports, self.files)


def load_bundles(build: Path | None, sources: dict[str, Asset]) -> tuple[Bundles | None, str]:
    """The build in ``build`` if it was made from exactly ``sources`` (every
    module of web/ as read now), else None and why not.

    >>> load_bundles(None, {})
    (None, 'no build directory configured')
    """
    if build is None:
        return None, "no build directory configured"
    try:
        manifest = json.loads((build / "manifest.json").read_text("utf-8"))
        built: dict[str, str] = manifest["sources"]
        entries: dict[str, str] = manifest["entries"]
        outputs: dict[str, dict[str, list[str]]] = manifest["files"]
    except FileNotFoundError:
        return None, f"no build in {build} (scripts/build-web.sh makes one)"
    except (OSError, ValueError, KeyError, TypeError) as e:
        return None, f"unreadable build manifest in {build}: {e!r}"
    for path, sha in sorted(built.items()):
        a = sources.get(path)
        if a is None:
            return None, f"the build in {build} is stale: web{path} is gone"
        if hashlib.sha256(a.body).hexdigest() != sha:
            return None, f"the build in {build} is stale: web{path} changed since it was built"
    # A module the build never read is one it cannot hold (a new game, say).
    unbuilt = sorted(p for p in sources if p.endswith(".js") and p not in _UNVERSIONED and p not in built)
    if unbuilt:
        return None, f"the build in {build} is stale: web{unbuilt[0]} is not in it"
    files: dict[str, Asset] = {}
    for url in outputs:
        try:
            body = (build / url.lstrip("/")).read_bytes()
        except OSError as e:
            return None, f"the build in {build} is incomplete: {e}"
        files[url] = Asset(url, body, "text/javascript", url.rsplit("-", 1)[-1].removesuffix(".js"), named=True)
    imports = {url: list(out.get("imports", [])) for url, out in outputs.items()}
    return Bundles(dict(entries), imports, files), ""


def static_imports(source: str, path: str) -> list[str]:
    """The site paths a module imports statically (bare specifiers ignored).

    >>> static_imports("import { h } from '../ui.js';\\nimport './x.js';", '/screens/home.js')
    ['/ui.js', '/screens/x.js']
    >>> static_imports("/** @typedef {import('./net.js').Snapshot} S */", '/app.js')
    []
    """
    out = []
    for spec in _STATIC_IMPORT.findall(source):
        if spec.startswith("/"):
            out.append(posixpath.normpath(spec))
        elif spec.startswith("."):
            out.append(posixpath.normpath(posixpath.join(posixpath.dirname(path), spec)))
    return out


def _script_hash(source: str) -> str:
    """The CSP source that allows exactly this inline script."""
    return f"'sha256-{base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()}'"


def _inline_script(source: str) -> str:
    """A script's source as written into every page: without its comment
    lines and indentation, which every first visit would download.

    >>> _inline_script("// why\\n(() => {\\n  /** @type {number} */\\n  const a = 1; // kept\\n})();\\n")
    '(() => {\\nconst a = 1; // kept\\n})();'
    """
    # Safe for boot.js, which holds no string across lines.
    lines = (line.strip() for line in source.splitlines())
    return "\n".join(line for line in lines
                     if line and not line.startswith("//") and not (line.startswith("/*") and line.endswith("*/")))


def _data_block(data: object) -> str:
    """JSON as the text of a ``<script type="application/json">``: never
    executed (no CSP hash needed), and no ``</script>`` can end it early."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).replace("<", "\\u003c")


class Assets:
    """Everything under ``root`` that the app serves, hashed. ``games`` is
    what GET /api/games answers: written into every page, so no screen waits
    a round trip for it, and part of the version, so a cached page never
    keeps an old game list."""

    def __init__(self, root: Path, games: object = None, build: Path | None = None) -> None:
        self.root = root
        self.files: dict[str, Asset] = {}
        for p in sorted(root.rglob("*")):
            if not p.is_file() or p.name.startswith("."):
                continue
            path = "/" + p.relative_to(root).as_posix()
            body = p.read_bytes()
            mime = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
            self.files[path] = Asset(path, body, mime, _digest(body))
        self.imports = {
            path: static_imports(a.body.decode("utf-8"), path)
            for path, a in self.files.items() if path.endswith(".js")
        }
        self.bundles, why = load_bundles(build, self.files)
        if self.bundles is None and build is not None:
            # A warning: the one level shown without logging set up (gunicorn
            # sets up its own only), and in an image a missing build is a bug.
            log.warning("web: serving web/'s modules as written, not bundles: %s", why)
        # The files served under their own (hashed) names: a build's bundles.
        self.built: dict[str, Asset] = self.bundles.files if self.bundles else {}
        app_files = [a for path, a in self.files.items() if self.is_app_file(path)] + list(self.built.values())
        # One version for the whole shell: any changed file changes it, and so
        # changes sw.js, which is how a phone learns of a deploy.
        self.games_block = "" if games is None else _data_block(games)
        self.version = _digest("\n".join([*(f"{a.path} {a.digest}" for a in app_files), self.games_block]).encode())
        # What a module asks for by URL at run time: a game module by name
        # (games-loader.js), the strings and a game's stylesheet
        # (import.meta.resolve). Without bundles, every module's import too.
        mapped = {a.path: a.url for a in app_files if a.path.endswith((".css", ".json"))}
        if self.bundles:
            mapped.update(self.bundles.entries)
        else:
            mapped.update({a.path: a.url for a in app_files if a.path.endswith(".js")})
        self.import_map = json.dumps({"imports": mapped}, separators=(",", ":"), sort_keys=True)
        self.import_map_csp = _script_hash(self.import_map)
        self.boot = _inline_script(self.files["/boot.js"].body.decode("utf-8")) if "/boot.js" in self.files else ""
        self.boot_csp = _script_hash(self.boot)
        sw = self.files["/sw.js"].body.decode("utf-8")
        if SW_MARKER not in sw:
            raise RuntimeError(f"web/sw.js lost its build line: {SW_MARKER!r}")
        sw_build = {"version": self.version, "files": {**self.precache(), "/": "/"}}
        self.sw_body = sw.replace(SW_MARKER, f"const BUILD = {json.dumps(sw_build, sort_keys=True)};").encode()

    def is_app_file(self, path: str) -> bool:
        return path not in _UNVERSIONED and not path.endswith(_NOT_APP)

    def versioned(self, path: str) -> str:
        """The immutable URL of a file (of an entry module, its bundle's), or
        the path itself if it has none."""
        if self.bundles and path in self.bundles.entries:
            return self.bundles.entries[path]
        a = self.files.get(path)
        return a.url if a and self.is_app_file(path) else path

    def precache(self) -> dict[str, str]:
        """Path → versioned URL of every app file the pages load, for the
        service worker: with bundles, those and every file but the modules."""
        files = {p: a.url for p, a in self.files.items()
                 if self.is_app_file(p) and not (self.bundles and p.endswith(".js"))}
        return {**files, **{p: a.url for p, a in self.built.items()}}

    def page_modules(self, game: str | None) -> list[str]:
        """The URLs of every script a screen runs before its first render, the
        page's own first: the home's, and a table's also the table screens
        and its game's."""
        if self.bundles:
            b = self.bundles
            entries = ["/app.js"] if game is None else ["/app.js", "/screens/session.js", f"/games/{game}.js"]
            # In the order they run: the app's first, whose chunks it starts on.
            return list(dict.fromkeys(u for e in entries if e in b.entries for u in b.closure(b.entries[e])))
        modules = self.closure("/app.js")
        if game is not None:
            modules += [m for m in self.closure("/screens/session.js", f"/games/{game}.js") if m not in modules]
        return [self.versioned(m) for m in modules]

    def closure(self, *entries: str) -> list[str]:
        """Every module reachable by static imports from ``entries``, entries included."""
        return _closure(entries, self.imports, self.files)

    def csp(self, base: str) -> str:
        """``base`` with the import map and the boot script allowed by their
        hashes (they are inline scripts)."""
        if _SCRIPT_SRC not in base:
            raise RuntimeError("the CSP has no script-src 'self' to extend")
        return base.replace(_SCRIPT_SRC, f"{_SCRIPT_SRC} {self.import_map_csp} {self.boot_csp}", 1)

    def index_html(self, game: str | None = None) -> bytes:
        """index.html for one screen: versioned links, the import map, and a
        modulepreload for every module that screen imports (so no screen waits
        on an import chain). A table screen also gets its game's module graph
        and stylesheet (a stylesheet of the page); the home screen gets
        neither. Every page carries the game list and, first in its head (a classic script waits for the
        stylesheets above it), the import map and the boot script that asks
        for a table's snapshot while the modules download."""
        html = self.files["/index.html"].body.decode("utf-8")
        html = re.sub(r'(href|src)="(/[^"?#]*)"',
                      lambda m: f'{m.group(1)}="{self.versioned(m.group(2))}"', html)
        hints = [f'<link rel="preload" href="{self.versioned(f"/i18n/{lang}.json")}" as="fetch" crossorigin>'
                 for lang in ("ko", "en")]
        if game is not None and f"/games/{game}.css" in self.files:
            # A stylesheet of the page from the start, not one added when the
            # game mounts: its rules are in the first style pass, and no sheet
            # arriving later restyles the whole screen (a long task at 4x CPU).
            # games/shared.js's loadCss adopts it.
            hints.append(f'<link rel="stylesheet" href="{self.versioned(f"/games/{game}.css")}" '
                         f'data-game-css="{game}">')
        main = self.versioned("/app.js")
        hints += [f'<link rel="modulepreload" href="{m}">' for m in self.page_modules(game) if m != main]
        head = "\n  ".join(hints) + "\n  "
        if self.games_block:
            head += f'<script type="application/json" id="games-data">{self.games_block}</script>\n  '
        at = html.index('<script type="module"')
        html = html[:at] + head + html[at:]
        # The map before any module is asked for; the boot script reads it.
        first = f'<script type="importmap">{self.import_map}</script>\n  '
        if self.boot:
            first += f"<script>{self.boot}</script>\n  "
        at = html.index("<link")
        return (html[:at] + first + html[at:]).encode()
