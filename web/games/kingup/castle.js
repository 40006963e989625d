// The castle: seven rows (throne at the top, level 0 at the bottom), each with
// its characters and its count against the cap. Which tokens may be tapped and
// which rows are targets is decided by the caller from the server's `legal`.

import { h } from '../../ui.js';
import { ELIMINATED, THRONE, castleRowsOf, charLabel, posText, rowOf, rowText, token } from './common.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 * @typedef {import('./common.js').Row} Row
 * @typedef {{
 *   rows?: Row[],
 *   contents: (row: Row) => string[],
 *   cap: (row: Row) => number|null,
 *   mine?: Set<string>,
 *   selected?: string|null,
 *   tokenClick?: (ch: string) => (() => void)|null,
 *   target?: (row: Row) => {label: string, onclick: () => void}|null,
 *   over?: (row: Row) => boolean,
 *   disabled?: boolean,
 * }} CastleOpts
 */

/**
 * A character where it stands (a castle row or a tray), tappable when the
 * caller's `tokenClick` gives it an action.
 * @param {Ctx} ctx
 * @param {any} view
 * @param {string} ch
 * @param {{mine?: Set<string>, selected?: string|null, tokenClick?: (ch: string) => (() => void)|null,
 *          disabled?: boolean}} o
 * @param {string|undefined} where
 */
function placedToken(ctx, view, ch, o, where) {
  const click = o.tokenClick ? o.tokenClick(ch) : null;
  return token(ctx, view, ch, {
    mine: o.mine ? o.mine.has(ch) : false,
    selectable: Boolean(click),
    selected: o.selected === ch,
    pressed: click ? o.selected === ch : undefined,
    onclick: click || undefined,
    disabled: Boolean(click && o.disabled),
    extra: where,
  });
}

/**
 * @param {Ctx} ctx
 * @param {any} view
 * @param {CastleOpts} o
 */
export function castleRows(ctx, view, o) {
  const rows = o.rows || castleRowsOf(view);
  return h('ol', { class: 'ku-castle', 'aria-label': ctx.t('castle.title') }, ...rows.map((row) => {
    const chars = o.contents(row);
    const cap = o.cap(row);
    const target = o.target ? o.target(row) : null;
    const countText = cap === null ? ctx.t('castle.count0', { count: chars.length }) : ctx.t('castle.count', { count: chars.length, cap });
    // Number, name, then "count/cap · points": the tokens get the rest of the width.
    const head = [
      h('span', { class: 'ku-row-no', 'aria-hidden': 'true', text: row === THRONE ? '♛' : row === ELIMINATED ? '✕' : String(row) }),
      h('span', { class: 'ku-row-name', text: row === THRONE ? ctx.t('level.throne') : row === ELIMINATED ? ctx.t('castle.eliminated') : ctx.t(`level.${row}`) }),
      h('span', { class: 'ku-row-meta' },
        // Inside a button the button's own words say which row; elsewhere the count says it.
        h('span', { class: 'ku-count', 'aria-label': target ? null : `${rowText(ctx, row)}: ${countText}`, text: countText }),
        row === ELIMINATED ? null : h('span', { class: 'ku-row-pts', text: ` · ${ctx.t('points', { n: rowOf(view, row).points })}` })),
    ];
    const cls = ['ku-row'];
    if (row === THRONE) cls.push('throne');
    if (row === ELIMINATED) cls.push('out');
    if (target) cls.push('target');
    if (cap !== null && chars.length >= cap) cls.push('full');
    if (o.over && o.over(row)) cls.push('over');
    const li = h('li', { class: cls.join(' '), dataset: { level: String(row) } },
      target
        // Named by what it shows, then what a tap does: a label that hid the visible
        // words would not match what a voice-control user reads aloud.
        ? h('button', { type: 'button', class: 'ku-row-head', disabled: Boolean(o.disabled), onclick: (/** @type {Event} */ e) => { e.stopPropagation(); target.onclick(); } },
          ...head, h('span', { class: 'sr-only', text: target.label }))
        : h('div', { class: 'ku-row-head' }, ...head),
      h('div', { class: 'ku-row-tokens' }, ...chars.map((ch) => placedToken(ctx, view, ch, o, rowText(ctx, row)))));
    // The whole row is the target for a thumb; the head button is the accessible one.
    if (target && !o.disabled) li.addEventListener('click', target.onclick);
    return li;
  }));
}

