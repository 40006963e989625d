"""``python -m tablemate_verify <table URL | proof URL | proof.json | -> [--phone export.json]``:
fetches or reads a table's proof, checks it (with ``--phone``: against what a
phone kept, ``phone.py``), prints a report. Exits 0 when
everything revealed checks, 1 naming the first mismatch, 2 when the proof
cannot be read or is not a proof."""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, TextIO

from tablemate_verify.phone import check_phone
from tablemate_verify.proof import ProofError, Report
from tablemate_verify.rules import verify
from tablemate_verify.words import phrase

# A table's page (/t/<id>) or its proof (/api/tables/<id>/proof).
_TABLE_PATH = re.compile(r"/(?:t|api/tables)/([A-Za-z0-9_-]{1,64})(?:/|$)")
_MARK = {"ok": "ok ", "open": "...", "mismatch": "XX ", "server_only": "-- "}


def proof_url(url: str) -> str:
    """The proof's URL for a table's URL.

    >>> proof_url("https://tm.example/t/Ab3x?code=1")
    'https://tm.example/api/tables/Ab3x/proof'
    """
    parts = urllib.parse.urlsplit(url)
    m = _TABLE_PATH.search(parts.path)
    if parts.scheme not in ("http", "https") or m is None:
        raise ValueError(f"{url} is not a table's URL (…/t/<table>) nor its proof's")
    return f"{parts.scheme}://{parts.netloc}/api/tables/{m.group(1)}/proof"


def load(source: str, timeout: float = 20) -> Any:
    """The proof from a URL, a file, or standard input (``-``)."""
    if source == "-":
        return json.load(sys.stdin)
    if re.match(r"https?://", source):
        req = urllib.request.Request(proof_url(source), headers={"Accept": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return json.load(res)
    with open(source, encoding="utf-8") as f:
        return json.load(f)


def render(proof: dict[str, Any], report: Report, out: TextIO) -> None:
    print(f"Tablemate proof of table {proof.get('table')} ({proof.get('game')})", file=out)
    for scope in proof["scopes"]:
        c = scope["commitment"]
        print(f"  scope {scope['label']}: commitment {c[:16]}…  "
              f"{' '.join(phrase(c, 'en'))} / {' '.join(phrase(c, 'ko'))}", file=out)
    for line in report.lines:
        print(f"  {_MARK[line.status]} {line.text}", file=out)
    first = report.first_mismatch
    opened = report.count("open")
    still = f"; {opened} not revealed yet" if opened else ""
    alone = report.count("server_only")
    if alone:
        still += (f"; {alone} {'outcome' if alone == 1 else 'outcomes'} drawn by the server alone "
                  "(no phone's part): not checked")
    if first is None:
        passed = report.count("ok")
        print(f"OK: {passed} {'check passes' if passed == 1 else 'checks pass'}{still}.", file=out)
    else:
        print(f"MISMATCH: {first.text}", file=out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tablemate_verify", description=__doc__)
    ap.add_argument("source", help="a table's URL, its proof's URL, a proof.json file, or - (stdin)")
    ap.add_argument("--phone", action="append", default=[],
                    help="a phone's export (the fair dice' 'export' button): the proof must agree with it")
    args = ap.parse_args(argv)
    try:
        proof = load(args.source)
        report = verify(proof)
        for path in args.phone:
            check_phone(proof, load(path), report)
    except (OSError, urllib.error.URLError, ValueError) as e:
        # ProofError, JSONDecodeError and a bad URL are ValueErrors.
        what = "not a proof" if isinstance(e, ProofError) else "cannot read the proof"
        print(f"ERROR ({what}): {e}", file=sys.stderr)
        return 2
    render(proof, report, sys.stdout)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
