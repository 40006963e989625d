// Loads games/<name>.js on demand, falling back to games/generic.js, and
// merges the module's strings under "<name>.".

import { addStrings } from './i18n.js';

/**
 * @typedef {import('./net.js').Snapshot} Snapshot
 * @typedef {{
 *   t: (key: string, params?: Record<string, unknown>) => string,
 *   readonly lang: 'ko'|'en',
 *   me: string|null,
 *   game: string,
 *   name: (playerId: string) => string,
 *   act: (action: {type: string, [field: string]: unknown}) => Promise<{version: number, events: unknown[]}>,
 *   vibrate: (pattern: number|number[]) => void,
 *   onLangChange: (cb: (lang: 'ko'|'en') => void) => () => void,
 * }} GameContext
 * @typedef {{update: (snapshot: Snapshot) => void, destroy: () => void}} GameInstance
 * @typedef {{
 *   strings?: {ko?: Record<string, string>, en?: Record<string, string>},
 *   mount: (el: HTMLElement, ctx: GameContext) => GameInstance,
 *   yourTurn?: (snapshot: Snapshot) => boolean,
 * }} GameModule
 */

/** @type {Map<string, Promise<GameModule>>} */
const cache = new Map();

/**
 * @param {string} name
 * @returns {Promise<GameModule>}
 */
export function loadGame(name) {
  let p = cache.get(name);
  if (!p) {
    const safe = /^[a-z][a-z0-9_]{0,40}$/.test(name);
    const tryGame = safe ? import(`./games/${name}.js`) : Promise.reject(new Error('bad game name'));
    p = tryGame
      .catch(() => import('./games/generic.js'))
      .then((m) => {
        const mod = /** @type {GameModule} */ (m.default);
        if (mod.strings) addStrings(name, mod.strings);
        return mod;
      });
    cache.set(name, p);
  }
  return p;
}