/**
 * A tray of characters outside the castle (not placed yet, or eliminated).
 * @param {Ctx} ctx
 * @param {any} view
 * @param {{title: string, chars: string[], mine?: Set<string>, selected?: string|null,
 *          tokenClick?: (ch: string) => (() => void)|null, disabled?: boolean, cls?: string, where?: string}} o
 */
export function tray(ctx, view, o) {
  return h('div', { class: `ku-tray ${o.cls || ''}` },
    h('h3', { text: o.title }),
    o.chars.length
      ? h('div', { class: 'ku-tray-tokens' }, ...o.chars.map((ch) => placedToken(ctx, view, ch, o, o.where)))
      : h('p', { class: 'hint', text: ctx.t('castle.none') }));
}

/**
 * The castle of a full-tracking round, with placement and movement driven by `legal`.
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {{selected: string|null, busy: boolean, select: (ch: string|null) => void,
 *          act: (a: Record<string, unknown>) => void}} ui
 */
export function playCastle(ctx, snap, ui) {
  const view = snap.view;
  const castle = view.castle;
  const legal = snap.legal || [];
  const places = legal.filter((/** @type {any} */ a) => a.type === 'place');
  const moves = new Set(legal.filter((/** @type {any} */ a) => a.type === 'move').map((/** @type {any} */ a) => a.char));
  const mine = new Set((view.me && view.me.goal) || []);
  const placing = places.length > 0;
  const moving = moves.size > 0;
  const sel = ui.selected && ((placing && places.some((/** @type {any} */ a) => a.char === ui.selected)) || (moving && moves.has(ui.selected))) ? ui.selected : null;
  const levelsFor = new Set(sel && placing ? places.filter((/** @type {any} */ a) => a.char === sel).map((/** @type {any} */ a) => a.level) : []);

  const contents = (/** @type {Row} */ row) => (row === THRONE ? (castle.throne ? [castle.throne] : []) : castle.levels[/** @type {number} */ (row)] || []);
  const rows = castleRows(ctx, view, {
    contents,
    cap: (row) => rowOf(view, row).cap,
    mine,
    selected: sel,
    disabled: ui.busy,
    tokenClick: (ch) => (moving && moves.has(ch)
      ? () => { if (sel === ch) ui.act({ type: 'move', char: ch }); else ui.select(ch); }
      : null),
    target: (row) => (levelsFor.has(row) && sel
      ? { label: ctx.t('place.on', { char: charLabel(ctx, view, sel), level: rowText(ctx, row) }), onclick: () => ui.act({ type: 'place', char: sel, level: row }) }
      : null),
  });

  const parts = [h('h2', { id: 'ku-castle-title', text: ctx.t('castle.title') }), rows];
  if (castle.unplaced.length && view.phase === 'placement') {
    parts.push(tray(ctx, view, {
      title: ctx.t('castle.unplaced'), chars: castle.unplaced, mine, selected: sel, disabled: ui.busy, cls: 'unplaced',
      where: ctx.t('pos.unplaced'),
      tokenClick: (ch) => (placing ? () => ui.select(sel === ch ? null : ch) : null),
    }));
  }
  if (castle.eliminated.length) {
    parts.push(tray(ctx, view, { title: ctx.t('castle.eliminated'), chars: castle.eliminated, mine, cls: 'out', where: ctx.t('pos.eliminated') }));
  }

  // What to do next, and the move confirmation, sit under the castle (the thumb's zone).
  let hint = '';
  if (placing) hint = sel ? ctx.t('hint.pick_level', { char: charLabel(ctx, view, sel) }) : ctx.t('hint.pick_place');
  else if (moving && !sel) hint = ctx.t('hint.pick_move');
  if (hint) parts.push(h('p', { class: 'ku-hint', role: 'status', text: hint }));
  if (moving && sel) {
    const from = view.positions[sel];
    const toThrone = from === 5;
    parts.push(h('div', { class: 'ku-confirm row' },
      h('button', { type: 'button', class: 'ku-cancel', text: ctx.t('cancel'), onclick: () => ui.select(null) }),
      h('button', {
        type: 'button', class: 'primary ku-move', disabled: ui.busy, dataset: { move: sel },
        text: toThrone ? ctx.t('move.throne', { char: charLabel(ctx, view, sel) }) : ctx.t('move.confirm', { char: charLabel(ctx, view, sel), from: posText(ctx, from), to: posText(ctx, from + 1) }),
        onclick: () => ui.act({ type: 'move', char: sel }),
      })));
  }
  return h('section', { class: 'card ku-castle-card', 'aria-labelledby': 'ku-castle-title' }, ...parts);
}
