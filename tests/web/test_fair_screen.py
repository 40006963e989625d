"""web/screens/fair.js in node: the phone's check of the table's proof."""

from __future__ import annotations

import json

from conftest import run_node
from tests.verify import games

_RETRY = """
globalThis.window = globalThis;
globalThis.document = {documentElement: {dataset: {}}};
let calls = 0;
globalThis.fetch = async () => {
  calls += 1;
  if (calls === 1) throw new TypeError('the Wi-Fi dropped');
  return new Response(JSON.stringify({format: 'tablemate-proof/2', scopes: [], sealed: []}),
                      {status: 200, headers: {'Content-Type': 'application/json'}});
};
const { fairTable } = await import('./web/screens/fair.js');
const fair = fairTable('t1', () => 'tok', async () => ({}));
// The game's last change revealed something; no snapshot comes after it.
fair.update({version: 3, me: 'p1', fair: {open: [], sealed: [], revealed: 1}}, false);
await new Promise((r) => setTimeout(r, 2600));
process.stdout.write(JSON.stringify({calls, checked: fair.result() !== null}));
"""


def test_a_proof_that_failed_to_load_is_fetched_again_without_a_new_snapshot() -> None:
    """At a finished game no next snapshot comes to try again on: a phone on
    flaky Wi-Fi would never show its check."""
    assert run_node(_RETRY) == {"calls": 2, "checked": True}


_SERVER_ONLY = """
globalThis.window = globalThis;
globalThis.document = {documentElement: {dataset: {}}};
const proof = JSON.parse(require_proof);
globalThis.fetch = async () => new Response(JSON.stringify(proof),
  {status: 200, headers: {'Content-Type': 'application/json'}});
const { fairTable } = await import('./web/screens/fair.js');
const fair = fairTable('Ab3x', () => 'tok', async () => ({}));
fair.update({version: 9, me: 'p1', fair: {open: [], sealed: [], revealed: 2}}, false);
for (let i = 0; i < 200 && fair.result() === null; i += 1) await new Promise((r) => setTimeout(r, 25));
const res = fair.result();
process.stdout.write(JSON.stringify({groups: Object.fromEntries(res.groups),
  alone: res.lines.filter((l) => l.status === 'server_only').length}));
"""


def test_a_round_drawn_by_the_server_alone_is_not_marked_checked(redis_url: str) -> None:
    """Issue 38, item 4: the host started before any phone anchored, so the
    starting board was drawn by the server alone: its group (round 0) gets
    the "server only" mark, never a check mark; every leg the phones seeded
    is checked (with the draw schedules and the seed log, as the CLI)."""
    proof, _ = games.play(redis_url, "camelup", 1, lobby=False)
    got = run_node(_SERVER_ONLY.replace("require_proof", json.dumps(json.dumps(proof))))
    legs = {f"1:{s['round']}" for s in proof["scopes"] if s["secret"] and s["round"] > 0}
    assert got == {"groups": {"1:0": "server", **dict.fromkeys(legs, "ok")}, "alone": 1}


_KEPT = """
globalThis.window = globalThis;
globalThis.document = {documentElement: {dataset: {}}};
const store = new Map();
globalThis.localStorage = {getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, String(v))};
const { fairTable } = await import('./web/screens/fair.js');
const { shownHashes } = await import('./web/screens/fair-kept.js');
const sent = [];
const fair = fairTable('t1', () => 'tok', async (a) => { sent.push(a); return {version: 7, events: []}; });
fair.update({version: 6, me: 'p2', fair: {open: [{scope: 't/t1/g1/leg/1', commitment: 'c', seeded: []}],
                                         sealed: [], revealed: 0}}, true);
for (let i = 0; i < 100 && !store.has('tablemate.chain.t1'); i += 1) await new Promise((r) => setTimeout(r, 10));
// A reload: a new page reads what the last one kept.
process.stdout.write(JSON.stringify({sent: sent.map((a) => a.type), shown: [...shownHashes('t1')],
                                     kept: store.has('tablemate.chain.t1')}));
process.exit(0);
"""


def test_a_phone_anchors_its_chain_and_keeps_the_commitments_it_was_shown() -> None:
    """Issue 38: a phone sends no seed any more, only its chain's anchor
    (fair-chain.js; test_fair_chain.py), and keeps across reloads the
    commitments it was shown (a new secret with a matching commitment after
    a reload is still caught)."""
    got = run_node(_KEPT)
    assert got == {"sent": ["anchor"], "shown": [["t/t1/g1/leg/1", "c"]], "kept": True}


_TWO_TABS_SHOWN = """
globalThis.window = globalThis;
const store = new Map();
globalThis.localStorage = {getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, String(v))};
const { shownHashes } = await import('./web/screens/fair-kept.js');
const a = shownHashes('t1');
const b = shownHashes('t1');
a.set('leg/1', 'aa');
b.set('leg/2', 'bb');                                  // tab b never read tab a's
process.stdout.write(JSON.stringify([...shownHashes('t1')]));
process.exit(0);
"""


def test_two_tabs_keep_every_commitment_either_was_shown() -> None:
    """Each tab writes its whole map: without a merge the second write drops
    what the other tab kept, and a reload holds the server to less."""
    assert sorted(run_node(_TWO_TABS_SHOWN)) == [["leg/1", "aa"], ["leg/2", "bb"]]
