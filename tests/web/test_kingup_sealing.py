"""web/games/kingup/sealing.js in node: where a phone keeps the votes it sealed
until their opening (docs/fairness.md, "Seals made on the phone")."""

from __future__ import annotations

from conftest import run_node

_STORAGE = """
const fake = (quota) => {
  const m = new Map();
  const size = () => [...m].reduce((n, [k, v]) => n + k.length + v.length, 0);
  return {m, quota, getItem: (k) => m.get(k) ?? null, removeItem: (k) => m.delete(k),
          setItem(k, v) { const old = m.get(k); m.set(k, String(v)); if (size() > this.quota) { if (old === undefined) m.delete(k); else m.set(k, old); throw new Error('QuotaExceededError'); } },
          get length() { return m.size; }, key: (i) => [...m.keys()][i] ?? null};
};
globalThis.localStorage = fake(1e9);
globalThis.sessionStorage = fake(1e9);
const { keptVotes } = await import('./web/games/kingup/sealing.js');
const vote = (seat) => ({seat, vote: 'yes', salt: 'ab'.repeat(16), v: 7});
const out = {};
// Room enough: localStorage, and another tab (or the next page) reads it.
keptVotes('t1').keep('L1', vote('p1'));
out.local = [keptVotes('t1').get('L1')?.seat, localStorage.m.has('tablemate.votes.t1')];
// Full, nothing to free: the tab's sessionStorage keeps it, and a reload of the tab opens it.
localStorage.quota = 0;
keptVotes('t3').keep('L3', vote('p3'));
out.tab = [localStorage.m.has('tablemate.votes.t3'), sessionStorage.m.has('tablemate.votes.t3'),
           keptVotes('t3').get('L3')?.seat];
// Cleared once its election is revealed, wherever it was kept.
keptVotes('t3').clear(8);
out.cleared = keptVotes('t3').get('L3');
// Both full, an older vote still in localStorage: this page's new one is not lost
// under it, and a clear is not undone by the older copy.
localStorage.quota = 1e9;
keptVotes('t5').keep('OLD', {...vote('p5'), v: 1});
localStorage.quota = 0; sessionStorage.quota = 0;
const both = keptVotes('t5');
both.keep('NEW', {...vote('p5'), v: 9});
out.both_full = [both.get('NEW')?.v, both.get('OLD')?.v];
both.clear(5);
out.both_cleared = [both.get('NEW')?.v, both.get('OLD')];
sessionStorage.quota = 1e9;
// No storage at all: the page's own copy still opens it.
globalThis.localStorage = {getItem() { throw new Error('blocked'); }, setItem() { throw new Error('blocked'); }, removeItem() {}, length: 0, key: () => null};
globalThis.sessionStorage = localStorage;
const page = keptVotes('t4');
page.keep('L4', vote('p4'));
out.page_only = page.get('L4')?.seat;
process.stdout.write(JSON.stringify(out));
"""


def test_a_sealed_vote_is_kept_where_a_reload_finds_it_even_with_storage_full() -> None:
    got = run_node(_STORAGE)
    assert got["local"] == ["p1", True]
    assert got["tab"] == [False, True, "p3"], "localStorage full: the tab keeps it"
    assert got["cleared"] is None
    assert got["both_full"] == [9, 1], "the page keeps what no storage would"
    assert got["both_cleared"] == [9, None]
    assert got["page_only"] == "p4"
