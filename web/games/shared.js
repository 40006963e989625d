// Helpers every game module needs the same way.

import { h } from '../ui.js';

/** @type {Map<string, Promise<void>>} */
const cssReady = new Map();

/**
 * Loads /games/<name>.css once (the CSP allows same-origin stylesheets, not
 * inline styles). Resolves when it is in, failed, or slow (2 s), so a module
 * can wait for it and never flash unstyled.
 * @param {string} name
 * @returns {Promise<void>}
 */
export function loadCss(name) {
  let ready = cssReady.get(name);
  if (ready) return ready;
  // A table page names its game's stylesheet itself (server/http/assets.py).
  const inPage = /** @type {HTMLLinkElement|null} */ (document.querySelector(`link[rel="stylesheet"][data-game-css="${name}"]`));
  if (inPage) {
    ready = inPage.sheet ? Promise.resolve() : new Promise((resolve) => {
      inPage.addEventListener('load', () => resolve());
      inPage.addEventListener('error', () => resolve());
      window.setTimeout(resolve, 2000);
    });
    cssReady.set(name, ready);
    return ready;
  }
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  const href = `/games/${name}.css`;
  // The versioned URL from the import map (the one a table page preloads).
  link.href = typeof import.meta.resolve === 'function' ? import.meta.resolve(href) : href;
  link.dataset.gameCss = name;
  ready = new Promise((resolve) => {
    link.addEventListener('load', () => resolve());
    link.addEventListener('error', () => resolve());
    window.setTimeout(resolve, 2000);
  });
  cssReady.set(name, ready);
  document.head.append(link);
  return ready;
}

/**
 * The game's root element (`.game-<name>`) in `el`, hidden until the game's
 * stylesheet is in (see loadCss).
 * @param {HTMLElement} el
 * @param {string} name
 */
export function gameRoot(el, name) {
  const root = h('div', { class: `game-${name}`, hidden: true });
  el.append(root);
  loadCss(name).then(() => { root.hidden = false; });
  return root;
}

/**
 * What a panel gives its game module: its element, `update` (keeps the
 * snapshot through `keep`, then renders) and `relabel` (renders again).
 * @param {HTMLElement} el
 * @param {(snap: any) => void} keep
 * @param {() => void} render
 */
export function panel(el, keep, render) {
  return {
    el,
    /** @param {any} next */
    update(next) { keep(next); render(); },
    relabel: render,
  };
}

/**
 * Puts `nodes` into `parent` in order, moving or removing only what differs, so
 * an unchanged part keeps its element (and a finger on one of its buttons).
 * @param {Element} parent
 * @param {Node[]} nodes
 */
export function place(parent, nodes) {
  let cur = parent.firstChild;
  for (const n of nodes) {
    if (n === cur) { cur = cur.nextSibling; continue; }
    parent.insertBefore(n, cur);
  }
  while (cur) {
    const next = cur.nextSibling;
    cur.remove();
    cur = next;
  }
}

/**
 * A cache of screen parts by name: `part(name, deps, build)` returns the part
 * built last time while its inputs (`deps`) are unchanged. Every other
 * player's move sends a snapshot; rebuilding everything would swap the
 * buttons under a finger about to tap.
 * @returns {<T>(name: string, deps: unknown[], build: () => T) => T}
 */
export function partCache() {
  /** @type {Map<string, {key: string, value: any}>} */
  const memo = new Map();
  return (name, deps, build) => {
    const key = JSON.stringify(deps);
    const hit = memo.get(name);
    if (hit && hit.key === key) return hit.value;
    const value = build();
    memo.set(name, { key, value });
    return value;
  };
}

// Seats without a phone (issue 17). The table screen's "Entering for: <seat>"
// switch gives the game screen that seat's `legal` list and `entering` (and
// sends every action for it with `as`); `proxies` lists, on this phone's own
// screen, what is waiting for each seat it may enter for.

/**
 * The seat without a phone this screen enters for now, else null.
 * @param {any} snap
 * @returns {string|null}
 */
export function actingFor(snap) {
  const as = snap && snap.entering;
  return typeof as === 'string' ? as : null;
}

/**
 * The seats without a phone that wait for an entry this phone may make, when
 * it is not switched to one of them: `[pid, its legal list]`.
 * @param {any} snap
 * @returns {Array<[string, any[]]>}
 */
export function proxyWaiting(snap) {
  if (actingFor(snap)) return [];
  const proxies = (snap && snap.proxies) || {};
  return Object.keys(proxies).map((pid) => /** @type {[string, any[]]} */ ([pid, proxies[pid] || []]))
    .filter(([, legal]) => legal.length > 0);
}

/**
 * Marks `el` as a part of this phone's turn named `name` (screens/turn.js: the
 * turn's parts in view as it begins, the scores folded; a new name is a new
 * turn), or unmarks it (null).
 * @param {Element} el
 * @param {string|null} name
 */
export function markTurn(el, name) {
  if (name === null) el.removeAttribute('data-turn-view');
  else if (el.getAttribute('data-turn-view') !== name) el.setAttribute('data-turn-view', name);
}
