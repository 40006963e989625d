// Shared pieces of the King Up! screens: the character tokens, position
// labels and the stylesheet link. No rules live here: positions, legal moves
// and scores all come from the server's view and `legal` list.

import { loadCss } from '../shared.js';
import { h } from '../../ui.js';

export const CHARS = 'ABCDEFGHIJKLM'.split('');
export const THRONE = 'throne';
export const ELIMINATED = 'eliminated';

/**
 * @typedef {import('../../games-loader.js').GameContext} Ctx
 * @typedef {number|'throne'|'eliminated'} Row a castle row (a level 0-5, the throne) or the eliminated pile
 * @typedef {Row|null} Pos where a character stands; null before it is placed
 */

/**
 * @typedef {{row: Row, points: number, cap: number|null, end_cap: number}} RowInfo
 *   a row as the view publishes it: its points, its cap during play (null: none)
 *   and the most it may hold when a round ends
 */

/**
 * The view's rows, top to bottom, the eliminated pile last.
 * @param {any} view
 * @returns {RowInfo[]}
 */
export function rowsOf(view) {
  return (view && view.rows) || [];
}

/**
 * One row of the view.
 * @param {any} view
 * @param {Row} row
 * @returns {RowInfo}
 */
export function rowOf(view, row) {
  return /** @type {RowInfo} */ (rowsOf(view).find((r) => r.row === row));
}

/**
 * Rows of the castle, top to bottom (the eliminated pile is not one).
 * @param {any} view
 * @returns {Row[]}
 */
export function castleRowsOf(view) {
  return rowsOf(view).map((r) => r.row).filter((r) => r !== ELIMINATED);
}

/** Loads kingup.css once; see shared.js. */
export const ensureCss = () => loadCss('kingup');

/**
 * The display name of a character in the current language (the letter by default).
 * @param {any} view
 * @param {string} ch
 * @param {'ko'|'en'} lang
 */
export function charName(view, ch, lang) {
  const names = view && view.character_names && view.character_names[ch];
  return (names && names[lang]) || ch;
}

/**
 * A character in running text: "A", or "A Dario" when it has a display name.
 * @param {Ctx} ctx
 * @param {any} view
 * @param {string} ch
 */
export function charLabel(ctx, view, ch) {
  const name = charName(view, ch, ctx.lang);
  return name === ch ? ch : `${ch} ${name}`;
}

/**
 * "Level 3", "Throne", "Eliminated", "Not placed".
 * @param {Ctx} ctx
 * @param {Pos|undefined} pos
 */
export function posText(ctx, pos) {
  if (pos === THRONE) return ctx.t('pos.throne');
  if (pos === ELIMINATED) return ctx.t('pos.eliminated');
  if (pos === null || pos === undefined) return ctx.t('pos.unplaced');
  return ctx.t('pos.level', { n: pos });
}

/**
 * "Level 3 (Officers)" / "3층(장교)", for level rows.
 * @param {Ctx} ctx
 * @param {Row} row
 */
export function rowText(ctx, row) {
  if (row === THRONE) return ctx.t('level.throne');
  if (row === ELIMINATED) return ctx.t('castle.eliminated');
  return `${ctx.t('level.n', { n: row })} (${ctx.t(`level.${row}`)})`;
}

/**
 * One character token: its colour, its letter and (when configured) its name.
 * A <button> when `onclick` is given, a plain element otherwise.
 * @param {Ctx} ctx
 * @param {any} view
 * @param {string} ch
 * @param {{onclick?: () => void, selected?: boolean, selectable?: boolean, mine?: boolean,
 *          pressed?: boolean, disabled?: boolean, small?: boolean, extra?: string}} [opts]
 */
export function token(ctx, view, ch, opts = {}) {
  const name = charName(view, ch, ctx.lang);
  const named = name !== ch;
  const cls = ['ku-token', `ku-c-${ch}`];
  if (opts.selectable) cls.push('selectable');
  if (opts.selected) cls.push('selected');
  if (opts.mine) cls.push('mine');
  if (opts.small) cls.push('small');
  let label = named ? ctx.t('token.named', { char: ch, name }) : ctx.t('token.label', { char: ch });
  if (opts.mine) label += ` · ${ctx.t('token.mine')}`;
  if (opts.extra) label += ` · ${opts.extra}`;
  const body = [
    h('span', { class: 'ku-letter', 'aria-hidden': 'true', text: ch }),
    named ? h('span', { class: 'ku-name', 'aria-hidden': 'true', text: name }) : null,
  ];
  if (opts.onclick) {
    const onclick = opts.onclick;
    return h('button', {
      type: 'button',
      class: cls.join(' '),
      'aria-label': label,
      'aria-pressed': opts.pressed === undefined ? null : String(opts.pressed),
      disabled: Boolean(opts.disabled),
      dataset: { char: ch },
      onclick: (/** @type {Event} */ e) => { e.stopPropagation(); onclick(); },
    }, ...body);
  }
  return h('span', { class: cls.join(' '), role: 'img', 'aria-label': label, dataset: { char: ch } }, ...body);
}

/**
 * Names joined for a sentence ("Mina, Bora").
 * @param {Ctx} ctx
 * @param {string[]} pids
 */
export function names(ctx, pids) {
  return pids.map((p) => ctx.name(p)).join(', ');
}
