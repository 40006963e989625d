// The table's history panel: the score pad by game and round, newest first,
// fetched by pages (the latest 200 entries, older ones on demand) and worded
// on this phone from the keys the server sends (../history.js).

import { h, showError } from '../ui.js';
import { api } from '../net.js';
import { lineText, roundLabel } from '../history.js';

/**
 * @typedef {import('../history.js').HistoryEntry} HistoryEntry
 * @typedef {{game?: number, round: number, entries: HistoryEntry[]}} HistoryRound
 * @typedef {{version?: number, games?: number, names?: Record<string, string>, rounds?: HistoryRound[],
 *   more?: boolean, next_before?: number|null}} HistoryPage
 */

/**
 * @param {string} tableId
 * @param {string|null} token
 * @param {{before?: number|null, limit?: number}} [opts]
 * @returns {Promise<HistoryPage>}
 */
export function fetchHistory(tableId, token, opts = {}) {
  const q = [opts.before ? `before=${opts.before}` : '', opts.limit ? `limit=${opts.limit}` : ''].filter(Boolean).join('&');
  return api(`/api/tables/${encodeURIComponent(tableId)}/history${q ? `?${q}` : ''}`, { token });
}

/**
 * @param {import('./session.js').Session} session
 * @param {() => (import('../net.js').Snapshot|null)} getSnap
 */
export function historyPanel(session, getSnap) {
  const list = h('div', { class: 'history-list' });
  const el = /** @type {HTMLElement} */ (h('section', { class: 'card panel', id: 'history-panel', hidden: true, 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title', t: 'table.history_title' }), list));
  let alive = true;
  /** the table's version the shown pages were read at */
  let version = -1;
  /** @type {HistoryPage[]} the pages shown, newest first */
  let pages = [];

  async function load() {
    const snap = getSnap();
    if (!snap) return;
    const at = snap.version;
    try {
      const data = await fetchHistory(session.id, session.token);
      if (!alive) return;
      version = at;
      // Older pages are dropped on every change (an undo may mark them): the
      // phone asks for them again only on demand.
      pages = [data];
      render();
    } catch (e) {
      showError(/** @type {any} */ (e));
    }
  }

  async function loadOlder() {
    const last = pages[pages.length - 1];
    if (!last || !last.more || !last.next_before) return;
    try {
      const data = await fetchHistory(session.id, session.token, { before: last.next_before });
      if (!alive || pages[pages.length - 1] !== last) return;
      pages.push(data);
      render();
    } catch (e) {
      showError(/** @type {any} */ (e));
    }
  }

  function render() {
    const snap = getSnap();
    // A round may run across two pages: merge by game and round (each "play
    // again" starts its rounds at 1 again), oldest entries first.
    /** @type {Map<string, {game: number, round: number, entries: Array<{entry: HistoryEntry, names: Record<string, string>}>}>} */
    const byRound = new Map();
    for (const page of pages.slice().reverse()) {
      for (const r of page.rounds || []) {
        if (!r.entries || !r.entries.length) continue;
        const game = r.game || 1;
        const key = `${game}:${r.round}`;
        const group = byRound.get(key) || { game, round: r.round, entries: [] };
        group.entries = [...group.entries, ...r.entries.map((entry) => ({ entry, names: page.names || {} }))];
        byRound.set(key, group);
      }
    }
    const rounds = [...byRound.values()].sort((a, b) => a.game - b.game || a.round - b.round);
    if (!rounds.length) {
      list.replaceChildren(h('p', { class: 'hint', t: 'table.history_empty' }));
      return;
    }
    const several = (pages[0] && (pages[0].games || 1) > 1) || rounds.some((r) => r.game > 1);
    const game = snap ? snap.game : '';
    const last = pages[pages.length - 1];
    const older = last && last.more
      ? h('button', { type: 'button', class: 'history-more', t: 'table.history_more', onclick: () => { loadOlder(); } })
      : null;
    // Newest first: what just happened is what people ask about.
    list.replaceChildren(...rounds.slice().reverse().map((r) => h('section', { class: 'history-round' },
      h('h3', { text: roundLabel(r, game, several) }),
      // This phone's check of the leg's or round's fair dice, once revealed.
      session.fair.mark(r.game, r.round),
      h('ol', { reversed: true }, ...r.entries.slice().reverse().map(({ entry, names }) => h('li', { class: entry.undone ? 'undone' : '' },
        h('span', { text: lineText(entry, names) }),
        entry.undone ? h('span', { class: 'badge', t: 'table.undone' }) : null))))), ...(older ? [older] : []));
  }

  return {
    el,
    /** Reads the newest page again (the panel was opened, or the table moved on). */
    load,
    /** @param {import('../net.js').Snapshot} snap the table moved on: the open panel follows */
    update(snap) { if (!el.hidden && version !== snap.version) load(); },
    /** The language changed: the same pages in the new one, no fetch. */
    relabel() { if (!el.hidden && pages.length) render(); },
    /** A fair dice check came back: its marks follow. */
    remark() { if (!el.hidden && pages.length) render(); },
    destroy() { alive = false; },
  };
}
