// Korean and English strings. Every visible string goes through t(); elements
// built with a key (data-i18n*) are re-translated in place when the language
// changes, so forms keep what the user typed.

/** @typedef {'ko'|'en'} Lang */

const STORAGE_KEY = 'tablemate.lang';
/** @type {Lang[]} */
export const LANGS = ['ko', 'en'];

/** @type {Record<Lang, Record<string, string>>} */
const dicts = { ko: {}, en: {} };
/** @type {Lang} */
let lang = 'en';
/** @type {Set<(lang: Lang) => void>} */
const listeners = new Set();

/** @returns {Lang} */
function detect() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'ko' || saved === 'en') return saved;
  } catch { /* storage blocked: fall through to the browser language */ }
  const prefs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || 'en'];
  for (const p of prefs) {
    const base = String(p).toLowerCase().slice(0, 2);
    if (base === 'ko' || base === 'en') return base;
  }
  return 'en';
}

/** Loads both dictionaries and picks the language. */
export async function initI18n() {
  await Promise.all(LANGS.map(async (l) => {
    // Through the import map where there is one: the versioned URL that
    // index.html preloads and the service worker keeps.
    const rel = `./i18n/${l}.json`;
    const url = typeof import.meta.resolve === 'function' ? import.meta.resolve(rel) : new URL(rel, import.meta.url).href;
    const res = await fetch(url);
    Object.assign(dicts[l], await res.json());
  }));
  lang = detect();
  document.documentElement.lang = lang;
}

/** @returns {Lang} */
export function getLang() {
  return lang;
}

/**
 * Translates `key`, replacing `{name}` placeholders from `params`.
 * Falls back to English, then to the key itself.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function t(key, params) {
  const s = dicts[lang][key] ?? dicts.en[key] ?? key;
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** @param {string} key */
export function has(key) {
  return key in dicts[lang] || key in dicts.en;
}

/**
 * Merges a game module's strings under "<prefix>.".
 * @param {string} prefix
 * @param {Partial<Record<Lang, Record<string, string>>>} strings
 */
export function addStrings(prefix, strings) {
  for (const l of LANGS) {
    for (const [k, v] of Object.entries((strings && strings[l]) || {})) dicts[l][`${prefix}.${k}`] = v;
  }
}

/**
 * The user-facing text of an error envelope: the game's translation of the
 * code, then the platform's, then the server's (English) message.
 * @param {{code?: string, message?: string}} err
 * @param {string} [game]
 */
export function errorText(err, game) {
  const code = err && err.code;
  if (code) {
    if (game && has(`${game}.error.${code}`)) return t(`${game}.error.${code}`);
    if (has(`error.${code}`)) return t(`error.${code}`);
  }
  return (err && err.message) || t('error.generic');
}

/**
 * Re-translates every keyed element under `root`.
 * @param {ParentNode} root
 */
export function translateTree(root) {
  for (const el of root.querySelectorAll('[data-i18n],[data-i18n-label],[data-i18n-placeholder],[data-i18n-alt]')) {
    translateElement(/** @type {HTMLElement} */ (el));
  }
}

/** @param {HTMLElement} el */
export function translateElement(el) {
  const params = el.dataset.i18nParams ? JSON.parse(el.dataset.i18nParams) : undefined;
  if (el.dataset.i18n) el.textContent = t(el.dataset.i18n, params);
  if (el.dataset.i18nLabel) el.setAttribute('aria-label', t(el.dataset.i18nLabel, params));
  if (el.dataset.i18nPlaceholder) el.setAttribute('placeholder', t(el.dataset.i18nPlaceholder, params));
  if (el.dataset.i18nAlt) el.setAttribute('alt', t(el.dataset.i18nAlt, params));
}

/** @param {Lang} next */
export function setLang(next) {
  if (!LANGS.includes(next) || next === lang) return;
  lang = next;
  try { localStorage.setItem(STORAGE_KEY, next); } catch { /* not remembered, still switched */ }
  document.documentElement.lang = next;
  translateTree(document);
  for (const cb of [...listeners]) cb(next);
}

/**
 * @param {(lang: Lang) => void} cb
 * @returns {() => void} unsubscribe
 */
export function onLangChange(cb) {
  listeners.add(cb);
  return () => listeners.delete(cb);
}
