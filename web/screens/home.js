// Home: open a new table, or find one by its 6-character code.

import { getLang, onLangChange, t } from '../i18n.js';
import { whenBack } from '../connection.js';
import { api } from '../net.js';
import { lastName, rememberName, setToken } from '../tokens.js';
import { clearError, gameTitle, h, showError, typedName } from '../ui.js';
import { optionsForm } from './options-form.js';

/**
 * @typedef {import('../app.js').App} App
 * @typedef {import('../app.js').GameInfo} GameInfo
 */

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
