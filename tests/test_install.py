"""The two ways a newcomer starts Tablemate, from nothing but the source tree.

The rest of the suite runs in ``.venv`` with the test extras installed, which
can hide a runtime dependency that only a test tool happens to pull in (that
is how ``make run`` once died on a missing ``packaging``). These tests use
throw-away environments built from the runtime dependencies alone:

* a plain ``pip install .`` beside a build of web/ (what the Dockerfile does)
  boots the production serving model and serves the home page from the
  bundles, the API and a new table;
* the README's run command, ``make run``, in a copy of the tree without
  ``.venv``, ``node_modules`` or ``build``, creates its environment, bundles
  web/ and serves the bundles with the LAN URL and QR code.

pip's cache is reused (so this takes seconds, not minutes, after the first
run); the project's ``.venv`` never is.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, free_port, wait_for

pytestmark = pytest.mark.slow

# What the Dockerfile copies into the image.
IMAGE_FILES = ("pyproject.toml", "README.md", "engines", "server", "tablemate_verify", "web")
# Never carried into a "fresh" copy: environments and caches of this checkout.
NOT_FRESH = shutil.ignore_patterns(
    ".venv", "node_modules", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache",
    ".mypy_cache", ".hypothesis", "*.egg-info", "build", ".git",
)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a new shell: no project venv, no PYTHONPATH."""
    venv_bin = str(Path(sys.prefix) / "bin")
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env = {k: v for k, v in os.environ.items()
           if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "REDIS_URL"}
           and not k.startswith("TABLEMATE_")}
    env["PATH"] = path or "/usr/bin:/bin"
    env.update(extra)
    return env


def base_python() -> str:
    """The interpreter the project's venv was made from (not the venv itself)."""
    return getattr(sys, "_base_executable", None) or sys.executable


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.read()


def post_json(url: str, body: dict[str, object]) -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.status, json.loads(r.read())


def serves(proc: subprocess.Popen[bytes], base: str, log: Path) -> bool:
    if proc.poll() is not None:
        raise AssertionError(f"exited with {proc.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
    return get(base + "/healthz")[0] == 200


def stop(proc: subprocess.Popen[bytes], sig: signal.Signals) -> int:
    """Sends ``sig`` to the whole process group (as a terminal's Ctrl-C does)."""
    try:
        os.killpg(proc.pid, sig)
        return proc.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
        raise


def assert_clean(log_text: str) -> None:
    # "not bundles": server/http/assets.py found no usable build of web/.
    for bad in ("Traceback", "MonkeyPatchWarning", "Error:", "not bundles"):
        assert bad not in log_text, f"{bad!r} in the server's output:\n{log_text[-4000:]}"


def assert_bundled(home: bytes) -> None:
    """The page runs the build's bundles (scripts/build-web.sh), not web/'s modules."""
    assert re.search(rb'<script type="module" src="/app-[A-Z0-9]{8}\.js">', home), home[:3000]


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)  # a venv is big; don't keep it around


