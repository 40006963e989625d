"""web/screens/fair-chain.js in node: the phone's hash chain (issue 38)."""

from __future__ import annotations

from conftest import run_node
from tablemate_verify.chain import step

# A phone in node: its storage, its chain for table t1, and what it sends.
_PHONE = """
globalThis.window = globalThis;
const store = new Map();
globalThis.localStorage = {getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, String(v))};
const { phoneChain } = await import('./web/screens/fair-chain.js');
const sent = [];
let answered = 1;  // the version the server's answer names
const send = async (a) => { sent.push(a); return {version: answered, events: []}; };
const chain = phoneChain('t1', send);
const snap = (version, fair) => ({version, me: 'p2', fair: {open: [], sealed: [], revealed: 0, ...fair}});
"""

_CHAIN = _PHONE + """
await chain.update(snap(1, {}));                       // no chain: it anchors
const anchor = sent[0].anchor;
const pending = {draw: 5, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                 contributors: ['p1', 'p2'], waiting: ['p2'], at: 0, wait: 3600};
const chains = {p2: {anchor, length: 256, used: 0, last: anchor}};
await chain.update(snap(5, {chains, pending}));        // the draw waits for it: its first link
// A reload while the draw still waits: the same link again, never the next one.
const again = phoneChain('t1', send);
await again.update(snap(5, {chains, pending}));
await again.update(snap(7, {chains: {p2: {anchor, length: 256, used: 1, last: sent[1].link}}}));  // made at 7
const links = sent.filter((a) => a.type === 'link').map((a) => a.link);
const proof = (seat) => [{label: 's', outcomes: [{index: 0, links: [{seat, link: links[0], anchor}]}]}];
process.stdout.write(JSON.stringify({
  types: sent.map((a) => a.type), anchor, links,
  counted: again.check(proof('p2'), 7), before: again.check(proof('p1'), 6),
  left_out: again.check(proof('p1'), 7).map((l) => l.code),
  exported: again.exported(),
}));
process.exit(0);
"""


def test_a_phone_anchors_answers_once_and_holds_the_proof_to_its_links() -> None:
    got = run_node(_CHAIN)
    # One anchor; the pending draw answered with c_1, and after a reload with c_1 again.
    assert got["types"] == ["anchor", "link", "link"]
    first = got["links"][0]
    assert got["links"] == [first, first] and step(first) == got["anchor"]
    assert got["counted"] == [] and got["before"] == []  # a proof of before the draw cannot hold it
    assert got["left_out"] == ["own_link_missing"]
    # The export: the anchor and the one link revealed, never the links still to come.
    assert got["exported"]["seat"] == "p2"
    assert got["exported"]["chains"] == [{"anchor": got["anchor"], "length": 256, "links": [first]}]


_LEFT_OUT = _PHONE + """
answered = 3;
const reasons = [];
chain.onMissed((r) => reasons.push(r));
await chain.update(snap(2, {}));                       // anchors: accepted at version 3
const anchor = sent[0].anchor;
const chains = {p2: {anchor, length: 256, used: 0, last: anchor}};
const pending = (draw, contributors) => ({draw, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                                          contributors, waiting: contributors, at: 0, wait: 3600});
await chain.update(snap(3, {chains, pending: pending(3, ['p1'])}));  // announced with the anchor: not yet its
const early = chain.leftOut();
await chain.update(snap(4, {chains, pending: pending(5, ['p1'])}));  // live and anchored, left out
await chain.update(snap(4, {chains, pending: pending(5, ['p1'])}));  // the same draw: said once
const once = chain.leftOut();
chain.offline();
const reload = phoneChain('t1', send);                 // kept across reloads
const kept = reload.leftOut();
await reload.update(snap(9, {chains, pending: pending(9, ['p1'])}));  // back online at 9: not live before it
process.stdout.write(JSON.stringify({early, once, kept, after: reload.leftOut(), reasons,
                                     links: sent.filter((a) => a.type === 'link').length}));
process.exit(0);
"""


