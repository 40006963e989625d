// The table's rule options in words, for the lobby's summary and the home
// form: its own module so the home page does not load the lobby to word them.

import { getLang, has, num, t } from '../i18n.js';

// Each option's label and value from the game's strings, compared with the
// documented default of the schema (GET /api/games), so a phone can say what
// differs from the printed rules. The home form words its choices the same way.
/**
 * @typedef {{key: string, label: string, value: string, help: string, changed: boolean}} OptionLine
 * @typedef {{properties?: Record<string, any>}} OptionsSchema
 */

/**
 * A value the same whatever order its object keys came in.
 * @param {unknown} v
 * @returns {string}
 */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = /** @type {Record<string, unknown>} */ (v);
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Whether two option values are the same by value (a default is compared with
 * what a form read or what the table holds).
 * @param {unknown} a @param {unknown} b
 */
export function sameOption(a, b) {
  return canonical(a) === canonical(b);
}

/**
 * The game's string for `rest` under its options, if it has one.
 * @param {string} game
 * @param {string} rest
 * @param {Record<string, unknown>} [params]
 * @returns {string|null}
 */
function gameText(game, rest, params) {
  const k = `${game}.${rest}`;
  return has(k) ? t(k, params) : null;
}

/**
 * One scalar value in words: the option's own word for it, a word of the game
 * (its colours), else the platform's yes/no, else the number as the locale writes it.
 * @param {string} game @param {string} key @param {unknown} v
 * @returns {string}
 */
function scalarText(game, key, v) {
  const own = gameText(game, `option.${key}.${v}`) ?? gameText(game, `colour.${v}`);
  if (own !== null) return own;
  if (typeof v === 'boolean') return t(v ? 'options.on' : 'options.off');
  if (typeof v === 'number') return gameText(game, `option.${key}.value`, { value: v }) ?? num(v);
  return String(v);
}

/**
 * Any option value in words: lists joined, lists of lists one item each (the
 * game may word an item: "Round {i}: {value}"), per-player-count tables as
 * "3 players: 4", names per language in the screen's language.
 * @param {string} game @param {string} key @param {unknown} v
 * @returns {string}
 */
export function optionValueText(game, key, v) {
  if (Array.isArray(v)) {
    if (v.length === 0) return gameText(game, `option.${key}.empty`) ?? t('options.none');
    if (v.every((x) => !Array.isArray(x))) return v.map((x) => scalarText(game, key, x)).join(', ');
    return v.map((x, i) => {
      const inner = Array.isArray(x) ? x.map((y) => scalarText(game, key, y)) : [scalarText(game, key, x)];
      const params = { i: i + 1, value: inner.join('·'), a: inner[0], b: inner[inner.length - 1] };
      return gameText(game, `option.${key}.item`, params) ?? params.value;
    }).join(', ');
  }
  if (v && typeof v === 'object') {
    const entries = Object.entries(/** @type {Record<string, unknown>} */ (v));
    if (entries.length === 0) return gameText(game, `option.${key}.empty`) ?? t('options.none');
    return entries.map(([k, x]) => {
      if (/^\d+$/.test(k)) return t('options.per_players', { n: Number(k), value: scalarText(game, key, x) });
      if (x && typeof x === 'object') {
        const byLang = /** @type {Record<string, string>} */ (x);
        return `${k}: ${byLang[getLang()] || byLang.en || Object.values(byLang)[0] || k}`;
      }
      return `${k}: ${scalarText(game, key, x)}`;
    }).join(' · ');
  }
  return scalarText(game, key, v);
}

/**
 * Every option the host can set, in the schema's order, in words. Options with
 * a null default are random outcomes the server fills in: not rules, left out.
 * @param {string} game
 * @param {OptionsSchema|undefined} schema
 * @param {Record<string, unknown>} options
 * @returns {OptionLine[]}
 */
export function optionLines(game, schema, options) {
  const props = (schema && schema.properties) || {};
  const keys = Object.keys(props).length ? Object.keys(props) : Object.keys(options);
  /** @type {OptionLine[]} */
  const out = [];
  for (const key of keys) {
    const prop = props[key] || {};
    if ('default' in prop && prop.default === null) continue;
    const value = key in options ? options[key] : prop.default;
    if (value === undefined || value === null) continue;
    out.push({
      key,
      label: gameText(game, `option.${key}`) ?? key,
      value: optionValueText(game, key, value),
      help: gameText(game, `option.${key}.help`) ?? '',
      changed: 'default' in prop && !sameOption(value, prop.default),
    });
  }
  return out;
}

