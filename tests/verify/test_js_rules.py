"""``web/rules.js`` (the phones' check with the draw schedules and the seed
log) gives the same lines as Python's ``tablemate_verify.rules.verify``, in
node: honest games of all three games with undos, and every tamper of the
suite (tests/verify/test_schedule.py, test_link_log.py), each of which fails
on the phone as in the CLI."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import run_node
from tablemate_verify import ProofError
from tablemate_verify.rules import verify
from tests.verify import games, test_link_log, test_schedule

_JS = r"""
import { readFileSync } from 'node:fs';
import { verifyProof } from './web/rules.js';

const proofs = JSON.parse(readFileSync(0, 'utf8'));
const out = {};
for (const [name, p] of Object.entries(proofs)) {
  try {
    const r = await verifyProof(p);
    out[name] = { ok: r.ok, lines: r.lines };
  } catch (e) {
    out[name] = { error: e.code || e.message };
  }
}
process.stdout.write(JSON.stringify(out));
"""


def proofs(redis_url: str) -> dict[str, Any]:
    out = {f"honest {g}": games.honest(redis_url, g)[0] for g in sorted(games.OPTIONS)}
    for name, (game, tamper, _) in test_schedule.TAMPERS.items():
        out[name] = tamper(games.honest(redis_url, game)[0])
    for name, (change, _) in test_link_log.TAMPERS.items():
        out[name] = games.relinked(games.honest(redis_url, "camelup")[0], "leg/", change)
    no_log = games.honest(redis_url, "kingup")[0]
    del no_log["seeded"]
    out["no seed log"] = no_log
    bad = games.honest(redis_url, "countup")[0]
    bad["starts"] = {"game": 1}
    out["malformed starts"] = bad
    return out


@pytest.fixture
def both(redis_url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    given = proofs(redis_url)
    return given, run_node(_JS, stdin=json.dumps(given), timeout=120)


def test_the_phones_check_gives_the_clis_lines(both: tuple[dict[str, Any], dict[str, Any]]) -> None:
    given, js = both
    assert set(js) == set(given)
    for name, proof in given.items():
        try:
            report = verify(proof)
        except ProofError:
            assert js[name] == {"error": "bad_proof"}, name
            continue
        want = [{"status": line.status, "code": line.code, "where": line.where} for line in report.lines]
        assert js[name]["lines"] == want, name
        assert js[name]["ok"] is report.ok, name
        # Honest games pass; every tamper fails on the phone too.
        assert report.ok is name.startswith("honest"), name
