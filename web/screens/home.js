// Home: open a new table, or find one by its 6-character code.

import { getLang, has, onLangChange, t } from '../i18n.js';
import { whenBack } from '../connection.js';
import { api } from '../net.js';
import { lastName, rememberName, setToken } from '../tokens.js';
import { clearError, gameTitle, h, showError, typedName } from '../ui.js';
import { optionValueText } from './options.js';

/**
 * @typedef {import('../app.js').App} App
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
 * @param {unknown} a @param {unknown} b
 */
function sameValue(a, b) {
  /** @param {unknown} v @returns {string} */
  const canon = (v) => (Array.isArray(v) ? `[${v.map(canon).join(',')}]`
    : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${k}:${canon(/** @type {any} */ (v)[k])}`).join(',')}}`
      : JSON.stringify(v));
  return canon(a) === canon(b);
}

/**
 * One form field per option: boolean, enum, integer, a word-or-number choice, a
 * number per player count, names per language; lists keep their documented
 * default. Only values the host changed are sent.
 * @param {GameInfo} game
 * @returns {{el: HTMLElement, values: () => Record<string, unknown>, relabel: () => void}}
 */
function optionsForm(game) {
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
        if (sameValue(v, f.def)) continue;
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

/**
 * @param {HTMLElement} root
 * @param {App} app
 */
export function homeScreen(root, app) {
  /** @type {GameInfo[]} */
  let games = [];
  /** @type {ReturnType<typeof optionsForm>|null} */
  let opts = null;

  const gameSelect = /** @type {HTMLSelectElement} */ (h('select', { id: 'home-game', name: 'game', disabled: true, 'aria-describedby': 'home-range' }));
  const range = h('p', { class: 'hint', id: 'home-range' });
  const optionsBox = h('div');
  const optionsDetails = h('details', { class: 'options', hidden: true }, h('summary', { t: 'home.options' }), optionsBox);
  const nameInput = /** @type {HTMLInputElement} */ (h('input', {
    id: 'home-name', name: 'name', autocomplete: 'nickname', maxlength: 24, required: true, enterkeyhint: 'go',
  }));
  nameInput.value = lastName();
  const createBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'primary', t: 'home.create', disabled: true }));
  const noGames = h('p', { class: 'notice', t: 'home.no_games', hidden: true });

  const selected = () => games[Number(gameSelect.value)];

  const showGame = () => {
    const g = selected();
    if (!g) return;
    range.textContent = t('home.players_range', { min: g.min_players, max: g.max_players });
    opts = optionsForm(g);
    optionsBox.replaceChildren(opts.el);
    optionsDetails.hidden = opts.el.childElementCount === 0;
  };

  const relabel = () => {
    [...gameSelect.options].forEach((o, i) => { o.textContent = gameTitle(games[i], getLang(), games[i].name); });
    const g = selected();
    if (g) range.textContent = t('home.players_range', { min: g.min_players, max: g.max_players });
    if (opts) opts.relabel();
  };

  gameSelect.addEventListener('change', showGame);

  const createForm = h('form', { class: 'stack', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'home-game', t: 'home.game' }), gameSelect, range),
    optionsDetails,
    h('div', { class: 'field' }, h('label', { for: 'home-name', t: 'home.your_name' }), nameInput),
    noGames,
    createBtn,
  );
  createForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const g = selected();
    if (!g) return;
    const name = typedName(nameInput);
    if (!name) return;
    createBtn.disabled = true;
    try {
      const res = await api('/api/tables', { method: 'POST', body: { game: g.name, name, options: opts ? opts.values() : {} } });
      rememberName(name);
      setToken(res.table, res.player.token);
      app.navigate(`/t/${res.table}`);
    } catch (e) {
      showError(/** @type {any} */ (e), g.name);
      createBtn.disabled = false;
    }
  });

  const codeInput = /** @type {HTMLInputElement} */ (h('input', {
    id: 'home-code', name: 'code', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
    maxlength: 8, enterkeyhint: 'go', 'aria-describedby': 'home-code-hint', class: 'code-input',
  }));
  const joinBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', t: 'home.join' }));
  const joinForm = h('form', { class: 'stack', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'home-code', t: 'home.code' }), codeInput,
      h('p', { class: 'hint', id: 'home-code-hint', t: 'home.code_hint' })),
    joinBtn,
    h('p', { class: 'hint', t: 'home.or_scan' }),
  );
  codeInput.addEventListener('input', () => {
    const clean = codeInput.value.toUpperCase().replace(/[^A-Z0-9]/g, '');
    if (clean !== codeInput.value) codeInput.value = clean;
  });
  joinForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const code = codeInput.value.toUpperCase().replace(/[^A-Z0-9]/g, '');
    if (code.length !== 6) {
      showError({ code: 'bad_code', message: t('home.bad_code') });
      codeInput.focus();
      return;
    }
    joinBtn.disabled = true;
    try {
      const res = await api(`/api/codes/${encodeURIComponent(code)}`);
      app.navigate(`/t/${res.table}`);
    } catch (e) {
      showError(/** @type {any} */ (e));
      joinBtn.disabled = false;
    }
  });

  root.append(
    h('section', { class: 'card', 'aria-labelledby': 'home-new' }, h('h1', { id: 'home-new', t: 'home.new_title' }), createForm),
    h('section', { class: 'card', 'aria-labelledby': 'home-join' }, h('h2', { id: 'home-join', t: 'home.join_title' }), joinForm),
  );

  // The game list is what /api/games answers (titles, players, option
  // schemas; labels are in web/i18n), so the home never loads a game module.
  // The server writes it into the page; without it the page asks and keeps
  // trying: on the browser's "online" and on a backoff timer, since a phone
  // may be "online" on a network that is not.
  let alive = true;
  let loaded = false;
  // A page from the worker has its list offline too, but no table is made
  // without the server: Create waits until the phone is back.
  /** @type {(() => void)|null} */
  let stopWaiting = null;
  const waitForNetwork = () => {
    if (!alive || stopWaiting || navigator.onLine !== false) return;
    createBtn.disabled = true;
    showError({ code: 'network', message: 'The server could not be reached.' });
    stopWaiting = whenBack(() => {
      stopWaiting = null;
      if (!alive) return;
      clearError();
      createBtn.disabled = games.length === 0;
    });
  };
  let failed = false;
  let retryTimer = 0;
  let retryDelay = 2000;
  const loadGames = () => {
    clearTimeout(retryTimer);
    app.games().then((list) => {
      if (!alive || loaded) return;
      loaded = true;
      if (failed) clearError();
      games = list;
      gameSelect.replaceChildren(...games.map((g, i) => h('option', { value: String(i), text: gameTitle(g, getLang(), g.name) })));
      gameSelect.disabled = games.length === 0;
      createBtn.disabled = games.length === 0;
      noGames.hidden = games.length > 0;
      showGame();
      waitForNetwork();
    }).catch((e) => {
      if (!alive || loaded) return;
      // Said once (and it buzzes): the retries after it are quiet; the page
      // also comes back by itself as soon as the server answers again.
      if (!failed) whenBack(() => { if (alive && !loaded) loadGames(); });
      if (!failed) showError(e);
      failed = true;
      retryTimer = window.setTimeout(loadGames, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 30_000);
    });
  };
  const onOnline = () => { if (!loaded) { retryDelay = 2000; loadGames(); } };
  const onOffline = () => { if (loaded) waitForNetwork(); };
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', onOffline);
  loadGames();

  const offLang = onLangChange(relabel);
  return {
    destroy() {
      alive = false;
      clearTimeout(retryTimer);
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
      if (stopWaiting) stopWaiting();
      offLang();
    },
  };
}
