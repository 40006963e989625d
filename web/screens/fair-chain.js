// This phone's part of every draw (docs/fairness.md, "Chains and pending
// draws"): a hash chain per table, made here, whose anchor alone goes to the
// server; then, whenever a draw waits for this phone, its next link, sent at
// once without a tap. Kept across reloads (localStorage), with the links it
// revealed, so a reload neither repeats nor skips a link. The seat may be open
// in two tabs of one browser (the QR scanned twice, a tab that slept in the
// background): they share that one record, read afresh before each step, and
// a tab takes up the chain another made (its links kept by anchor), so neither
// anchors over the other nor sends a link the other spent. When a draw was made
// without this phone's link, or was announced without asking this live,
// anchored phone for one (left out of its contributors), the phone says so loudly.

import { linkStep, newSeed } from '../fairness.js';
import { makeRoom } from '../kept.js';

/** Links per chain: a new one is made when it runs out. */
export const CHAIN_LENGTH = 256;

/**
 * @typedef {{anchor: string, length: number, links: string[]}} Spent a chain's revealed links
 * @typedef {{draw: number, scope: string, link: string, made: number|null, missed?: boolean}} Given
 *   a link sent: its draw and scope, and the table version at which this phone saw that draw made
 * @typedef {{seat: string, links: string[], used: number, burned?: boolean,
 *   answered: Record<string, string>, missed: number[], old?: Spent[], given?: Given[],
 *   at?: number, leftOut?: number[]}} Kept
 *   `at`: the table version that accepted the anchor; `leftOut`: draws announced
 *   since, while this phone was live, whose contributors omit its seat
 * @typedef {{draw: number, scope: string, index: number, action: string, player: string,
 *   contributors: string[], waiting: string[], at: number, wait: number}} Pending
 */

/**
 * A chain `[c_0 (anchor), c_1, ..., c_n]` from its top `c_n` (a fresh random one).
 * @param {number} n @param {string} [top]
 */
export async function makeChain(n, top = newSeed()) {
  const links = [top];
  for (let i = 0; i < n; i += 1) links.push(await linkStep(links[links.length - 1]));
  return links.reverse();
}

/**
 * This phone's chain at table `id`.
 * @param {string} id
 * @param {(action: {type: string, [k: string]: unknown}) => Promise<unknown>} send
 */