def test_a_live_anchored_phone_left_out_of_a_draw_warns_once_and_keeps_it() -> None:
    got = run_node(_LEFT_OUT)
    assert got["early"] == 0  # a draw announced before its anchor was accepted
    assert got["once"] == 1 and got["reasons"] == ["left_out"]
    assert got["kept"] == 1 and got["after"] == 1  # a phone that was not live before the draw is not warned
    assert got["links"] == 0


_ONCE = _PHONE + """
await chain.update(snap(1, {}));
const chains = {p2: {anchor: sent[0].anchor, length: 256, used: 0, last: sent[0].anchor}};
const pending = (waiting) => ({draw: 5, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                               contributors: ['p1', 'p2', 'p3'], waiting, at: 0, wait: 3600});
await chain.update(snap(4, {chains, pending: pending(['p1', 'p2', 'p3'])}));  // the announce
await chain.update(snap(4, {chains, pending: pending(['p2', 'p3'])}));        // p1's link, built before p2's was in
process.stdout.write(JSON.stringify(sent.filter((a) => a.type === 'link').length));
process.exit(0);
"""


def test_a_page_sends_its_link_for_a_draw_once_whatever_the_frames_say() -> None:
    """A link frame built before this phone's link was in still lists it as
    awaited: sending again could come back ``draw_over`` (the draw made
    meanwhile) and the phone would call its part not counted."""
    assert run_node(_ONCE) == 1


_BEHIND = _PHONE + """
answered = 4;
await chain.update(snap(3, {}));                       // anchors: accepted at version 4
const anchor = sent[0].anchor;
// The announce's frame over a snapshot older than the anchor (its push still on the
// way): the draw seems to wait for a phone without a chain. Its wait is over already.
const pending = {draw: 5, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                 contributors: ['p2'], waiting: ['p2'], at: 0, wait: 0};
await chain.update(snap(3, {pending}));
await new Promise((r) => setTimeout(r, 600));          // past the nudge's delay
const before = sent.map((a) => a.type);
await chain.update(snap(5, {chains: {p2: {anchor, length: 256, used: 0, last: anchor}}, pending}));  // the newer snapshot
process.stdout.write(JSON.stringify({before, after: sent.map((a) => a.type)}));
process.exit(0);
"""


def test_a_phone_behind_its_own_anchor_does_not_make_the_draw_without_its_link() -> None:
    """A snapshot older than the phone's own anchor must not make it ask for the
    draw without its link (``draw_now``): it answers once it sees its chain."""
    got = run_node(_BEHIND)
    assert got["before"] == ["anchor"]
    assert got["after"][:2] == ["anchor", "link"]


# Two tabs of one seat in one browser: one storage (each tab reads it through
# `localStorage`, swapped below to give one tab a view from before the other's writes).
_TABS = """
globalThis.window = globalThis;
const live = new Map();
const storage = (m) => ({getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, String(v)),
                         removeItem: (k) => m.delete(k)});
globalThis.localStorage = storage(live);
const { phoneChain } = await import('./web/screens/fair-chain.js');
const sent = [];
let version = 1;
const send = (tab) => async (a) => { sent.push({tab, ...a}); version += 1; return {version, events: []}; };
const snap = (v, fair) => ({version: v, me: 'p2', fair: {open: [], sealed: [], revealed: 0, ...fair}});
const a = phoneChain('t1', send('a'));
const b = phoneChain('t1', send('b'));
"""