def test_plain_pip_install_boots_the_production_server(workdir: Path) -> None:
    app = workdir / "app"
    for name in IMAGE_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, app / name, ignore=NOT_FRESH)
        else:
            app.mkdir(exist_ok=True)
            shutil.copy2(src, app / name)
    venv = workdir / "venv"
    env = clean_env()
    subprocess.run([base_python(), "-m", "venv", str(venv)], check=True, env=env)
    pip = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q", str(app)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    # The Dockerfile's node stage: the bundles, built from the same web/.
    subprocess.run(["bash", str(ROOT / "scripts/build-web.sh"), str(app / "build/web")], check=True,
                   capture_output=True, timeout=300)

    # From an empty folder, with the installed package's own gunicorn settings:
    # nothing can be imported from the source tree, so the wheel and the
    # declared dependencies alone must be enough.
    site = subprocess.run([str(venv / "bin/python"), "-c",
                           "import server, pathlib; print(pathlib.Path(server.__file__).parent)"],
                          env=env, cwd=workdir, capture_output=True, text=True, check=True)
    conf = Path(site.stdout.strip()) / "gunicorn_conf.py"
    assert str(venv) in str(conf), f"server imported from {conf}, not the venv"
    # The proof checker is in the wheel, with its word lists (package data).
    proof = workdir / "proof.json"
    secret = "07" * 32
    proof.write_text(json.dumps({"format": "tablemate-proof/1", "table": "t", "game": "camelup", "sealed": [],
                                 "starts": [{"game": 1, "players": 3, "options": {}}], "seeded": [],
                                 "scopes": [{"label": "t/t/g1/leg/1", "secret": secret, "seeds": [], "outcomes": [],
                                             "commitment": hashlib.sha256(bytes.fromhex(secret)).hexdigest()}]}))
    verify = subprocess.run([str(venv / "bin/python"), "-m", "tablemate_verify", str(proof)],
                            env=env, cwd=workdir, capture_output=True, text=True)
    assert verify.returncode == 0 and "OK: 3 checks pass." in verify.stdout, verify.stdout + verify.stderr
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = workdir / "server.log"
    empty = workdir / "empty"
    empty.mkdir()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(venv / "bin/gunicorn"), "-c", str(conf), "server:create_app()"],
            cwd=empty, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            env=clean_env(BIND=f"127.0.0.1:{port}", TABLEMATE_WEB_DIR=str(app / "web"),
                          TABLEMATE_BUILD_DIR=str(app / "build/web")),
        )
    try:
        wait_for(lambda: serves(proc, base, log), timeout=30, what="the plain-install server")
        status, home = get(base + "/")
        assert status == 200 and b"<html" in home.lower()
        assert_bundled(home)
        status, games = get(base + "/api/games")
        assert status == 200 and json.loads(games)
        status, created = post_json(base + "/api/tables", {"game": "camelup", "name": "민지"})
        assert status == 201 and created["table"]
        player = created["player"]
        assert isinstance(player, dict) and player["token"]
    finally:
        code = stop(proc, signal.SIGTERM)
    assert code == 0
    assert_clean(log.read_text(errors="replace"))


def test_make_run_serves_from_a_fresh_copy(workdir: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is a prerequisite (README) and is not installed")
    tree = workdir / "tablemate"
    shutil.copytree(ROOT, tree, ignore=NOT_FRESH)
    assert not (tree / ".venv").exists()
    port = free_port()
    log = workdir / "run.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["make", "run"], cwd=tree, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, env=clean_env(PORT=str(port), PYTHON=base_python()),
        )
    try:
        wait_for(lambda: serves(proc, f"http://127.0.0.1:{port}", log), timeout=240,
                 what="make run on a fresh copy")
        wait_for(lambda: "Scan the QR code" in log.read_text(errors="replace"), timeout=10,
                 what="the start-up announcement")
        text = log.read_text(errors="replace")
        assert "Tablemate is running: http://" in text and f":{port}/" in text
        assert "█" in text  # the terminal QR code
        # make run bundled web/ itself (node, npm and esbuild from a fresh tree).
        assert (tree / "build/web/manifest.json").exists() and (tree / "node_modules/.bin/esbuild").exists()
        # ... and no web dev tool: the type checker and axe-core are make test's.
        assert not (tree / "node_modules/typescript").exists()
        assert not (tree / "node_modules/axe-core").exists()
        assert_bundled(get(f"http://127.0.0.1:{port}/")[1])
        assert "not bundles" not in text, text[-3000:]
        # Only the runtime dependencies: no test tool came along.
        listed = subprocess.run(
            [str(tree / ".venv/bin/python"), "-m", "pip", "list", "--format=json"],
            capture_output=True, text=True, check=True).stdout
        names = {p["name"].lower() for p in json.loads(listed)}
        assert not names & {"pytest", "playwright", "hypothesis", "schemathesis"}, names
    finally:
        code = stop(proc, signal.SIGINT)  # Ctrl-C
    text = log.read_text(errors="replace")
    assert "Shutting down: Master" in text, text[-3000:]
    assert code in (0, 2, -signal.SIGINT), text[-3000:]  # make reports the interrupt itself
    assert_clean(text)
