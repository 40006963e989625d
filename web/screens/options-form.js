// The home's form of a game's rule options, built from the option schema the
// server publishes (GET /api/games): one field per option the host may set, in
// the screen's language, sending only what the host changed. How a value is
// worded is options.js's, shared with the lobby's summary.

import { getLang, has, t } from '../i18n.js';
import { h } from '../ui.js';
import { optionValueText, sameOption } from './options.js';

/**
 * @typedef {import('../app.js').GameInfo} GameInfo
 */

/**
 * "crazyLoneCrossingEndsGame" / "first_seat" → "Crazy lone crossing ends game" / "First seat",
 * for options web/i18n does not label (a game added on the server only).
 * @param {string} key
 */
function humanize(key) {
  const words = key.replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * One form field per option: boolean, enum, integer, a word-or-number choice, a
 * number per player count, names per language; lists keep their documented
 * default. Only values the host changed are sent.
 * @param {GameInfo} game
 * @returns {{el: HTMLElement, values: () => Record<string, unknown>, relabel: () => void}}
 */
export function optionsForm(game) {
  const props = (game.options_schema && game.options_schema.properties) || {};
  /** @type {Array<{key: string, def: any, read: () => unknown, relabel: () => void}>} */
  const fields = [];
  const box = h('div', { class: 'options-fields' });
  const label = (/** @type {string} */ key, /** @type {any} */ prop) => {
    const k = `${game.name}.option.${key}`;
    return has(k) ? t(k) : (prop.title || humanize(key));
  };
  // The module's help text, else the schema's description (English).
  const helpText = (/** @type {string} */ key, /** @type {any} */ prop) => {
    const k = `${game.name}.option.${key}.help`;
    return has(k) ? t(k) : (prop.description || '');
  };
  // Always made (maybe empty) so a language switch can fill it.
  const help = (/** @type {string} */ key, /** @type {any} */ prop, /** @type {string} */ id) => {
    const text = helpText(key, prop);
    const p = h('p', { class: 'hint', id: `${id}-help`, text });
    p.hidden = !text;
    return p;
  };
  const rehelp = (/** @type {HTMLElement} */ hint, /** @type {string} */ key, /** @type {any} */ prop) => {
    hint.textContent = helpText(key, prop);
    hint.hidden = !hint.textContent;
  };
  const valueLabel = (/** @type {string} */ key, /** @type {unknown} */ value) => {
    const k = `${game.name}.option.${key}.${value}`;
    return has(k) ? t(k) : String(value);
  };
  // Tables of numbers and names after the one-line choices: they are rarely changed.
  const heavy = (/** @type {any} */ p) => Number(p.type === 'object' || (p.type === 'array' && p.items && p.items.type === 'array'));
  const ordered = Object.entries(props).sort(([, a], [, b]) => heavy(a) - heavy(b));
  const random = new Set(game.random_options || []);
  for (const [key, prop] of ordered) {
    // No default, or a random outcome (a fixed board): the server draws it and
    // refuses it from clients.
    if (!('default' in prop) || random.has(key)) continue;
    const id = `opt-${game.name}-${key}`;
    if (prop.type === 'boolean') {
      const input = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id }));
      input.checked = Boolean(prop.default);
      const lab = h('label', { for: id, text: label(key, prop) });
      const hint = help(key, prop, id);
      input.setAttribute('aria-describedby', hint.id);
      box.append(h('div', { class: 'field' }, h('div', { class: 'check' }, input, lab), hint));
      fields.push({ key, def: prop.default, read: () => input.checked, relabel: () => { lab.textContent = label(key, prop); rehelp(hint, key, prop); } });
    } else if (Array.isArray(prop.enum) || (Array.isArray(prop.oneOf) && prop.oneOf.every((/** @type {any} */ o) => 'const' in o || o.type === 'integer'))) {
      /** @type {unknown[]} */
      const choices = [];
      /** @type {(v: unknown) => string} */
      let optText = (v) => valueLabel(key, v);
      if (Array.isArray(prop.enum)) choices.push(...prop.enum);
      else {
        // A word or a number ("the last round" or round 1–10): one select of both.
        for (const o of prop.oneOf) {
          if ('const' in o) choices.push(o.const);
          else for (let n = o.minimum ?? 1; n <= (o.maximum ?? 10); n++) choices.push(n);
        }
        optText = (v) => (typeof v === 'number' ? optionValueText(game.name, key, v) : valueLabel(key, v));
      }
      const select = /** @type {HTMLSelectElement} */ (h('select', { id }));
      choices.forEach((v, i) => {
        const o = h('option', { value: String(i), text: optText(v) });
        if (v === prop.default) /** @type {HTMLOptionElement} */ (o).selected = true;
        select.append(o);
      });
      const lab = h('label', { for: id, text: label(key, prop) });
      const hint = help(key, prop, id);
      select.setAttribute('aria-describedby', hint.id);
      box.append(h('div', { class: 'field' }, lab, select, hint));
      fields.push({
        key, def: prop.default, read: () => choices[Number(select.value)],
        relabel: () => {
          lab.textContent = label(key, prop);
          rehelp(hint, key, prop);
          [...select.options].forEach((o, i) => { o.textContent = optText(choices[i]); });
        },
      });
    } else if (prop.type === 'object' && prop.properties && Object.keys(prop.properties).every((k) => /^\d+$/.test(k))
      && Object.values(prop.properties).every((/** @type {any} */ q) => q.type === 'integer')) {
      // A number per player count (3 players: 4, 4 players: 3, …): one small input each.
      const counts = Object.keys(prop.properties);
      const legend = h('legend', { text: label(key, prop) });
      const hint = help(key, prop, id);
      /** @type {Array<{n: string, input: HTMLInputElement, lab: HTMLElement}>} */
      const cells = counts.map((n) => {
        const q = prop.properties[n];
        const input = /** @type {HTMLInputElement} */ (h('input', {
          type: 'number', id: `${id}-${n}`, inputmode: 'numeric', min: q.minimum, max: q.maximum, step: 1,
        }));
        input.value = String((prop.default || {})[n] ?? '');
        const lab = h('label', { for: `${id}-${n}`, text: t('options.players_n', { n: Number(n) }) });
        return { n, input, lab };
      });
      box.append(h('fieldset', { class: 'field per-players', 'aria-describedby': hint.id }, legend,
        h('div', { class: 'per-players-grid' }, ...cells.map((c) => h('div', { class: 'field' }, c.lab, c.input))), hint));
      fields.push({
        key, def: prop.default,
        read: () => Object.fromEntries(cells.map((c) => [c.n, c.input.value === '' ? (prop.default || {})[c.n] : Number(c.input.value)])),
        relabel: () => {
          legend.textContent = label(key, prop);
          rehelp(hint, key, prop);
          for (const c of cells) c.lab.textContent = t('options.players_n', { n: Number(c.n) });
        },
      });
    } else if (prop.type === 'object' && prop.properties && Object.values(prop.properties).every(
      (/** @type {any} */ q) => q.type === 'object' && q.properties && q.properties.ko && q.properties.en)) {
      // Names per language (King Up!'s characters): the names in the host's language;
      // an empty field keeps the default (the letter).
      const names = Object.keys(prop.properties);
      const legend = h('legend', { text: label(key, prop) });
      const hint = help(key, prop, id);
      /** @type {Array<{k: string, input: HTMLInputElement}>} */
      const cells = names.map((k) => {
        const max = prop.properties[k].properties.ko.maxLength || 24;
        return { k, input: /** @type {HTMLInputElement} */ (h('input', { id: `${id}-${k}`, maxlength: max, autocomplete: 'off' })) };
      });
      box.append(h('fieldset', { class: 'field names-grid', 'aria-describedby': hint.id }, legend,
        h('div', { class: 'per-players-grid' }, ...cells.map((c) => h('div', { class: 'field' }, h('label', { for: `${id}-${c.k}`, text: c.k }), c.input))), hint));
      fields.push({
        key, def: prop.default,
        read: () => {
          const lang = getLang();
          return Object.fromEntries(cells.filter((c) => c.input.value.trim()).map((c) => [c.k, { [lang]: c.input.value.trim() }]));
        },
        relabel: () => { legend.textContent = label(key, prop); rehelp(hint, key, prop); },
      });
    } else if (prop.type === 'array' && prop.items && Array.isArray(prop.items.enum) && prop.uniqueItems) {
      // Some of a set (Camel Up's racing colours, 5 of 7): one checkbox each.
      const legend = h('legend', { text: label(key, prop) });
      const hint = help(key, prop, id);
      const pick = h('p', { class: 'hint', id: `${id}-pick` });
      const want = prop.minItems === prop.maxItems ? prop.minItems : null;
      const pickText = () => { pick.textContent = want ? t('options.pick_n', { n: want }) : ''; pick.hidden = !want; };
      pickText();
      /** @type {Array<{v: unknown, input: HTMLInputElement, lab: HTMLElement}>} */
      const boxes = prop.items.enum.map((/** @type {unknown} */ v, /** @type {number} */ i) => {
        const input = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: `${id}-${i}`, 'aria-describedby': `${id}-pick` }));
        input.checked = (prop.default || []).includes(v);
        return { v, input, lab: h('label', { for: `${id}-${i}`, text: valueLabel(key, v) }) };
      });
      box.append(h('fieldset', { class: 'field', 'aria-describedby': hint.id }, legend, pick,
        h('div', { class: 'choice-grid' }, ...boxes.map((b) => h('div', { class: 'check' }, b.input, b.lab))), hint));
      fields.push({
        key, def: prop.default,
        // In the default's order first, so an unchanged set is not sent.
        read: () => {
          const on = boxes.filter((b) => b.input.checked).map((b) => b.v);
          return [...(prop.default || []).filter((/** @type {unknown} */ v) => on.includes(v)), ...on.filter((v) => !(prop.default || []).includes(v))];
        },
        relabel: () => {
          legend.textContent = label(key, prop);
          rehelp(hint, key, prop);
          pickText();
          for (const b of boxes) b.lab.textContent = valueLabel(key, b.v);
        },
      });
    } else if (prop.type === 'array' && prop.items && prop.items.type === 'array' && prop.items.items
      && prop.items.items.type === 'integer' && prop.items.minItems === prop.items.maxItems) {
      fields.push(tupleList(game, key, prop, id, box, label, help, rehelp));
    } else if (prop.type === 'integer') {
      const input = /** @type {HTMLInputElement} */ (h('input', {
        type: 'number', id, inputmode: 'numeric', min: prop.minimum, max: prop.maximum, step: 1,
      }));
      input.value = prop.default === undefined ? '' : String(prop.default);
      const lab = h('label', { for: id, text: label(key, prop) });
      const hint = help(key, prop, id);
      input.setAttribute('aria-describedby', hint.id);
      box.append(h('div', { class: 'field' }, lab, input, hint));
      fields.push({
        key, def: prop.default, read: () => (input.value === '' ? prop.default : Number(input.value)),
        relabel: () => { lab.textContent = label(key, prop); rehelp(hint, key, prop); },
      });
    }
  }
  return {
    el: box,
    values() {
      /** @type {Record<string, unknown>} */
      const out = {};
      for (const f of fields) {
        const v = f.read();
        // Objects by value: only what the host changed is sent.
        if (sameOption(v, f.def)) continue;
        out[f.key] = v;
      }
      return out;
    },
    relabel() { for (const f of fields) f.relabel(); },
  };
}

