// Entry point: the app shell (header, language switch, live regions), the
// client-side router and the service worker registration. The table screens
// load on demand: the home page ships only what it shows (their modules are
// preloaded by a table page's index.html, see server/http/assets.py).

import { LANGS, getLang, initI18n, onLangChange, setLang } from './i18n.js';
import { tidyStorage } from './kept.js';
import { api } from './net.js';
import { homeScreen } from './screens/home.js';
import { notFoundScreen } from './screens/notfound.js';
import { clearError, h } from './ui.js';
import { watchUpdates } from './update.js';

/**
 * @typedef {{
 *   name: string, title?: string|Record<string, string>,
 *   min_players: number, max_players: number,
 *   options_schema?: {properties?: Record<string, any>}, actions?: unknown,
 *   platform_actions?: string[], random_options?: string[]
 * }} GameInfo
 * @typedef {{destroy?: () => void}} Screen
 * @typedef {{
 *   navigate: (path: string, opts?: {replace?: boolean}) => void,
 *   games: () => Promise<GameInfo[]>,
 * }} App
 */

/** @type {Screen|null} */
let current = null;
/** @type {Promise<GameInfo[]>|null} */
let gamesPromise = null;

/**
 * The game list the server wrote into index.html (what GET /api/games
 * answers, fixed for the life of the deploy): no round trip before the home
 * can offer Create. Null on a page without it.
 * @returns {GameInfo[]|null}
 */
function pageGames() {
  const el = document.getElementById('games-data');
  try {
    const data = el && JSON.parse(el.textContent || '');
    return data && Array.isArray(data.games) ? data.games : null;
  } catch {
    return null;
  }
}

/** @type {App} */
const app = {
  navigate(path, opts = {}) {
    if (opts.replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
    route();
  },
  games() {
    if (!gamesPromise) {
      const inPage = pageGames();
      gamesPromise = inPage ? Promise.resolve(inPage) : api('/api/games').then((d) => (d && d.games) || []);
      gamesPromise.catch(() => { gamesPromise = null; });
    }
    return gamesPromise;
  },
};

/** Bumped by every route(): a screen that loads late knows it is too late. */
let routeSeq = 0;

/**
 * A table link's screen, from its module. A failed download says so and
 * offers a retry (never a blank page).
 * @param {HTMLElement} root
 * @param {string} tableId
 * @returns {Screen}
 */
function tableScreenLazy(root, tableId) {
  const seq = routeSeq;
  /** @type {Screen|null} */
  let screen = null;
  const load = () => import('./screens/session.js').then((m) => {
    if (seq !== routeSeq) return;
    root.replaceChildren();
    screen = m.tableRoute(root, app, tableId);
  }).catch(() => {
    if (seq !== routeSeq) return;
    const retry = h('button', { type: 'button', t: 'game.load_retry', onclick: () => { retry.setAttribute('disabled', ''); load(); } });
    root.replaceChildren(h('div', { class: 'notice', role: 'alert' }, h('p', { t: 'game.load_failed' }), retry));
  });
  load();
  return { destroy() { if (screen && screen.destroy) screen.destroy(); } };
}

function route() {
  routeSeq += 1;
  clearError();
  if (current && current.destroy) current.destroy();
  current = null;
  const root = /** @type {HTMLElement} */ (document.getElementById('view'));
  root.replaceChildren();
  const path = location.pathname;
  const table = path.match(/^\/t\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (path === '/' || path === '/index.html') current = homeScreen(root, app);
  else if (table) current = tableScreenLazy(root, table[1]);
  else current = notFoundScreen(root, 'page');
  window.scrollTo(0, 0);
}

function langSwitch() {
  const group = h('div', { class: 'lang-switch', role: 'group', label: 'lang.label' });
  const names = { ko: '한국어', en: 'English' };
  const buttons = LANGS.map((l) => h('button', {
    type: 'button', lang: l, 'aria-pressed': String(l === getLang()), onclick: () => setLang(l),
  }, names[l]));
  group.append(...buttons);
  onLangChange((l) => {
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.lang === l));
  });
  return group;
}

function shell() {
  const header = /** @type {HTMLElement} */ (document.getElementById('topbar'));
  header.replaceChildren(
    h('a', { href: '/', class: 'brand', 'data-link': true, label: 'nav.home' }, h('span', { 'aria-hidden': 'true', class: 'brand-mark' }), 'Tablemate'),
    langSwitch(),
  );
  // In-app links change screens without a page load.
  document.addEventListener('click', (ev) => {
    const a = /** @type {HTMLElement} */ (ev.target).closest && /** @type {HTMLElement} */ (ev.target).closest('a[data-link]');
    if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey) return;
    const url = new URL(/** @type {HTMLAnchorElement} */ (a).href);
    if (url.origin !== location.origin) return;
    ev.preventDefault();
    app.navigate(url.pathname + url.search + url.hash);
  });
  window.addEventListener('popstate', route);
}

async function main() {
  // Every screen wants the game list: ask now, not after the strings.
  app.games().catch(() => { /* the screen that needs it retries */ });
  await initI18n();
  shell();
  route();
  watchUpdates();
  // Old tables' keys out of localStorage (kept.js), once the page has settled.
  window.setTimeout(() => tidyStorage(), 5000);
}

main();
