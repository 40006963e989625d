// DOM helpers shared by the screens. Text always goes in through textContent
// or attributes, never through innerHTML, so a player's name is only ever text.

import { errorText, t, translateElement } from './i18n.js';

/** @typedef {Node|string|number|null|undefined|false} Child */

/**
 * Builds an element.
 * Special props: `class`, `text` (textContent), `t` (i18n key for the text),
 * `label` (i18n key for aria-label), `placeholder` and `alt` (i18n keys), `tp` (params for
 * those keys), `on<event>` (listener), `dataset`. `true` sets an empty
 * attribute; `null`/`undefined`/`false` are skipped.
 * @param {string} tag
 * @param {Record<string, any>|null} [props]
 * @param {...(Child|Child[])} children
 * @returns {HTMLElement}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  let keyed = false;
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = String(v);
    else if (k === 't') { el.dataset.i18n = v; keyed = true; }
    else if (k === 'label') { el.dataset.i18nLabel = v; keyed = true; }
    else if (k === 'placeholder') { el.dataset.i18nPlaceholder = v; keyed = true; }
    else if (k === 'alt') { el.dataset.i18nAlt = v; keyed = true; }
    else if (k === 'tp') el.dataset.i18nParams = JSON.stringify(v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  if (keyed) translateElement(el);
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** @param {HTMLElement} el */
export function clear(el) {
  el.replaceChildren();
}

let toastTimer = 0;

/**
 * A short polite announcement (also read by screen readers).
 * @param {string} text
 */
export function toast(text) {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => { el.hidden = true; el.textContent = ''; }, 3500);
}

/**
 * Takes the toast away now if it still says `text` (a "Your turn" once the
 * turn has passed: it must not stand beside "Waiting for …").
 * @param {string} text
 */
export function dismissToast(text) {
  const el = document.getElementById('toast');
  if (!el || el.hidden || el.textContent !== text) return;
  clearTimeout(toastTimer);
  el.hidden = true;
  el.textContent = '';
}

let alertTimer = 0;

/**
 * The one place errors reach the user: the translated code in an alert region.
 * @param {{code?: string, message?: string}} err
 * @param {string} [game] game name, for the game's own error strings
 */
export function showError(err, game) {
  const el = document.getElementById('alert');
  if (!el) return;
  el.textContent = errorText(err, game);
  el.hidden = false;
  vibrate([60, 40, 60]);
  clearTimeout(alertTimer);
  alertTimer = window.setTimeout(() => { el.hidden = true; el.textContent = ''; }, 6000);
}

/**
 * The name typed into a name box, trimmed; when it is empty, says a name is
 * needed, puts the cursor there and gives null.
 * @param {HTMLInputElement} input
 * @returns {string|null}
 */
export function typedName(input) {
  const name = input.value.trim();
  if (name) return name;
  showError({ code: 'name_required', message: t('home.name_required') });
  input.focus();
  return null;
}

/** Hides the error region (e.g. when the screen changes). */
export function clearError() {
  const el = document.getElementById('alert');
  if (el) { el.hidden = true; el.textContent = ''; }
}

let buzzTimer = 0;

/**
 * A buzz, or where the phone cannot (iPhones have no navigator.vibrate) a
 * short flash of the screen's edge: `<html class="buzz">` for a moment.
 * @param {number|number[]} pattern
 */
export function vibrate(pattern) {
  // Browsers refuse (and log an error) a vibration before the first tap on
  // the page: then, as on iPhones, the visual cue stands in for it.
  const activation = /** @type {{hasBeenActive?: boolean}|undefined} */ (/** @type {any} */ (navigator).userActivation);
  const mayVibrate = !(activation && activation.hasBeenActive === false);
  let done = false;
  try {
    if (mayVibrate && typeof navigator.vibrate === 'function') done = navigator.vibrate(pattern) !== false;
  } catch { done = false; }
  if (done) return;
  const root = document.documentElement;
  if (root.classList.contains('buzz')) {
    // A buzz right after another: restart its animation. Only then is the
    // forced layout worth it (on a first render it cost a whole extra layout).
    root.classList.remove('buzz');
    void root.offsetWidth;
  }
  root.classList.add('buzz');
  clearTimeout(buzzTimer);
  buzzTimer = window.setTimeout(() => root.classList.remove('buzz'), 450);
}

/**
 * Copies text; falls back to a selected textarea where the async clipboard
 * API is missing (plain-http LAN addresses are not a secure context).
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* fall back below */ }
  const ta = h('textarea', { readonly: true, class: 'offscreen', 'aria-hidden': 'true' });
  /** @type {HTMLTextAreaElement} */ (ta).value = text;
  document.body.append(ta);
  /** @type {HTMLTextAreaElement} */ (ta).select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  ta.remove();
  return ok;
}

/** @type {Map<string, number>} a keyed confirm button's key → when its arming ends (performance.now()) */
const armedUntil = new Map();

/**
 * A button that asks for a second tap before doing something hard to take
 * back; the first tap swaps its label to `confirmKey` for a few seconds.
 * With a `key`, the armed state outlives a re-render: a list redrawn between
 * the two taps (a phone joining, presence changing) keeps the question asked.
 * @param {{t: string, confirm: string, tp?: Record<string, unknown>, class?: string, key?: string, onConfirm: () => void}} opts
 * @returns {HTMLButtonElement}
 */
export function confirmButton(opts) {
  let armed = false;
  let timer = 0;
  const btn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: opts.class || '', t: opts.t, tp: opts.tp }));
  const disarm = () => {
    armed = false;
    btn.dataset.i18n = opts.t;
    btn.classList.remove('armed');
    translateElement(btn);
    if (opts.key && (armedUntil.get(opts.key) ?? 0) <= performance.now() + 50) armedUntil.delete(opts.key);
  };
  const arm = (/** @type {number} */ ms) => {
    armed = true;
    btn.dataset.i18n = opts.confirm;
    btn.classList.add('armed');
    translateElement(btn);
    timer = window.setTimeout(disarm, ms);
  };
  const left = opts.key ? (armedUntil.get(opts.key) ?? 0) - performance.now() : 0;
  if (left > 0) arm(left);
  btn.addEventListener('click', () => {
    if (!armed) {
      arm(4000);
      if (opts.key) armedUntil.set(opts.key, performance.now() + 4000);
      return;
    }
    clearTimeout(timer);
    if (opts.key) armedUntil.delete(opts.key);
    disarm();
    opts.onConfirm();
  });
  return btn;
}

/**
 * The display title of a game from GET /api/games (a string or {ko, en}).
 * @param {{name: string, title?: string|Record<string, string>}|undefined} info
 * @param {string} lang
 * @param {string} fallback
 */
export function gameTitle(info, lang, fallback) {
  const title = info && info.title;
  if (!title) return fallback;
  if (typeof title === 'string') return title;
  return title[lang] || title.en || Object.values(title)[0] || fallback;
}

export { t };
