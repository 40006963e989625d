// Home: open a new table, or find one by its 6-character code.

import { loadGame } from '../games-loader.js';
import { getLang, has, onLangChange, t } from '../i18n.js';
import { api, whenBack } from '../net.js';
import { lastName, rememberName, setToken } from '../tokens.js';
import { gameTitle, h, showError } from '../ui.js';

/**
 * @typedef {import('../app.js').App} App
 * @typedef {import('../app.js').GameInfo} GameInfo
 */

/**
 * "crazyLoneCrossingEndsGame" / "first_seat" → "Crazy lone crossing ends game" / "First seat",
 * for options whose game module does not label them yet.
 * @param {string} key
 */
function humanize(key) {
  const words = key.replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * One form field per simple option (boolean, enum, integer); anything else
 * keeps its documented default. Only values the host changed are sent.
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
  // Always made (maybe empty) so a relabel can fill it once the module's strings arrive.
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
  for (const [key, prop] of Object.entries(props)) {
    // No default: a random outcome drawn by the server (refused from clients).
    if (!('default' in prop)) continue;
    const id = `opt-${game.name}-${key}`;
    if (prop.type === 'boolean') {
      const input = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id }));
      input.checked = Boolean(prop.default);
      const lab = h('label', { for: id, text: label(key, prop) });
      const hint = help(key, prop, id);
      input.setAttribute('aria-describedby', hint.id);
      box.append(h('div', { class: 'field' }, h('div', { class: 'check' }, input, lab), hint));
      fields.push({ key, def: prop.default, read: () => input.checked, relabel: () => { lab.textContent = label(key, prop); rehelp(hint, key, prop); } });
    } else if (Array.isArray(prop.enum)) {
      const select = /** @type {HTMLSelectElement} */ (h('select', { id }));
      prop.enum.forEach((/** @type {unknown} */ v, /** @type {number} */ i) => {
        const o = h('option', { value: String(i), text: valueLabel(key, v) });
        if (v === prop.default) /** @type {HTMLOptionElement} */ (o).selected = true;
        select.append(o);
      });
      const lab = h('label', { for: id, text: label(key, prop) });
      const hint = help(key, prop, id);
      select.setAttribute('aria-describedby', hint.id);
      box.append(h('div', { class: 'field' }, lab, select, hint));
      fields.push({
        key, def: prop.default, read: () => prop.enum[Number(select.value)],
        relabel: () => {
          lab.textContent = label(key, prop);
          rehelp(hint, key, prop);
          [...select.options].forEach((o, i) => { o.textContent = valueLabel(key, prop.enum[i]); });
        },
      });
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
        if (v !== f.def) out[f.key] = v;
      }
      return out;
    },
    relabel() { for (const f of fields) f.relabel(); },
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
    // The game module carries the option labels; relabel once it is here.
    const form = opts;
    loadGame(g.name).then(() => { if (opts === form) form.relabel(); }).catch(() => {});
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
    const name = nameInput.value.trim();
    if (!g) return;
    if (!name) {
      showError({ code: 'name_required', message: t('home.name_required') });
      nameInput.focus();
      return;
    }
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

  let alive = true;
  app.games().then((list) => {
    if (!alive) return;
    games = list;
    gameSelect.replaceChildren(...games.map((g, i) => h('option', { value: String(i), text: gameTitle(g, getLang(), g.name) })));
    gameSelect.disabled = games.length === 0;
    createBtn.disabled = games.length === 0;
    noGames.hidden = games.length > 0;
    showGame();
  }).catch((e) => { if (alive) { showError(e); whenBack(() => { if (alive) app.navigate(location.pathname, { replace: true }); }); } });

  const offLang = onLangChange(relabel);
  return {
    destroy() {
      alive = false;
      offLang();
    },
  };
}
