// Score-only mode: one phone enters where each character ended and the cards
// nobody recorded, then sends `score_round {board, goals}`. The checks here
// only guide the person tapping; the engine decides (bad_board, missing_goal).

import { h } from '../../ui.js';
import { CHARS, THRONE, charLabel, rowOf, rowText, rowsOf } from './common.js';
import { castleRows, tray } from './castle.js';
import { picker } from './card.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 * @typedef {number|'throne'|'eliminated'} Row
 * @typedef {{round: number, board: Map<string, Row>, selected: string|null, goals: Map<string, Set<string>>}} Entry
 */

/** @param {number} round @returns {Entry} */
export function newEntry(round) {
  return { round, board: new Map(), selected: 'A', goals: new Map() };
}

/**
 * The most each row may hold at the end of a round, as the view publishes it.
 * @param {any} view
 * @param {Row} row
 */
function capOf(view, row) {
  return rowOf(view, row).end_cap;
}

/**
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {{busy: boolean, entry: Entry, pick: Set<string>, rerender: () => void,
 *          act: (a: Record<string, unknown>) => Promise<boolean>}} ui
 */
export function scoreEntry(ctx, snap, ui) {
  const view = snap.view;
  const entry = ui.entry;
  const canScore = (snap.legal || []).some((/** @type {any} */ a) => a.type === 'score_round');
  const at = (/** @type {Row} */ row) => CHARS.filter((c) => entry.board.get(c) === row);
  const over = (/** @type {Row} */ row) => at(row).length > capOf(view, row);
  const unset = CHARS.filter((c) => !entry.board.has(c));
  const sel = entry.selected;
  const select = (/** @type {string} */ ch) => () => { entry.selected = entry.selected === ch ? null : ch; ui.rerender(); };
  const put = (/** @type {string} */ ch, /** @type {Row} */ row) => {
    entry.board.set(ch, row);
    // Straight on to the next character still to enter: one tap per character.
    const i = CHARS.indexOf(ch);
    entry.selected = [...CHARS.slice(i + 1), ...CHARS.slice(0, i)].find((c) => !entry.board.has(c)) || null;
    ui.rerender();
  };

  const board = h('section', { class: 'card ku-entry', 'aria-labelledby': 'ku-entry-title' },
    h('h2', { id: 'ku-entry-title', text: ctx.t('entry.title') }),
    canScore ? h('p', { class: 'hint', text: ctx.t('entry.help') }) : null,
    canScore && unset.length ? tray(ctx, view, {
      title: ctx.t('entry.unset'), chars: unset, selected: sel, cls: 'unplaced', where: ctx.t('entry.unset'),
      tokenClick: (ch) => select(ch),
    }) : null,
    canScore ? h('p', { class: 'ku-hint', role: 'status', text: sel ? ctx.t('hint.pick_level', { char: charLabel(ctx, view, sel) }) : ctx.t('entry.pick_first') }) : null,
    castleRows(ctx, view, {
      rows: rowsOf(view).map((r) => r.row),
      contents: at,
      cap: (row) => capOf(view, row),
      over,
      selected: sel,
      disabled: ui.busy,
      tokenClick: (ch) => (canScore ? select(ch) : null),
      target: (row) => (canScore && sel ? { label: ctx.t('entry.put', { char: charLabel(ctx, view, sel), where: rowText(ctx, row) }), onclick: () => put(sel, row) } : null),
    }),
    canScore && entry.board.size ? h('button', {
      type: 'button', class: 'ku-clear', text: ctx.t('entry.clear'),
      onclick: () => { entry.board.clear(); entry.selected = 'A'; ui.rerender(); },
    }) : null);
  if (!canScore) return [board];

  // The cards: recorded ones stay secret; the rest are entered here.
  const missing = view.players.filter((/** @type {string} */ p) => !view.goal_cards_in.includes(p));
  const setFor = (/** @type {string} */ p) => {
    if (p === ctx.me) return ui.pick;
    let s = entry.goals.get(p);
    if (!s) { s = new Set(); entry.goals.set(p, s); }
    return s;
  };
  const goals = h('section', { class: 'card ku-entry-goals', 'aria-labelledby': 'ku-goals-title' },
    h('h2', { id: 'ku-goals-title', text: ctx.t('entry.goals') }),
    ...view.players.map((/** @type {string} */ p) => {
      if (!missing.includes(p)) return h('p', { class: 'ku-recorded', text: ctx.t('entry.recorded', { name: ctx.name(p) }) });
      const label = ctx.t('card.goal_for', { name: ctx.name(p) });
      return h('div', { class: 'ku-entry-goal', dataset: { player: p } },
        h('h3', { text: label }),
        picker(ctx, view, { picked: setFor(p), onchange: ui.rerender, disabled: ui.busy, label }),
        // My own card may also go in on its own now, and stay secret until scoring.
        p === ctx.me && view.goal_card_mode === 'record' ? h('button', {
          type: 'button', class: 'ku-save-card', disabled: ui.busy || ui.pick.size !== 6, text: ctx.t('card.save'),
          onclick: () => { ui.act({ type: 'goal', characters: CHARS.filter((c) => ui.pick.has(c)) }).then((ok) => { if (ok) ui.pick.clear(); }); },
        }) : null);
    }));

  const problems = [];
  if (unset.length) problems.push(ctx.t('entry.need_board', { n: unset.length }));
  if (at(THRONE).length !== capOf(view, THRONE)) problems.push(ctx.t('entry.need_throne'));
  for (const { row } of rowsOf(view)) {
    if (row !== THRONE && over(row)) problems.push(ctx.t('entry.over_cap', { where: rowText(ctx, row), cap: capOf(view, row) }));
  }
  const short = missing.filter((/** @type {string} */ p) => setFor(p).size !== 6);
  if (short.length) problems.push(ctx.t('entry.need_goals', { names: short.map((/** @type {string} */ p) => ctx.name(p)).join(', ') }));

  const submit = h('div', { class: 'ku-entry-submit' },
    problems.length
      ? h('ul', { class: 'ku-problems' }, ...problems.map((p) => h('li', { text: p })))
      : h('p', { class: 'ku-ready', text: ctx.t('entry.ready') }),
    h('button', {
      type: 'button', class: 'primary ku-score', disabled: ui.busy || problems.length > 0, text: ctx.t('entry.submit'),
      onclick: () => {
        const payload = {
          type: 'score_round',
          board: Object.fromEntries(CHARS.map((c) => [c, entry.board.get(c)])),
          goals: Object.fromEntries(missing.map((/** @type {string} */ p) => [p, CHARS.filter((c) => setFor(p).has(c))])),
        };
        ui.act(payload).then((ok) => { if (ok) ui.pick.clear(); });
      },
    }));
  return [board, goals, submit];
}
