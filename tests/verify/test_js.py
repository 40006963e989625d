"""``web/fairness.js`` and ``web/words.js`` (Web Crypto, in node) give the
same answers as Python: every test vector, and the same report lines (status,
code, where) for the faithful, tampered and malformed proofs."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from conftest import run_node
from tablemate_verify import ProofError, check
from tests.verify import tables
from tests.verify.test_proof import broken
from tests.verify.test_vectors import VECTORS

_JS = r"""
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as fair from './web/fairness.js';
import { loadWords, phrase, phraseFrom, wordIndices } from './web/words.js';

const { vectors, proofs } = JSON.parse(readFileSync(0, 'utf8'));
const out = { streams: [], outcomes: [], rejections: [], commitments: [], seals: [], canonical: [],
              phrases: [], proofs: {} };
for (const v of vectors.streams) {
  const s = await fair.Stream.open(v.secret, v.label, v.seeds, v.index);
  const words = [];
  for (let i = 0; i < 16; i += 1) words.push(await s.word());
  out.streams.push(words);
}
for (const v of vectors.outcomes) {
  const s = await fair.Stream.open(v.secret, v.label, v.seeds, v.index);
  const results = [];
  for (const d of v.draws) results.push(await fair.replayDraw(s, d));
  out.outcomes.push({ results, used: s.used });
}
for (const v of vectors.rejections) {
  const s = await fair.Stream.open(v.secret, v.label, v.seeds, v.index);
  out.rejections.push({ result: await s.below(v.n), used: s.used });
}
out.linkStreams = [];
for (const v of vectors.link_streams) {
  const s = await fair.Stream.open(v.secret, v.label, [], v.index, v.links);
  const words = [];
  for (let i = 0; i < 16; i += 1) words.push(await s.word());
  out.linkStreams.push(words);
}
out.chains = [];
for (const v of vectors.chains) {
  const steps = [];
  for (let i = 1; i < v.links.length; i += 1) steps.push(await fair.linkStep(v.links[i]));
  out.chains.push(steps);
}
for (const v of vectors.commitments) out.commitments.push(await fair.commitmentOf(v.secret));
for (const v of vectors.seals) out.seals.push(await fair.sealHash(v.label, v.salt, v.value));
for (const v of vectors.canonical) out.canonical.push(fair.canonical(v.value));
// The lists as the app loads them: the URL the module resolves, read from disk.
const asked = [];
const get = async (url) => { asked.push(url); return { ok: true, json: async () => JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) }; };
const en = await loadWords('en', get);
const ko = await loadWords('ko', get);
await loadWords('en', get);
out.asked = asked.map((u) => u.slice(u.indexOf('/web/')));
for (const v of vectors.phrases) out.phrases.push({ en: phraseFrom(v.hash, en), ko: await phrase(v.hash, 'ko') });
let failed = 'none';
try { await loadWords('ko2', async () => ({ ok: false, json: async () => null })); } catch (e) { failed = e.message; }
out.failedLoad = failed;
out.badHashes = ['', 'abc', 'ABCDEF01234', 'abcdef01234xyz', 'abcdef01234'].map((h) => {
  try { wordIndices(h); return 'accepted'; } catch { return 'refused'; }
});
for (const [name, p] of Object.entries(proofs)) {
  try {
    const r = await fair.checkProof(p);
    out.proofs[name] = { ok: r.ok, lines: r.lines, first: r.firstMismatch };
  } catch (e) {
    out.proofs[name] = { error: e.code || e.message };
  }
}
const seeds = [fair.newSeed(), fair.newSeed()];
out.seeds = seeds;
out.can = fair.canCheck();
const leg = proofs.faithful.scopes[0];
out.counted = [fair.seedCounted(leg, leg.seeds[1].seed), fair.seedCounted(leg, 'ff'.repeat(32))];
out.badCanonical = [1.5, 2 ** 53, '\ud800'].map((v) => { try { fair.canonical(v); return 'accepted'; } catch (e) { return e.code; } });
process.stdout.write(JSON.stringify(out));
"""

BROKEN = {
    "format": lambda p: p.update(format="tablemate-proof/0"),
    "two-scopes-one-label": lambda p: p["scopes"].append(copy.deepcopy(p["scopes"][0])),
    "more-seeds-than-listed": lambda p: p["scopes"][0]["outcomes"][0].update(seeds=3),
    "unknown-op": lambda p: p["scopes"][0]["outcomes"][0]["draws"][0].update(op="dice"),
    "no-result": lambda p: p["scopes"][0]["outcomes"][0]["draws"][0].pop("result"),
    "field-count": lambda p: p["scopes"][0]["outcomes"][0]["draws"][0].update(field=["a", "b"]),
    "revealed-seal-without-value": lambda p: p["sealed"][0].pop("value"),
    "float-value": lambda p: p["sealed"][0].update(value=1.5),
}


def proofs() -> dict[str, Any]:
    out = {"faithful": tables.proof(), "held_back": tables.proof(held_back=True),
           "unseeded": tables.proof(unseeded=True)}
    out.update({name: tables.tampered(name) for name in tables.TAMPERED})
    out["linked"] = tables.linked()
    out.update({f"linked-{cheat}": tables.linked(cheat) for cheat in tables.LINK_CHEATS})
    out.update({f"broken-{name}": broken(change) for name, change in BROKEN.items()})
    return out


@pytest.fixture(scope="module")
def js() -> dict[str, Any]:
    out: dict[str, Any] = run_node(_JS, stdin=json.dumps({"vectors": VECTORS, "proofs": proofs()}), timeout=120)
    return out


def test_the_same_words_draws_and_rejections(js: dict[str, Any]) -> None:
    assert js["streams"] == [v["words"] for v in VECTORS["streams"]]
    assert js["outcomes"] == [{"results": [d["result"] for d in v["draws"]], "used": v["used"]}
                              for v in VECTORS["outcomes"]]
    assert js["rejections"] == [{"result": v["result"], "used": v["used"]} for v in VECTORS["rejections"]]


def test_the_same_link_streams_and_chain_steps(js: dict[str, Any]) -> None:
    assert js["linkStreams"] == [v["words"] for v in VECTORS["link_streams"]]
    assert js["chains"] == [v["links"][:-1] for v in VECTORS["chains"]]


def test_the_same_commitments_seals_and_canonical_json(js: dict[str, Any]) -> None:
    assert js["commitments"] == [v["commitment"] for v in VECTORS["commitments"]]
    assert js["seals"] == [v["hash"] for v in VECTORS["seals"]]
    assert js["canonical"] == [v["text"] for v in VECTORS["canonical"]]
    assert js["badCanonical"] == ["bad_proof"] * 3


def test_the_same_phrases_from_lists_loaded_once(js: dict[str, Any]) -> None:
    assert js["phrases"] == [{"en": v["en"], "ko": v["ko"]} for v in VECTORS["phrases"]]
    assert js["asked"] == ["/web/words/en.json", "/web/words/ko.json"]
    assert js["failedLoad"] == "the ko2 word list did not load"
    # As Python's word_indices: lowercase hex only, at least 11 digits.
    assert js["badHashes"] == ["refused"] * 4 + ["accepted"]


@pytest.mark.parametrize("name", list(proofs()))
def test_the_same_report_as_python(js: dict[str, Any], name: str) -> None:
    got = js["proofs"][name]
    try:
        report = check(proofs()[name])
    except ProofError:
        assert got == {"error": "bad_proof"}
        return
    want = [{"status": line.status, "code": line.code, "where": line.where} for line in report.lines]
    assert got["lines"] == want
    assert got["ok"] is report.ok
    assert got["first"] == (want[[w["status"] for w in want].index("mismatch")] if not report.ok else None)


def test_a_phone_makes_its_own_seed_and_sees_it_counted(js: dict[str, Any]) -> None:
    a, b = js["seeds"]
    assert len(a) == len(b) == 64 and a != b and int(a, 16) >= 0
    assert js["counted"] == [5, -1]
    assert js["can"] is True



_INSECURE = r"""
// A plain-http LAN page: crypto.getRandomValues, but no crypto.subtle.
import { readFileSync } from 'node:fs';
const real = globalThis.crypto;
Object.defineProperty(globalThis, 'crypto', { value: { getRandomValues: (a) => real.getRandomValues(a) }, configurable: true });
const fair = await import('./web/fairness.js');
const { proofs, vectors } = JSON.parse(readFileSync(0, 'utf8'));
const out = { can: fair.canCheck(), ready: await fair.checkReady(), seed: fair.newSeed().length, proofs: {} };
for (const [name, p] of Object.entries(proofs)) out.proofs[name] = (await fair.checkProof(p)).lines;
out.commitments = [];
for (const v of vectors.commitments) out.commitments.push(await fair.commitmentOf(v.secret));
out.seals = [];
for (const v of vectors.seals) out.seals.push(await fair.sealHash(v.label, v.salt, v.value));
process.stdout.write(JSON.stringify(out));
"""


def test_a_page_without_web_crypto_checks_with_the_bundled_hashes() -> None:
    """Issue 38, item 7: on plain http (no crypto.subtle) the checks run on
    @noble/hashes and give the same answers as Python."""
    chosen = {"faithful": tables.proof(), "draw": tables.tampered("draw"), "seal": tables.tampered("seal"),
              "unseeded": tables.proof(unseeded=True)}
    got = run_node(_INSECURE, stdin=json.dumps({"proofs": chosen, "vectors": VECTORS}), timeout=120)
    assert (got["can"], got["ready"], got["seed"]) == (False, True, 64)
    for name, proof in chosen.items():
        want = [{"status": line.status, "code": line.code, "where": line.where} for line in check(proof).lines]
        assert got["proofs"][name] == want, name
    assert got["commitments"] == [v["commitment"] for v in VECTORS["commitments"]]
    assert got["seals"] == [v["hash"] for v in VECTORS["seals"]]
