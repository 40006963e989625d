// The history's lines in words. The server sends every line as string keys and
// plain values (engines/history.py: Part), never as words: this phone fills
// them in from its own tables (i18n/*.json, the game's strings.js under
// "<game>.") with the one Korean particle implementation (i18n.js: tIn), so a
// line reads in the screen's language and follows it when it changes.

import { getLang, has, tIn } from './i18n.js';

/** @typedef {import('./i18n.js').Lang} Lang */
/** @typedef {{key: string, params?: Record<string, unknown>}} Part */
/**
 * @typedef {{version: number, first?: number, by?: string|null, parts?: Part[], undone?: boolean,
 *   entered_for?: string, retracted?: unknown}} HistoryEntry
 */

/**
 * A value of a part in words: a part is said in the same language, a list
 * joined by `history.sep`, `{and: [...]}` as "A, B and C" (Korean "A·B·C");
 * numbers stay numbers (tIn writes them as the language does).
 * @param {Lang} l
 * @param {unknown} v
 * @returns {unknown}
 */
function value(l, v) {
  if (Array.isArray(v)) return v.map((x) => String(value(l, x))).join(tIn(l, 'history.sep'));
  if (v && typeof v === 'object') {
    const o = /** @type {{key?: unknown, and?: unknown}} */ (v);
    if (typeof o.key === 'string') return words(l, /** @type {Part} */ (o));
    if (Array.isArray(o.and)) {
      const items = o.and.map((x) => String(value(l, x)));
      const last = items.pop();
      if (last === undefined) return '';
      return items.length ? items.join(tIn(l, 'history.and_sep')) + tIn(l, 'history.and_last') + last : last;
    }
  }
  return v;
}

/**
 * One part in words.
 * @param {Lang} l
 * @param {Part} part
 * @returns {string}
 */
export function words(l, part) {
  /** @type {Record<string, unknown>} */
  const params = {};
  for (const [k, v] of Object.entries(part.params || {})) params[k] = value(l, v);
  return tIn(l, part.key, params);
}

/**
 * A history entry in words: its parts one after another; an action entered
 * for a seat without a phone says so after the seat's name where the line
 * starts with it ("민준 (유나 입력): …"), else before the line; a sealed
 * choice taken back by an undo ends the line once it is no secret, a value
 * like a part's (a camel's colour, a vote: the game's words, not the server's).
 * @param {HistoryEntry} entry
 * @param {Record<string, string>} [names] the page's `names`: seat id → name
 * @param {Lang} [l]
 */
export function lineText(entry, names = {}, l = getLang()) {
  let text = (entry.parts || []).map((p) => words(l, p)).join(' ');
  if (entry.entered_for) {
    const seat = names[entry.entered_for] ?? entry.entered_for;
    const mark = tIn(l, 'history.entered_by', { seat, by: names[entry.by || ''] ?? '?' });
    text = text.startsWith(seat) ? mark + text.slice(seat.length) : `${mark}: ${text}`;
  }
  if (entry.retracted !== undefined) {
    text = tIn(l, 'history.retracted', { line: text, value: value(l, entry.retracted) });
  }
  return text;
}

/**
 * A group's heading: the game's word for its rounds where it has one (Camel
 * Up's legs: `<game>.table.history_round`), and which game once the table
 * has played several.
 * @param {{game?: number, round: number}} group
 * @param {string} game the game's id (its strings' prefix)
 * @param {boolean} several
 * @param {Lang} [l]
 */
export function roundLabel(group, game, several, l = getLang()) {
  /** @param {string} name */
  const key = (name) => (game && has(`${game}.table.${name}`) ? `${game}.table.${name}` : `table.${name}`);
  const head = group.round > 0 ? tIn(l, key('history_round'), { round: group.round }) : tIn(l, key('history_setup'));
  return several ? tIn(l, 'table.history_game', { n: group.game || 1, round: head }) : head;
}