export function phoneChain(id, send) {
  const key = `tablemate.chain.${id}`;
  /** @type {Kept|null} */
  let kept = null;
  /** Whether the record lives in localStorage: if a write failed (private
   * mode, quota) this page's copy is the only one, and is not read over. */
  let stored = true;
  /** The record as last read or written here: parsed again only when another tab changed it. */
  let raw = '';
  /** This page's copy made afresh from the shared record: another tab of the
   * same seat may have anchored or answered since. */
  const fresh = () => {
    if (!stored) return;
    try {
      const now = localStorage.getItem(key) || '';
      if (now && now !== raw) { kept = JSON.parse(now); raw = now; }
    } catch { /* this page's copy stands */ }
  };
  fresh();
  const save = () => {
    raw = JSON.stringify(kept);
    try {
      localStorage.setItem(key, raw);
    } catch {
      // Full: other tables' chains make room (kept.js); else this page's copy is the only one.
      try {
        if (!makeRoom(id)) throw new Error('full');
        localStorage.setItem(key, raw);
      } catch {
        stored = false;
        // The record left in storage is older than this page's: a reload, or the
        // seat's other tab, reading it would take a spent chain for a good one and
        // give the server a link it saw already. Gone, it makes them anchor anew.
        try { localStorage.removeItem(key); } catch { /* nothing kept */ }
      }
    }
  };
  /** Where a chain's top is kept by its anchor, for another tab of this browser. @param {string} anchor */
  const linksKey = (anchor) => `tablemate.links.${id}.${anchor}`;
  /** @param {string} anchor */
  const forget = (anchor) => { try { localStorage.removeItem(linksKey(anchor)); } catch { /* nothing kept */ } };
  /** @param {Kept} k @returns {Spent} what a chain revealed, for the export */
  const spent = (k) => ({ anchor: k.links[0], length: k.links.length - 1, links: k.links.slice(1, k.used + 1) });
  let busy = false;
  /** @type {import('../net.js').Snapshot|null} the newest snapshot that came while busy */
  let queued = null;
  /** @type {number|null} the draw the newest snapshot shows waiting */
  let waiting = null;
  /** @type {Set<number>} draws this page already asked to make without the missing links */
  const nudged = new Set();
  /** @type {Set<number>} draws this page sent its link for: a draw frame built before
   * that link was in still lists this phone, and must not make it send again (the
   * draw may be made by then: its link would come back "not counted") */
  const sent = new Set();
  /** @type {(reason: string) => void} */
  let onMissed = () => {};
  /** @type {number|null} the first version seen since the socket (re)opened: live from then */
  let liveFrom = null;
  /** @type {import('../net.js').Snapshot|null} the snapshot held while the socket was down,
   * once this page was live: draws may have been announced since, without this phone */
  let stale = null;
  /** The chain whose links kept for other tabs were last tidied up. */
  let tidied = '';

  /** @param {string} me */
  async function anchor(me) {
    const links = await makeChain(CHAIN_LENGTH);
    // Before the anchor goes: a tab that sees the table name it can take it up (adopt).
    try { localStorage.setItem(linksKey(links[0]), links[CHAIN_LENGTH]); } catch { /* this page only */ }
    /** @type {any} */
    let res;
    try {
      res = await send({ type: 'anchor', anchor: links[0], length: CHAIN_LENGTH });
    } catch (e) {
      forget(links[0]);
      throw e;
    }
    fresh();
    // A chain spent or run out is done with; any other may be another tab's, still the table's.
    if (kept && (kept.burned || kept.used >= CHAIN_LENGTH)) forget(kept.links[0]);
    // The chain before keeps only what it revealed, for the export.
    const old = kept ? [...(kept.old || []), spent(kept)] : [];
    kept = { seat: me, links, used: 0, answered: {}, missed: kept ? kept.missed : [], old, given: kept ? kept.given || [] : [],
      leftOut: kept ? kept.leftOut || [] : [] };
    if (res && typeof res.version === 'number') kept.at = res.version;
    save();
  }

  /**
   * The seat's chain as the table knows it, made by another tab of this
   * browser (two tabs that anchored at once: the table kept the later): taken
   * up from its top, so this tab does not anchor over it. False when no tab
   * here made it.
   * @param {string} me @param {{anchor: string, length: number, used: number, last?: string}} table
   * @param {number} version the snapshot's
   */
  async function adopt(me, table, version) {
    let top = null;
    try { top = localStorage.getItem(linksKey(table.anchor)); } catch { top = null; }
    if (!top || table.length !== CHAIN_LENGTH) return false;
    const links = await makeChain(CHAIN_LENGTH, top);
    if (links[0] !== table.anchor || links[table.used] !== table.last) return false;
    fresh();
    if (kept && kept.seat === me && kept.links[0] === table.anchor) return true;  // taken up meanwhile
    if (kept && kept.links[0] !== table.anchor) forget(kept.links[0]);
    kept = { seat: me, links, used: table.used, answered: {}, missed: kept ? kept.missed : [],
      old: kept ? [...(kept.old || []), spent(kept)] : [], given: kept ? kept.given || [] : [],
      leftOut: kept ? kept.leftOut || [] : [], at: version };
    save();
    return true;
  }

  /**
   * A draw announced after this phone's chain was accepted and while its
   * socket was open, whose contributors omit this seat: the server chose not
   * to ask this phone (docs/fairness.md, the threat model). Said loudly once
   * per draw, kept across reloads.
   * @param {Pending} p @param {string} me
   */
  function leftOut(p, me) {
    if (!kept || kept.at === undefined || liveFrom === null || p.contributors.includes(me)) return;
    if (kept.at >= p.draw || liveFrom >= p.draw || kept.used >= CHAIN_LENGTH || kept.burned) return;
    if ((kept.leftOut || []).includes(p.draw)) return;
    kept.leftOut = [...(kept.leftOut || []), p.draw];
    save();
    onMissed('left_out');
  }

  /**
   * @param {Pending} p
   * @param {{used: number, last?: string}} table this seat's chain as the snapshot that shows `p` waiting has it
   * @param {number} version that snapshot's
   */
  async function answer(p, table, version) {
    if (!kept) return;
    if (!kept.answered[String(p.draw)]) {
      // Spent (a link shown to the server and not counted): its next link is that
      // very link, which the server has seen; the next draw goes without this phone.
      if (kept.burned) return;
      // Accepted at or after the draw's announce: the draw expects the chain before.
      if (kept.at !== undefined && kept.at >= p.draw) return;
      // A draw frame ahead of the snapshot of the version it was announced at
      // (pushes race): this snapshot's count of the seat's links misses those
      // given for draws made since, and would name one of them again. The next
      // snapshot answers (nextSnapshot keeps the draw in it).
      if ((kept.given || []).some((g) => g.draw > version && g.draw < p.draw)) return;
    }
    // The table's count is believed only with the last link it counted, which only
    // this browser's tabs could have sent: a server that said more links were
    // counted than were would make the phone reveal links ahead of their draws
    // (foresight of the next ones).
    if (!kept.answered[String(p.draw)] && kept.links[table.used] !== table.last) return;
    if (sent.has(p.draw)) return;
    sent.add(p.draw);
    const k = String(p.draw);
    // A snapshot late to this page (it slept while another tab answered): that
    // draw was made before one this seat answered since.
    if (!kept.answered[k] && (kept.given || []).some((g) => g.draw > p.draw)) return;
    // The draw's link is the one after the links the table counted when it was
    // announced, whichever tab sent them (a tab that slept may read the shared
    // record before the other tab's writes reach it: its `used` may be behind).
    // A reload while a draw waited: the same link again, never the next one.
    const index = table.used + 1;
    const link = kept.answered[k] || kept.links[index];
    if (!kept.answered[k]) {
      kept.answered = { [k]: link };
      kept.used = Math.max(kept.used, index);
      kept.given = [...(kept.given || []), { draw: p.draw, scope: p.scope, link, made: null }];
      save();
    }
    try {
      await send({ type: 'link', draw: p.draw, link });
    } catch (e) {
      const code = e && /** @type {any} */ (e).error ? /** @type {any} */ (e).error.code : '';
      if (code === 'draw_over' || code === 'link_mismatch') {
        // Shown to the server but not counted: this chain is spent (its next
        // links could be foreseen from it); the next snapshot anchors anew.
        kept.burned = true;
        kept.missed = [...kept.missed, p.draw];
        for (const g of kept.given || []) if (g.draw === p.draw) g.missed = true;
        // No other tab, nor a reload, may take it up from its top (adopt).
        forget(kept.links[0]);
        save();
        onMissed(code);
      }
    }
  }

  /**
   * A draw this phone answered is made once no snapshot shows it waiting:
   * from that version on, the proof must count its link. Any snapshot tells
   * (one read before the socket opens too, as a reload's first).
   * @param {import('../net.js').Snapshot} snap
   */
  function observe(snap) {
    fresh();
    const p = snap.fair ? /** @type {any} */ (snap.fair).pending : undefined;
    waiting = p ? p.draw : null;
    let seen = false;
    for (const g of (kept && kept.given) || []) {
      // A draw is made at its id's version at the earliest: a snapshot older than
      // that (another tab's, a frame's) tells only that it is not waiting there.
      if (g.made === null && (!p || p.draw !== g.draw)) { g.made = Math.max(snap.version, g.draw); seen = true; }
    }
    if (seen) save();
  }

  /** @param {Pending} p */
  function nudge(p) {
    if (nudged.has(p.draw)) return;
    nudged.add(p.draw);
    // The server checks the time; a phone whose clock is off only asks too early and tries again.
    /** @param {number} delay */
    const later = (delay) => setTimeout(() => {
      // Made meanwhile (the usual case: every link came): nothing to ask.
      if (waiting !== p.draw) return;
      send({ type: 'draw_now', draw: p.draw }).catch((e) => {
        const err = e && /** @type {any} */ (e).error;
        if (err && err.code === 'draw_wait') later(1000 * (err.retry_after || 1));
      });
    }, delay);
    later(Math.max(0, p.wait * 1000) + 250);
  }

  return {
    observe,
    /**
     * Called with every snapshot: anchors when this seat has no chain the
     * table knows (or it ran out, or was spent), answers a draw that waits
     * for it, and asks for a draw to be made once the wait is over.
     * @param {import('../net.js').Snapshot} snap
     * @param {number|null} [heard] the first draw the open socket can have heard
     *   announced (Live.heardFrom): live from there
     */
    async update(snap, heard = null) {
      const fair = /** @type {any} */ (snap.fair);
      const me = snap.me;
      if (!fair || !me) return;
      // Live from the socket's first snapshot: a draw it showed waiting was announced
      // before (an announce makes no version: its id is the version after). Not
      // from the snapshot held through a drop, shown again as the socket reopens
      // before the server's first is drawn: that would date this phone live from
      // before the drop, and a draw announced meanwhile (rightly without it) would be
      // called left_out. When the server's first repeats the held one it is not
      // drawn at all: only `heard` dates the phone then.
      if (liveFrom === null) {
        if (heard !== null) liveFrom = heard;
        else if (snap !== stale) liveFrom = snap.version + (fair.pending ? 1 : 0);
      }
      if (busy) {
        // Taken up once this one is done: a draw must not wait on a snapshot skipped.
        queued = snap;
        return;
      }
      busy = true;
      try {
        const table = fair.chains ? fair.chains[me] : undefined;
        const p = /** @type {Pending|undefined} */ (fair.pending);
        observe(snap);
        let mine = Boolean(kept && kept.seat === me && table && table.anchor === kept.links[0]);
        if (!mine && table) mine = await adopt(me, table, snap.version);
        if (mine && kept && tidied !== kept.links[0]) {
          // The table's chain is this one: the links kept of the others go (a
          // chain another tab made at the same moment, one spent or run out).
          tidied = kept.links[0];
          for (const o of kept.old || []) if (o.anchor !== tidied) forget(o.anchor);
        }
        if (p && mine && !snap.paused) leftOut(p, me);
        if (p && p.waiting.includes(me) && mine && table) await answer(p, table, snap.version);
        else if (!mine || !kept || kept.burned || kept.used >= CHAIN_LENGTH) {
          // A chain accepted after this snapshot was made (this tab's or
          // another's): the next snapshot shows it; anchoring now would throw it away.
          const newer = kept && kept.seat === me && !kept.burned && kept.at !== undefined && kept.at > snap.version;
          if (!newer && !(p && p.contributors.includes(me))) await anchor(me);
        }
        // A snapshot older than this phone's own chain (a push still on its way)
        // shows the draw waiting for a phone it cannot see answer: not a reason to
        // make the draw without it. A newer snapshot answers, or nudges.
        const behind = kept && kept.at !== undefined && kept.at > snap.version && p && p.waiting.includes(me);
        if (p && p.waiting.length && !behind) nudge(p);
      } catch {
        // The next snapshot tries again.
      } finally {
        busy = false;
      }
      const next = queued;
      queued = null;
      if (next) await this.update(next);
    },
    /**
     * Every link this phone sent for a draw made by the proof's version must
     * be in the proof, for this seat (a server that left one out to choose
     * among outcomes is caught here, as by the CLI's --phone).
     * @param {any[]} scopes the proof's @param {number|null} version
     * @returns {import('../fairness.js').Line[]}
     */
    check(scopes, version) {
      fresh();
      if (!kept || version === null) return [];
      const seat = kept.seat;
      const counted = new Set();
      for (const s of scopes) {
        for (const o of Array.isArray(s && s.outcomes) ? s.outcomes : []) {
          for (const e of Array.isArray(o.links) ? o.links : []) if (e && e.seat === seat) counted.add(e.link);
        }
      }
      const lost = (kept.given || []).filter((g) => !g.missed && g.made !== null && g.made <= version && !counted.has(g.link));
      return lost.map((g) => ({ status: /** @type {const} */ ('mismatch'), code: 'own_link_missing', where: { scope: g.scope } }));
    },
    /** Draws made without this phone's link (its part not counted). */
    missed: () => { fresh(); return kept ? kept.missed.length : 0; },
    /** Draws announced without asking this live, anchored phone (``left_out``). */
    leftOut: () => { fresh(); return kept && kept.leftOut ? kept.leftOut.length : 0; },
    /**
     * The socket is down: until it opens again this phone is not live.
     * @param {import('../net.js').Snapshot} [snap] the snapshot shown meanwhile
     */
    offline(snap) {
      if (liveFrom !== null || stale !== null) stale = snap || null;
      liveFrom = null;
    },
    /**
     * The chains' part of the export (docs/fairness.md, "Phone export"): each
     * anchor and the links revealed, never the links still to come.
     * @returns {{seat: string|null, chains: Spent[], missed: number[]}}
     */
    exported() {
      fresh();
      if (!kept) return { seat: null, chains: [], missed: [] };
      const now = { anchor: kept.links[0], length: kept.links.length - 1, links: kept.links.slice(1, kept.used + 1) };
      return { seat: kept.seat, chains: [...(kept.old || []), now], missed: kept.missed };
    },
    /** @param {(reason: string) => void} fn */
    onMissed(fn) { onMissed = fn; },
  };
}
