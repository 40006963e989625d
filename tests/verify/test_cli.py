"""``python -m tablemate_verify``: reads a proof from a file, standard input or
a table's URL (fetched from ``/api/tables/<id>/proof``), prints a report,
exits 0 (all checks), 1 (naming the first mismatch) or 2 (no proof)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from tablemate_verify import check, phrase
from tablemate_verify.__main__ import main, proof_url, render
from tablemate_verify.phone import check_phone
from tablemate_verify.rules import verify
from tests.verify import games, tables


def write(tmp_path: Path, proof: Any, name: str = "proof.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(proof, ensure_ascii=False), "utf-8")
    return str(path)


def test_a_faithful_proof_exits_0_with_the_spoken_words(redis_url: str, tmp_path: Path, capsys) -> None:
    proof = games.honest(redis_url, "camelup")[0]
    assert main([write(tmp_path, proof)]) == 0
    out = capsys.readouterr().out
    assert f"Tablemate proof of table {proof['table']} (camelup)" in out
    passed = verify(proof).count("ok")
    assert out.strip().endswith(f"OK: {passed} checks pass.")
    c = proof["scopes"][0]["commitment"]
    assert all(w in out for w in phrase(c, "en") + phrase(c, "ko"))


def test_a_proof_with_no_draw_schedule_fails(tmp_path: Path, capsys) -> None:
    """tables.proof() replays as it stands, but its scopes name no game's
    draws (its labels have no game number, its dice are no game's)."""
    assert check(tables.proof()).ok
    assert main([write(tmp_path, tables.proof())]) == 1
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith(f"MISMATCH: scope {tables.LEG1}: ")


@pytest.mark.parametrize("name", tables.TAMPERED)
def test_a_tampered_proof_exits_1_naming_the_first_mismatch(tmp_path: Path, capsys, name: str) -> None:
    first = check(tables.tampered(name)).first_mismatch
    assert first is not None
    assert main([write(tmp_path, tables.tampered(name))]) == 1
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"MISMATCH: {first.text}"


def test_the_mismatch_line_names_scope_outcome_and_draw(tmp_path: Path, capsys) -> None:
    assert main([write(tmp_path, tables.tampered("draw"))]) == 1
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"MISMATCH: scope {tables.LEG1}, outcome 3, draw 1 (choice): the proof says ")


@pytest.mark.parametrize("body", ["not json", json.dumps({"format": "other"}), json.dumps([])])
def test_what_is_not_a_proof_exits_2(tmp_path: Path, capsys, body: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(body)
    assert main([str(path)]) == 2
    assert capsys.readouterr().err.startswith("ERROR")


def test_a_missing_file_exits_2(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "nope.json")]) == 2
    assert "cannot read the proof" in capsys.readouterr().err


@pytest.mark.parametrize("url, want", [
    ("https://tm.example/t/Ab3x", "https://tm.example/api/tables/Ab3x/proof"),
    ("http://127.0.0.1:8000/t/Ab3x/?lang=ko#x", "http://127.0.0.1:8000/api/tables/Ab3x/proof"),
    ("https://tm.example/api/tables/Ab3x/proof", "https://tm.example/api/tables/Ab3x/proof"),
])
def test_proof_urls(url: str, want: str) -> None:
    assert proof_url(url) == want


@pytest.mark.parametrize("url", ["https://tm.example/", "ftp://tm.example/t/Ab3x", "https://tm.example/t/a b"])
def test_urls_that_name_no_table_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        proof_url(url)


@pytest.fixture
def server(redis_url: str) -> Iterator[tuple[str, list[str]]]:
    """A stand-in for the app's proof endpoint on the loopback: table Ab3x's
    proof, table Bad's tampered one, a 404 for any other."""
    asked: list[str] = []
    bodies = {"/api/tables/Ab3x/proof": games.honest(redis_url, "camelup")[0],
              "/api/tables/Bad/proof": tables.tampered("seal")}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            body = bodies.get(self.path)
            data = json.dumps(body if body is not None else {"error": {"code": "not_found"}}).encode()
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_table_url_fetches_its_proof(server: tuple[str, list[str]], capsys) -> None:
    base, asked = server
    assert main([f"{base}/t/Ab3x"]) == 0
    assert main([f"{base}/t/Bad"]) == 1
    assert main([f"{base}/t/Gone"]) == 2
    assert asked == ["/api/tables/Ab3x/proof", "/api/tables/Bad/proof", "/api/tables/Gone/proof"]
    out = capsys.readouterr()
    assert f"MISMATCH: seal {tables.VOTE}" in out.out and "HTTP Error 404" in out.err


def test_it_runs_on_the_standard_library_alone(tmp_path: Path) -> None:
    """``python -m tablemate_verify`` from a checkout, with the interpreter
    the venv was made from (none of the project's dependencies), -I: no
    site-packages, no user site, no PYTHONPATH; also reading standard input."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    code = "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); runpy.run_module('tablemate_verify', run_name='__main__')"
    run = subprocess.run([base, "-I", "-S", "-c", code, str(ROOT), "-"], input=json.dumps(tables.tampered("field")),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    assert f"MISMATCH: scope {tables.LEG1}, outcome 2: the game recorded value" in run.stdout
    loaded = subprocess.run([base, "-I", "-S", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                             "import tablemate_verify; print(sorted(m for m in sys.modules if m.split('.')[0] "
                             "not in sys.stdlib_module_names and m != '__main__'))", str(ROOT)],
                            capture_output=True, text=True, timeout=60, check=True)
    assert set(json.loads(loaded.stdout.replace("'", '"'))) <= {
        "tablemate_verify", *(f"tablemate_verify.{m}" for m in ("canon", "chain", "derive", "phone", "proof", "record", "rules", "schedule",
                                                              "seal", "words"))}


def test_outcomes_drawn_by_the_server_alone_are_named_in_the_summary() -> None:
    proof = tables.proof(unseeded=True)
    buf = io.StringIO()
    render(proof, check(proof), buf)
    out = buf.getvalue()
    assert "-- " in out and "no phone's part went into it" in out
    assert "; 3 outcomes drawn by the server alone (no phone's part): not checked" in out.strip().splitlines()[-1]


@pytest.mark.parametrize(("proof", "code"), [
    # The server swapped the leg's secret for another (a commitment to match, every roll re-derived).
    (lambda: tables.linked(secret=8), "commitment_changed"),
    # p2's link of the last roll was left out (the roll derived without it).
    (lambda: tables.linked("dropped_last"), "own_link_missing"),
    # The proof gives p2 a chain p2's phone never made.
    (lambda: _other_anchor(tables.linked()), "other_anchor"),
])
def test_a_phones_export_catches_what_the_proof_alone_cannot(tmp_path: Path, capsys, proof, code) -> None:
    export = tmp_path / "phone.json"
    export.write_text(json.dumps(tables.phone_export()))
    honest = tmp_path / "honest.json"
    honest.write_text(json.dumps(tables.linked()))
    assert main([str(honest), "--phone", str(export)]) == 0
    assert "the phone's record of p2 agrees" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(proof()))
    report = verify(json.loads(bad.read_text()))
    check_phone(json.loads(bad.read_text()), tables.phone_export(), report)
    assert code in [line.code for line in report.lines if line.status == "mismatch"]
    assert main([str(bad), "--phone", str(export)]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def _other_anchor(proof: dict[str, Any]) -> dict[str, Any]:
    proof["scopes"][0]["chains"][1]["anchor"] = "ab" * 32
    return proof