_AT_ONCE = _TABS + """
// Both tabs open before either has a chain: each anchors (accepted at 2, then 3).
await Promise.all([a.update(snap(1, {})), b.update(snap(1, {}))]);
const anchors = sent.filter((s) => s.type === 'anchor');
// The table kept the later anchor: the tab whose chain it replaced takes it up.
const kept = anchors[1].anchor;
const chains = {p2: {anchor: kept, length: 256, used: 0, last: kept}};
await a.update(snap(3, {chains}));
await b.update(snap(3, {chains}));
const pending = {draw: 5, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                 contributors: ['p1', 'p2'], waiting: ['p2'], at: 0, wait: 3600};
await a.update(snap(4, {chains, pending}));
await b.update(snap(4, {chains, pending}));
process.stdout.write(JSON.stringify({
  types: sent.map((s) => s.type), kept, links: sent.filter((s) => s.type === 'link').map((s) => s.link),
  keys: [...live.keys()].filter((k) => k.startsWith('tablemate.links.')).length,
  exported: [a.exported().chains.at(-1).anchor, b.exported().chains.at(-1).anchor],
}));
process.exit(0);
"""


def test_two_tabs_that_anchor_at_once_take_up_the_chain_the_table_kept() -> None:
    """Without it each tab saw the other's anchor as not its own and anchored
    again: a storm of anchors, each a version pushed to every phone, until the
    seat's rate limit stopped it."""
    got = run_node(_AT_ONCE)
    assert got["types"] == ["anchor", "anchor", "link", "link"]
    # Both tabs answer with the kept chain's first link: the same link, counted once.
    assert got["links"][0] == got["links"][1] and step(got["links"][0]) == got["kept"]
    assert got["exported"] == [got["kept"], got["kept"]]
    assert got["keys"] == 1  # the replaced chain's links are forgotten


_ASLEEP = _TABS + """
await a.update(snap(1, {}));                           // tab a anchors (accepted at 2)
const anchor = sent[0].anchor;
await b.update(snap(2, {chains: {p2: {anchor, length: 256, used: 0, last: anchor}}}));
const before = new Map(live);                          // what a sleeping tab a will read
const last = () => { const l = sent.filter((s) => s.type === 'link'); return l.length ? l[l.length - 1].link : anchor; };
const pending = (draw, used) => ({chains: {p2: {anchor, length: 256, used, last: last()}}, pending: {draw, scope: 's', index: 0,
  action: 'pyramid', player: 'p1', contributors: ['p1', 'p2'], waiting: ['p2'], at: 0, wait: 3600}});
await b.update(snap(4, pending(5, 0)));                // tab b answers two draws
await b.update(snap(6, pending(7, 1)));
globalThis.localStorage = storage(before);             // tab a wakes, the other tab's writes not yet in view
await a.update(snap(8, pending(9, 2)));
process.stdout.write(JSON.stringify(sent.filter((s) => s.type === 'link').map((s) => [s.tab, s.draw, s.link])));
process.exit(0);
"""


def test_a_tab_that_slept_answers_with_the_link_after_those_the_table_counted() -> None:
    """The draw's link is the chain's next after the links the table counted,
    whichever tab sent them: a tab reading the record from before the other
    tab's answers would send a spent link (``link_mismatch``: the phone calls
    its part not counted and throws the chain away)."""
    got = run_node(_ASLEEP)
    assert [(tab, draw) for tab, draw, _ in got] == [("b", 5), ("b", 7), ("a", 9)]
    first, second, third = (link for _, _, link in got)
    assert step(third) == second and step(second) == first


_LIAR = _PHONE + """
await chain.update(snap(1, {}));                       // anchors
const anchor = sent[0].anchor;
const pending = {draw: 5, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                 contributors: ['p1', 'p2'], waiting: ['p2'], at: 0, wait: 3600};
// A server that says two links of this chain were counted (none was), with a made-up last one:
await chain.update(snap(5, {chains: {p2: {anchor, length: 256, used: 2, last: 'ab'.repeat(32)}}, pending}));
const lied = sent.filter((a) => a.type === 'link').length;
await chain.update(snap(6, {chains: {p2: {anchor, length: 256, used: 0, last: anchor}},
                            pending: {...pending, draw: 7}}));
process.stdout.write(JSON.stringify({lied, links: sent.filter((a) => a.type === 'link').map((a) => a.link), anchor}));
process.exit(0);
"""