/**
 * A list of number tuples (Count Up's bonus table, restriction cards, danger
 * zones): a row of small number inputs per item; a list of varying length gets
 * an add button and a remove button per row. A row left incomplete is dropped.
 * @param {GameInfo} game @param {string} key @param {any} prop @param {string} id
 * @param {HTMLElement} box
 * @param {(key: string, prop: any) => string} label
 * @param {(key: string, prop: any, id: string) => HTMLElement} help
 * @param {(hint: HTMLElement, key: string, prop: any) => void} rehelp
 * @returns {{key: string, def: any, read: () => unknown, relabel: () => void}}
 */
function tupleList(game, key, prop, id, box, label, help, rehelp) {
  const width = prop.items.minItems;
  const cell = prop.items.items;
  const fixed = prop.minItems === prop.maxItems;
  const max = prop.maxItems ?? 30;
  const legend = h('legend', { text: label(key, prop) });
  const hint = help(key, prop, id);
  const list = h('ol', { class: 'tuple-list' });
  const rowName = (/** @type {number} */ n) => {
    const k = `${game.name}.option.${key}.row`;
    return has(k) ? t(k, { n }) : t('options.item_n', { n });
  };
  /** @type {Array<{el: HTMLElement, name: HTMLElement, inputs: HTMLInputElement[], remove: HTMLElement|null}>} */
  let rows = [];
  const renumber = () => rows.forEach((r, i) => {
    r.name.textContent = rowName(i + 1);
    r.inputs.forEach((input, j) => input.setAttribute('aria-label', `${rowName(i + 1)} · ${j + 1}`));
    if (r.remove) r.remove.setAttribute('aria-label', t('options.remove_n', { n: i + 1 }));
  });
  const addRow = (/** @type {number[]} */ values) => {
    const inputs = Array.from({ length: width }, (_, j) => {
      const input = /** @type {HTMLInputElement} */ (h('input', { type: 'number', inputmode: 'numeric', min: cell.minimum, max: cell.maximum, step: 1 }));
      input.value = values[j] === undefined ? '' : String(values[j]);
      return input;
    });
    const name = h('span', { class: 'tuple-name' });
    /** @type {{el: HTMLElement, name: HTMLElement, inputs: HTMLInputElement[], remove: HTMLElement|null}} */
    const row = { el: h('li'), name, inputs, remove: null };
    if (!fixed) {
      row.remove = h('button', { type: 'button', class: 'tuple-remove', text: '×', onclick: () => {
        if (rows.length <= (prop.minItems ?? 1)) return;
        rows = rows.filter((r) => r !== row);
        row.el.remove();
        renumber();
      } });
    }
    row.el.append(name, h('span', { class: 'tuple-row' }, ...inputs), ...(row.remove ? [row.remove] : []));
    rows.push(row);
    list.append(row.el);
  };
  for (const values of prop.default || []) addRow(values);
  renumber();
  const add = fixed ? null : h('button', { type: 'button', class: 'tuple-add', t: 'options.add_item', onclick: () => {
    if (rows.length >= max) return;
    addRow([]);
    renumber();
    rows[rows.length - 1].inputs[0].focus();
  } });
  box.append(h('fieldset', { class: 'field tuples', 'aria-describedby': hint.id }, legend, list, ...(add ? [add] : []), hint));
  return {
    key, def: prop.default,
    read: () => {
      const full = rows.map((r) => r.inputs.map((input) => input.value)).filter((v) => v.every((x) => x !== ''));
      return full.length ? full.map((v) => v.map(Number)) : prop.default;
    },
    relabel: () => {
      legend.textContent = label(key, prop);
      rehelp(hint, key, prop);
      renumber();
      if (add) add.textContent = t('options.add_item');
    },
  };
}
