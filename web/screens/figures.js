// A seat's public figures (its total, its marker, whether it passed) in the
// words of its game's strings, as one line of chips: in the seat list at the
// table and in the table's scoreboard.

import { has, hasStrings, missing, num, t } from '../i18n.js';
import { h } from '../ui.js';

// The platform's own fields of a seat (`paused`: its phone waits to be handed
// back, shown by the host's tools and the no-phone badge), not game figures.
const FIGURE_SKIP = new Set(['id', 'name', 'host', 'connected', 'phone', 'paused']);

/**
 * A public figure as short text: numbers as they are, lists joined.
 * @param {unknown} v
 * @returns {string}
 */
export function figureText(v) {
  if (typeof v === 'boolean') return v ? '✓' : '–';
  if (typeof v === 'number') return num(v);
  if (Array.isArray(v)) return v.map(figureText).join(', ');
  if (v && typeof v === 'object') return Object.values(v).map(figureText).join(' · ');
  return String(v);
}

/**
 * A player's public figures in words, from the game's strings: `figure.<key>.<value>`
 * (a yes/no figure), else `figure.<key>.text` ("Total {value}"), else the label and the
 * value. A no without a word of its own says nothing and is left out; once the
 * game is over, so is every yes/no (they are about the play in progress).
 * @param {string} game
 * @param {import('../net.js').Player} p
 * @param {boolean} [over]
 * @returns {string[]}
 */
export function figureChips(game, p, over = false) {
  /** @type {string[]} */
  const out = [];
  for (const [key, v] of figures(p)) {
    const base = `${game}.figure.${key}`;
    if (over && typeof v === 'boolean') continue;
    if ((typeof v === 'boolean' || typeof v === 'string') && has(`${base}.${v}`)) out.push(t(`${base}.${v}`));
    else if (v === false || v === null) continue;
    else if (has(`${base}.text`)) out.push(t(`${base}.text`, { value: figureText(v) }));
    else {
      // A figure its game has no word for shows its key: say so (i18n.missing),
      // but for a game on the generic screen, which has no words at all.
      if (!has(base) && hasStrings(game)) missing(base);
      out.push(`${has(base) ? t(base) : key} ${figureText(v)}`);
    }
  }
  return out;
}

/**
 * A seat's figures as one line of chips ("합계 5점 · 마커 3칸"): each chip
 * keeps its words together (Korean would otherwise break inside "마커").
 * @param {string} game
 * @param {import('../net.js').Player} p
 * @param {boolean} over
 */
export function figureLine(game, p, over) {
  const chips = figureChips(game, p, over);
  return h('span', { class: 'seat-figures' },
    ...chips.flatMap((c, i) => [i ? ' · ' : null, h('span', { class: 'figure', text: c })]));
}

/**
 * @param {import('../net.js').Player} p
 * @returns {Array<[string, unknown]>}
 */
export function figures(p) {
  // An empty list (no round scored yet) says nothing: leave it out. The total,
  // where there is one, is what the table asks first.
  return Object.entries(p).filter(([k, v]) => !FIGURE_SKIP.has(k) && !(Array.isArray(v) && v.length === 0))
    .sort(([a], [b]) => Number(b === 'total') - Number(a === 'total'));
}