def test_a_server_that_overstates_the_links_counted_gets_no_link_ahead() -> None:
    """The phone takes a draw's link index from the table's count (two tabs may
    have sent links), but only with the last counted link, which the server
    cannot make up: else it could make the phone reveal links ahead of their
    draws and foresee them."""
    got = run_node(_LIAR)
    assert got["lied"] == 0
    assert len(got["links"]) == 1 and step(got["links"][0]) == got["anchor"]  # c_1, the true next


# A phone in node whose storage can fill up, and a small server that checks links
# as the LINK script does (the draw pending, its chain's next link) and makes draws.
_TABLE = """
globalThis.window = globalThis;
const store = new Map();
let quota = Infinity;
const size = () => [...store].reduce((n, [k, v]) => n + k.length + v.length, 0);
globalThis.localStorage = {getItem: (k) => store.get(k) ?? null, removeItem: (k) => store.delete(k),
  setItem: (k, v) => { const old = store.has(k) ? k.length + store.get(k).length : 0;
    if (size() - old + k.length + String(v).length > quota) throw new Error('QuotaExceededError');
    store.set(k, String(v)); },
  get length() { return store.size; }, key: (i) => [...store.keys()][i] ?? null};
const { phoneChain } = await import('./web/screens/fair-chain.js');
const { linkStep } = await import('./web/fairness.js');
const { nextSnapshot } = await import('./web/snapshot.js');
const table = {version: 1, chain: null, pending: null, late: false};
const sent = [];
let hold = null;  // runs while an anchor is on its way
const send = async (a) => {
  sent.push(a);
  if (a.type === 'anchor') {
    if (hold) { const h = hold; hold = null; h(); }
    table.version += 1;
    table.chain = {anchor: a.anchor, length: a.length, used: 0, last: a.anchor};
    return {version: table.version, events: []};
  }
  const p = table.pending;
  if (table.late || !p || p.draw !== a.draw) { table.late = false; throw {error: {code: 'draw_over'}}; }
  if (p.expect.last !== await linkStep(a.link)) throw {error: {code: 'link_mismatch'}};
  p.links.push(a.link);
  return {version: table.version, events: []};
};
const pend = (draw, contributors = ['p1', 'p2']) => ({draw, scope: 's', index: 0, action: 'pyramid',
  player: 'p1', contributors, waiting: contributors, at: 0, wait: 3600});
const view = () => ({version: table.version, me: 'p2', fair: {open: [], sealed: [], revealed: 0,
  chains: {p2: {...table.chain}}, ...(table.pending ? {pending: pend(table.pending.draw)} : {})}});
const announce = () => { table.pending = {draw: table.version + 1, expect: {...table.chain}, links: []}; };
const make = () => { const p = table.pending; table.pending = null; table.version += 1;
  if (p.links.length) { table.chain.used += 1; table.chain.last = p.links[0]; } };
const reasons = [];
const phone = () => { const c = phoneChain('t1', send); c.onMissed((r) => reasons.push(r)); return c; };
const links = () => sent.filter((a) => a.type === 'link').map((a) => [a.draw, a.link]);
"""

_SPENT = _TABLE + """
const chain = phone();
await chain.update(view());                      // anchors (v2)
announce(); table.late = true;                   // draw 3: made before this phone's link lands
await chain.update(view());                      // link sent, draw_over: the chain is spent
table.pending = null; table.version += 1;        // made without it (v3); the chain not counted
announce();                                      // draw 4, before the phone anchors anew
await chain.update(view());
const during = links().length;
make();
await chain.update(view());                      // made without it: now it anchors anew
process.stdout.write(JSON.stringify({during, types: sent.map((a) => a.type), reasons}));
process.exit(0);
"""


def test_a_spent_chain_gives_no_link_to_the_next_draw() -> None:
    """A link the table did not count (the draw was made already) was shown to
    the server: the chain is spent, and its next link to give is that very
    one. The next draw goes without this phone (nothing foreseen from it); the
    phone anchors anew once the draw is made."""
    got = run_node(_SPENT)
    assert got["during"] == 1, "the spent link was given again"
    assert got["types"] == ["anchor", "link", "anchor"]
    assert got["reasons"] == ["draw_over"]


