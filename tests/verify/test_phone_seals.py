"""Seals made on the phone (issue 38): what ``web/games/kingup/sealing.js`` makes
(the hash a phone sends, the opening it keeps) is what both checkers accept, and
a changed value, salt or hash fails both (``seal_mismatch``)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from conftest import run_node
from tablemate_verify import check, check_seal

LABEL = "t/Ab3x/g1/round/1/vote/D/p2"

_JS = r"""
import { readFileSync } from 'node:fs';
import * as fair from './web/fairness.js';
import { castVote, openings, voteAction } from './web/games/kingup/sealing.js';

const { label, proofs } = JSON.parse(readFileSync(0, 'utf8'));
const kept = new Map();
const store = { keep: (l, e) => kept.set(l, e), get: (l) => kept.get(l) || null, clear: () => kept.clear() };
const snap = { me: 'p2', table: 'Ab3x', fair: { to_seal: { p2: label }, sealed: [] }, view: { election: { opening: [] } } };
const action = await voteAction(snap, store, 'p2', 'no');
const forced = await voteAction({ ...snap, fair: { to_seal: {}, sealed: [] } }, store, 'p2', 'yes');
// A phone that cannot seal a vote the rules keep on it sends nothing (never the vote in the open).
const unsealable = [await castVote({ ...snap, fair: { to_seal: { p2: 'not a label' }, sealed: [] } }, store, 'p2', 'no'),
                    await castVote(snap, null, 'p2', 'no')];
const other = { keep: () => {}, get: () => null, clear: () => {} };  // not this test's kept opening
const cast = await castVote(snap, other, 'p2', 'yes');
// Every vote in: the phone owes the opening of the seal it made, and only that one.
const open = { ...snap, fair: { sealed: [{ seal: label, hash: action.hash }] }, view: { election: { opening: ['p2'] } } };
const owed = openings(open, store);
const none = openings({ ...open, view: { election: { opening: [] } } }, store);
const checked = {};
for (const [name, p] of Object.entries(proofs)) {
  const r = await fair.checkProof(p);
  checked[name] = { ok: r.ok, codes: r.lines.map((l) => l.code) };
}
process.stdout.write(JSON.stringify({ action, kept: kept.get(label), forced, owed, none, checked, unsealable, cast }));
"""


def proof(seal: dict[str, Any]) -> dict[str, Any]:
    return {"format": "tablemate-proof/1", "table": "Ab3x", "game": "kingup", "scopes": [], "sealed": [seal]}


@pytest.fixture(scope="module")
def made() -> dict[str, Any]:
    first: dict[str, Any] = run_node(_JS, stdin=json.dumps({"label": LABEL, "proofs": {}}), timeout=60)
    return first


def test_the_phone_sends_only_the_hash_and_keeps_value_and_salt(made: dict[str, Any]) -> None:
    action, kept = made["action"], made["kept"]
    assert set(action) == {"type", "vote", "hash", "label"} and action["vote"] == "sealed"
    assert action["label"] == LABEL and "no" not in json.dumps(action)
    assert kept["vote"] == "no" and kept["seat"] == "p2" and len(kept["salt"]) == 64
    # The server's check (seals.take) accepts the opening the phone will send.
    assert check_seal(LABEL, action["hash"], kept["salt"], {"vote": "no"})
    assert not check_seal(LABEL, action["hash"], kept["salt"], {"vote": "yes"})
    assert made["owed"] == [{"seat": "p2", "action": {"type": "open_vote", "vote": "no", "salt": kept["salt"]}}]
    assert made["none"] == []
    # No label offered (a table without seals): the vote goes as it is.
    assert made["forced"] == {"type": "vote", "vote": "yes"}
    # Offered a label it cannot seal under (or nowhere to keep the opening): nothing to send.
    assert made["unsealable"] == [None, None]
    assert made["cast"]["vote"] == "sealed" and "yes" not in json.dumps(made["cast"])


def test_both_checkers_accept_a_phone_made_seal_and_fail_a_changed_one(made: dict[str, Any]) -> None:
    honest = {"label": LABEL, "hash": made["action"]["hash"], "salt": made["kept"]["salt"], "value": {"vote": "no"}}
    proofs = {"honest": proof(honest)}
    for name, change in {"value": {"value": {"vote": "yes"}}, "salt": {"salt": "ab" * 32},
                         "hash": {"hash": "cd" * 32}}.items():
        proofs[name] = proof({**copy.deepcopy(honest), **change})
    js = run_node(_JS, stdin=json.dumps({"label": LABEL, "proofs": proofs}), timeout=60)["checked"]
    for name, p in proofs.items():
        report = check(p)
        codes = [line.code for line in report.lines]
        assert js[name] == {"ok": report.ok, "codes": codes}, name
        assert codes == (["seal_ok"] if name == "honest" else ["seal_mismatch"]), (name, codes)


_TWO_TABS = r"""
globalThis.window = globalThis;
const store = new Map();
globalThis.localStorage = {getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, String(v))};
const { keptVotes, openings, voteAction } = await import('./web/games/kingup/sealing.js');
const a = keptVotes('Ab3x');
const b = keptVotes('Ab3x');                           // the same seat's other tab, opened before the vote
const label = 't/Ab3x/g1/round/1/vote/D/p2';
const snap = { version: 50, me: 'p2', table: 'Ab3x', fair: { to_seal: { p2: label }, sealed: [] }, view: {} };
const action = await voteAction(snap, a, 'p2', 'no');  // cast in tab a
const open = { ...snap, version: 52, fair: { sealed: [{ seal: label, hash: action.hash }] },
               view: { election: { opening: ['p2'] } } };
const owed = openings(open, b);                        // tab a asleep: tab b opens it
b.clear(45);                                           // a snapshot of tab b's from before the vote
const kept = b.get(label) !== null;
b.clear(53);                                           // revealed: forgotten
process.stdout.write(JSON.stringify({ owed: owed.map((o) => o.action.vote), kept, gone: a.get(label) }));
process.exit(0);
"""


def test_the_seats_other_tab_opens_the_vote_and_a_late_snapshot_keeps_it() -> None:
    """The seat open in two tabs: the vote sealed in one is opened by the other
    when the first sleeps or was closed (else the election waits for it), and
    a snapshot of the other tab's from before the vote does not forget it."""
    got = run_node(_TWO_TABS, timeout=60)
    assert got == {"owed": ["no"], "kept": True, "gone": None}
