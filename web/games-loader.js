// Loads games/<name>.js on demand and merges the module's strings under
// "<name>.". A game the app ships is never shown on the generic key=value
// screen: a failed download is retried, then the game area says so and offers
// a retry. Only a game the app has no module for gets games/generic.js.

import { loadCss } from './games/shared.js';
import { addStrings } from './i18n.js';
import { h } from './ui.js';

/**
 * @typedef {import('./net.js').Snapshot} Snapshot
 * @typedef {{
 *   t: (key: string, params?: Record<string, unknown>) => string,
 *   readonly lang: 'ko'|'en',
 *   me: string|null,
 *   game: string,
 *   name: (playerId: string) => string,
 *   act: (action: {type: string, [field: string]: unknown}, opts?: {as?: string, quiet?: boolean}) => Promise<{version: number, events: unknown[]}>,
 *   vibrate: (pattern: number|number[]) => void,
 *   gameLegal: (snapshot: Snapshot) => Array<{type: string, [field: string]: unknown}>,
 *   title: () => string,
 *   onLangChange: (cb: (lang: 'ko'|'en') => void) => () => void,
 * }} GameContext
 * @typedef {{update: (snapshot: Snapshot) => void, destroy: () => void}} GameInstance
 * @typedef {{
 *   strings?: {ko?: Record<string, string>, en?: Record<string, string>},
 *   mount: (el: HTMLElement, ctx: GameContext) => GameInstance,
 *   yourTurn?: (snapshot: Snapshot) => boolean,
 *   moment?: (snapshot: Snapshot, ctx: GameContext) => Moment|null,
 *   scorePad?: (result: import('./screens/results.js').GameResult, t: (key: string, params?: Record<string, unknown>) => string) => import('./screens/results.js').ScorePad,
 *   isUnavailable?: boolean,
 * }} GameModule
 * @typedef {{key: string, title: string, lines: Array<{player: string, gain: number, why: string[]}>, speaker?: string|null}} Moment
 *   the latest scoring (a leg's, a round's) while it is the news: every seat's
 *   gain and its reasons, in words, from the figures of the server's view
 *   (screens/moment.js shows it, once per `key`); `speaker`, the seat whose
 *   phone says it (the host's where none is named)
 */

/** @type {Map<string, Promise<GameModule>>} */
const cache = new Map();
/** Waits before the 2nd and 3rd try: a phone on flaky Wi-Fi often gets the file a moment later. */
export const RETRY_DELAYS_MS = [400, 1500];

/**
 * Whether the app ships this file: the server's import map names every app
 * file. Null when there is no map (the page was not served by it).
 * @param {string} path
 * @returns {boolean|null}
 */
function shipped(path) {
  const map = document.querySelector('script[type="importmap"]');
  if (!map) return null;
  try {
    return path in (JSON.parse(map.textContent || '{}').imports || {});
  } catch {
    return null;
  }
}

/**
 * @param {string} name
 * @returns {Promise<any>}
 */
async function importGame(name) {
  const url = `./games/${name}.js`;
  // The file the import map sends it to (this deploy's versioned module, or
  // its bundle): a retry must load that same file, so that it shares the
  // modules already running (one i18n, one net) instead of a second copy.
  const mapped = typeof import.meta.resolve === 'function' ? import.meta.resolve(url) : url;
  for (let attempt = 0; ; attempt += 1) {
    try {
      // A browser may remember a failed import for its URL: a retry asks for a
      // URL of its own (the server answers it with the same file).
      return await import(attempt === 0 ? url : `${mapped}${mapped.includes('?') ? '&' : '?'}retry=${Date.now()}`);
    } catch (e) {
      if (attempt >= RETRY_DELAYS_MS.length) throw e;
      await new Promise((resolve) => { setTimeout(resolve, RETRY_DELAYS_MS[attempt]); });
    }
  }
}

/**
 * Stands in for a game whose module could not be downloaded: says so, and
 * mounts the real module in its place once a retry gets it.
 * @param {string} name
 * @returns {GameModule}
 */
function unavailable(name) {
  return {
    mount(el, ctx) {
      /** @type {GameInstance|null} */
      let inner = null;
      /** @type {Snapshot|null} */
      let last = null;
      let alive = true;
      const retry = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', t: 'game.load_retry' }));
      const box = h('div', { class: 'notice game-unavailable', role: 'alert', dataset: { gameUnavailable: name } },
        h('p', { t: 'game.load_failed' }), retry);
      el.replaceChildren(box);
      retry.addEventListener('click', async () => {
        retry.disabled = true;
        cache.delete(name);
        const mod = await loadGame(name);
        if (!alive) return;
        if (mod.isUnavailable) {
          retry.disabled = false;
          return;
        }
        el.replaceChildren();
        inner = mod.mount(el, ctx);
        if (last) inner.update(last);
      });
      return {
        update(snapshot) {
          last = snapshot;
          if (inner) inner.update(snapshot);
        },
        destroy() {
          alive = false;
          if (inner) inner.destroy();
        },
      };
    },
    isUnavailable: true,
  };
}

/**
 * @param {string} name
 * @returns {Promise<GameModule>}
 */
export function loadGame(name) {
  let p = cache.get(name);
  if (!p) {
    const safe = /^[a-z][a-z0-9_]{0,40}$/.test(name);
    const known = safe ? shipped(`/games/${name}.js`) : false;
    // The stylesheet, which the game's screen waits for, comes in while the
    // module downloads and runs, not after.
    if (known && shipped(`/games/${name}.css`)) loadCss(name);
    /** @type {Promise<any>} */
    let tryGame;
    if (!safe || known === false) tryGame = import('./games/generic.js');
    else if (known) tryGame = importGame(name).catch(() => ({ default: unavailable(name) }));
    // No import map: the old way (a missing module means the generic screen).
    else tryGame = importGame(name).catch(() => import('./games/generic.js'));
    p = tryGame.then((m) => {
      const mod = /** @type {GameModule} */ (m.default);
      if (mod.strings) addStrings(name, mod.strings);
      return mod;
    });
    if (known) p.then((mod) => { if (mod.isUnavailable) cache.delete(name); });
    cache.set(name, p);
  }
  return p;
}