_FRAME_AHEAD = _TABLE + """
const chain = phone();
let held = null;  // web/live.js's this.last
const accept = async (s) => { const n = nextSnapshot(held, s); if (n) { held = n; await chain.update(held); } };
const frame = async (version, pending) => {     // web/live.js draw()
  if (!held || version < held.version) return;
  held = {...held, fair: {...held.fair, pending}}; await chain.update(held);
};
await accept(view()); await accept(view());      // anchored (v2)
announce(); await frame(2, pend(3));             // draw 3: its link
make(); const v3 = view();                       // made at v3, its push on its way...
announce(); await frame(3, pend(4));             // ...overtaken by draw 4's frame
await accept(v3); await accept(view());
make(); await accept(view());
process.stdout.write(JSON.stringify({links: links(), reasons, used: table.chain.used}));
process.exit(0);
"""


def test_a_draw_frame_ahead_of_the_last_snapshot_waits_for_it() -> None:
    """Two draws back to back (King Up's goal cards): the second's frame may
    land before the snapshot of the first one made, and the snapshot it is put
    into counts this seat's links as before the first. Answered from it, the
    phone gave the first draw's link again (link_mismatch: its part "not
    counted", its chain thrown away); it answers from the next snapshot."""
    got = run_node(_FRAME_AHEAD)
    assert got["reasons"] == []
    assert [d for d, _ in got["links"]] == [3, 4] and got["links"][0][1] != got["links"][1][1]
    assert got["used"] == 2


_NEW_CHAIN = _TABLE + """
await phone().update(view());                    // chain A (v2)
store.clear();                                   // this phone's record lost (storage cleared)
const page = phone();
hold = announce;                                 // a roll announced while chain B is on its way: it expects A
await page.update(view());                       // anchors B (v3)
await page.update(view());                       // draw 3 waits for p2
process.stdout.write(JSON.stringify({types: sent.map((a) => a.type), reasons}));
process.exit(0);
"""


def test_a_chain_accepted_after_a_draw_was_announced_does_not_answer_it() -> None:
    """The draw expects the chain the table had at its announce: the new
    chain's first link would be refused (link_mismatch) and spent for nothing."""
    got = run_node(_NEW_CHAIN)
    assert got["types"] == ["anchor", "anchor"]
    assert got["reasons"] == []


_MADE = _PHONE + """
await chain.update(snap(1, {}));                 // anchored, accepted at 1
const anchor = sent[0].anchor;
const chains = {p2: {anchor, length: 256, used: 0, last: anchor}};
const pend = (draw) => ({draw, scope: 's', index: 0, action: 'goal', player: 'p1', contributors: ['p1', 'p2'],
                         waiting: ['p2'], at: 0, wait: 3600});
await chain.update(snap(2, {chains, pending: pend(3)}));   // draw 3: its link
await chain.update(snap(2, {chains, pending: pend(4)}));   // draw 4's frame in the snapshot of v2
process.stdout.write(JSON.stringify({at2: chain.check([], 2).map((l) => l.code),
                                     at3: chain.check([], 3).map((l) => l.code)}));
process.exit(0);
"""


def test_a_draw_is_not_dated_made_before_its_own_version() -> None:
    """A snapshot older than a draw that no longer shows it waiting (the next
    draw's frame put into it) does not date the draw made there: a proof read
    at that older version, when the draw still waited, must not be held to its
    link (a false own_link_missing on an honest table)."""
    got = run_node(_MADE)
    assert got["at2"] == []
    assert got["at3"] == ["own_link_missing"]


_RECONNECT = _PHONE + """
answered = 3;
await chain.update(snap(2, {}));                 // live; anchored, accepted at 3
const anchor = sent[0].anchor;
const chains = {p2: {anchor, length: 256, used: 0, last: anchor}};
const pending = {draw: 6, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                 contributors: ['p1', 'p3'], waiting: ['p3'], at: 0, wait: 3600};
const held = snap(3, {chains});
await chain.update(held);
chain.offline(held);                             // the Wi-Fi drops; meanwhile draw 6 is announced without it
await chain.update(held);                        // the socket reopens: the held snapshot shown again
await chain.update(snap(5, {chains, pending}));  // the server's first: draw 6 waits, rightly without it
const after = chain.leftOut();
await chain.update(snap(6, {chains}));
await chain.update(snap(6, {chains, pending: {...pending, draw: 7}}));  // now live, and left out
process.stdout.write(JSON.stringify({after, then: chain.leftOut()}));
process.exit(0);
"""


def test_a_draw_announced_while_the_phone_was_offline_is_not_called_left_out() -> None:
    """As the socket reopens the screen draws the snapshot held through the
    drop, before the server's first: it must not date the phone live from that
    old version, or a draw announced during the drop (rightly without it) is
    called `left_out`. One announced once it is back is."""
    got = run_node(_RECONNECT)
    assert got == {"after": 0, "then": 1}


_RECONNECT_SAME = _PHONE + """
answered = 3;
await chain.update(snap(2, {}));                 // live; anchored, accepted at 3
const anchor = sent[0].anchor;
const chains = {p2: {anchor, length: 256, used: 0, last: anchor}};
const pending = (draw) => ({draw, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                            contributors: ['p1', 'p3'], waiting: ['p3'], at: 0, wait: 3600});
const held = snap(3, {chains});
const phoneAfter = async (first, heard) => {     // a drop at 3, then the socket's first snapshot
  const c = phoneChain('t1', send);
  await c.update(held);
  c.offline(held);
  await c.update(held, heard);                   // the held snapshot shown again as the socket opens
  await c.update(first, heard);                  // the server's first (not drawn when it repeats the held one)
  return c;
};
// A draw announced during the drop (no new version): rightly without it, not left_out.
const during = await phoneAfter(snap(3, {chains, pending: pending(4)}), 4);
const duringCount = during.leftOut();
// Nothing happened during the drop: the next draw, announced without this live phone, is left_out.
const same = await phoneAfter(held, 3);
await same.update(snap(3, {chains, pending: pending(4)}), 3);
process.stdout.write(JSON.stringify({same: same.leftOut(), during: duringCount}));
process.exit(0);
"""


def test_the_first_draw_after_a_reconnect_to_an_unchanged_table_is_checked() -> None:
    """Live is dated from the socket's first snapshot (Live.heardFrom), even when
    it repeats the one held through the drop and is not drawn: the next draw,
    which leaves this live phone out, is called `left_out`; one announced during
    the drop (the same version, a draw waiting) is not."""
    got = run_node(_RECONNECT_SAME)
    assert got == {"same": 1, "during": 0}


_FULL = _TABLE + """
const chain = phone();
await chain.update(view());                      // anchored (v2)
quota = size() + 200;                            // storage full: the spent mark will not fit
announce(); table.late = true;
await chain.update(view());                      // its link came too late: spent
table.pending = null; table.version += 1; announce();
await phone().update(view());                    // a reload (or the seat's other tab), draw 4 waiting
const rec = store.get('tablemate.chain.t1');
process.stdout.write(JSON.stringify({links: links().length, spentOrGone: !rec || JSON.parse(rec).burned === true}));
process.exit(0);
"""


def test_a_spent_chain_that_cannot_be_marked_so_is_not_left_for_a_reload() -> None:
    """Storage full: the write that marks the chain spent fails. The record
    left behind (not spent) would make a reload, or the seat's other tab, give
    the server a link it saw already: the chain's top kept for other tabs goes
    (room for the mark), else the record goes, and they anchor anew."""
    got = run_node(_FULL)
    assert got == {"links": 1, "spentOrGone": True}
