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
/** Whether the dictionaries came (a string missing before is not a missing translation). */
let loaded = false;
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
    addDict(l, await res.json());
  }));
  loaded = true;
  lang = detect();
  document.documentElement.lang = lang;
}

/**
 * Adds platform strings to a language's dictionary (what initI18n loads; the
 * tests word the history from the same files without a browser).
 * @param {Lang} l
 * @param {Record<string, string>} entries
 */
export function addDict(l, entries) {
  Object.assign(dicts[l], entries);
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
  return tIn(lang, key, params);
}

/**
 * `t()` in a given language rather than the screen's (the share card carries both).
 * @param {Lang} l
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function tIn(l, key, params) {
  const own = dicts[l][key];
  if (own === undefined) missing(key, l);
  const s = own ?? dicts.en[key] ?? key;
  if (!params) return s;
  // `{name}` is the value; `{name:이/가}` the value and its Korean particle.
  return s.replace(/\{(\w+)(?::([^{}]+))?\}/g, (m, name, pair) => {
    if (!(name in params)) return m;
    const v = params[name];
    const text = typeof v === 'number' ? num(v, undefined, l) : String(v);
    return pair ? text + particle(text, pair) : text;
  });
}

/**
 * `t()` for a sentence about `count` things: the key's `.one` form when there is
 * exactly one and the language has it ("1 card", not "1 cards"). Korean needs none.
 * @param {string} key
 * @param {number} count
 * @param {Record<string, unknown>} [params]
 */
export function tn(key, count, params) {
  const one = `${key}.one`;
  return t(count === 1 && (one in dicts[lang]) ? one : key, { count, ...params });
}

/**
 * A number as the screen's language (or `l`) writes it (digit grouping, decimals).
 * @param {number} n
 * @param {Intl.NumberFormatOptions} [opts]
 * @param {Lang} [l]
 */
export function num(n, opts, l = lang) {
  // Below 1,000 an integer reads as its digits in both languages (no
  // grouping, the same minus; -0 aside): the numbers of a game screen, which
  // went through ICU one by one, ~1/3 of a Camel Up table's first render's
  // script at 4x CPU.
  if (!opts && Number.isInteger(n) && n > -1000 && n < 1000 && !Object.is(n, -0)) return String(n);
  // What n.toLocaleString(locale, opts) does, without building a new
  // formatter each time: that took ~0.3 s of a Camel Up table's first render
  // on a slow phone.
  const key = `${l} ${opts ? JSON.stringify(opts) : ''}`;
  let fmt = formats.get(key);
  if (!fmt) {
    fmt = new Intl.NumberFormat(l === 'ko' ? 'ko-KR' : 'en-US', opts);
    formats.set(key, fmt);
  }
  return fmt.format(n);
}

/** @type {Map<string, Intl.NumberFormat>} */
const formats = new Map();

// Korean readings of what a word may end in, as "has a final consonant" and
// "that consonant is ㄹ" (으로/로 treats ㄹ like a vowel). 0: none, 1: one, 2: ㄹ.
/** @type {Record<string, 0|1|2>} digit → its Sino-Korean reading (영 일 이 삼 사 오 육 칠 팔 구) */
const DIGIT_FINAL = { 0: 1, 1: 2, 2: 0, 3: 1, 4: 0, 5: 0, 6: 1, 7: 2, 8: 2, 9: 0 };
/** @type {Record<string, 0|1|2>} letter → its Korean name (에이 비 씨 … 엘 엠 엔 … 알 …) */
const LETTER_FINAL = {
  a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, g: 0, h: 0, i: 0, j: 0, k: 0, l: 2, m: 1,
  n: 1, o: 0, p: 0, q: 0, r: 2, s: 0, t: 0, u: 0, v: 0, w: 0, x: 0, y: 0, z: 0,
};

/**
 * How the end of `word` sounds in Korean: 0 no final consonant, 1 a final
 * consonant, 2 the final ㄹ; null when nothing in it can be read.
 * @param {string} word
 * @returns {0|1|2|null}
 */
function finalSound(word) {
  // Closing brackets, quotes, spaces and punctuation are not read aloud.
  const m = String(word).replace(/(\d)[,.](?=\d{3}\b)/g, '$1').match(/([0-9]+|[A-Za-z]+|[\uAC00-\uD7A3])[^0-9A-Za-z\uAC00-\uD7A3]*$/u);
  if (!m) return null;
  const tail = m[1];
  const code = tail.charCodeAt(tail.length - 1);
  if (code >= 0xAC00 && code <= 0xD7A3) {
    const jong = (code - 0xAC00) % 28;
    return jong === 0 ? 0 : jong === 8 ? 2 : 1;
  }
  if (/^[0-9]+$/.test(tail)) {
    // The reading ends on the last non-zero digit, or on the power of ten of
    // the trailing zeros: 십(ㅂ) 백(ㄱ) 천(ㄴ) 만(ㄴ), 억(ㄱ) 조(none).
    const zeros = (tail.match(/0+$/) || [''])[0].length;
    if (zeros === tail.length) return 1; // 영
    if (zeros === 0) return DIGIT_FINAL[tail[tail.length - 1]];
    if (zeros >= 12) return 0; // 조
    if (zeros >= 8) return 1; // 억
    return 1; // 십, 백, 천, 만
  }
  const w = tail.toLowerCase();
  // A single letter or an acronym is spelled out: its last letter's name.
  if (w.length === 1 || (w.length <= 3 && tail === tail.toUpperCase())) return LETTER_FINAL[w[w.length - 1]];
  // A word is read roughly as English sounds: Sam 샘, Bill 빌, Jack 잭, Kate 케이트, Max 맥스.
  if (/l$/.test(w)) return 2;
  if (/(m|n|ng)$/.test(w)) return 1;
  // A voiceless stop after one short vowel closes the syllable (Pat 팻, Nick 닉);
  // b, d, g and long vowels get a vowel of their own (Ted 테드, Pete 피트).
  if (/[^aeiou][aeiou](ck|k|p|t)$/.test(w) || /^[aeiou](ck|k|p|t)$/.test(w)) return 1;
  return 0;
}

/**
 * The Korean particle that follows `word`, chosen by its final consonant:
 * `pair` is "after a consonant/after a vowel" (은/는, 이/가, 을/를, 과/와, 으로/로,
 * 이에요/예요, 아/야). Names, numbers and Latin letters are read as Koreans say
 * them. Unreadable words keep both forms ("은(는)").
 *
 *   particle('민준', '이/가') → '이'      particle('유나', '이/가') → '가'
 *   particle('7', '은/는') → '은' (칠)    particle('5', '을/를') → '를' (오)
 *   particle('10', '이/가') → '이' (십)   particle('G', '이/가') → '가' (지)
 *   particle('Sam', '이/가') → '이'       particle('서울', '으로/로') → '로'
 *   particle('Kate', '은/는') → '는'      particle('1,000', '을/를') → '을' (천)
 * @param {string|number} word
 * @param {string} pair
 * @returns {string}
 */
export function particle(word, pair) {
  const [withFinal, withoutFinal] = pair.split('/');
  if (withoutFinal === undefined) return pair;
  const sound = finalSound(String(word));
  if (sound === null) return `${withFinal}(${withoutFinal})`;
  // 으로/로: a final ㄹ takes 로, like a vowel.
  if (sound === 2 && withFinal === '으로') return withoutFinal;
  return sound === 0 ? withoutFinal : withFinal;
}

/** @type {Set<string>} the keys already reported, as `lang key` */
const reported = new Set();

/**
 * Says, once per key and language, that a screen asked for a string its
 * language lacks (it shows English or the key instead): a defect the e2e
 * run fails on (e2e/conftest.py's `phone` reads the console), wherever a
 * screen and state put it. Before the dictionaries are loaded nothing is
 * shown, so nothing is said.
 * @param {string} key
 * @param {Lang} [l]
 */
export function missing(key, l = lang) {
  if (!loaded || reported.has(`${l} ${key}`)) return;
  reported.add(`${l} ${key}`);
  console.warn(`${MISSING} "${key}" (${l})`);
}

/** What every report of a missing string begins with (e2e/conftest.py looks for it). */
export const MISSING = 'Tablemate: no translation for';

/** @param {string} key */
export function has(key) {
  return key in dicts[lang] || key in dicts.en;
}

/** @type {Set<string>} the prefixes whose module brought strings (addStrings) */
const withStrings = new Set();

/**
 * Whether a game module brought strings of its own: a game served by the
 * generic screen has none, and shows its figures by their keys by design.
 * @param {string} prefix
 */
export function hasStrings(prefix) {
  return withStrings.has(prefix);
}

/**
 * Merges a game module's strings under "<prefix>.".
 * @param {string} prefix
 * @param {Partial<Record<Lang, Record<string, string>>>} strings
 */
export function addStrings(prefix, strings) {
  for (const l of LANGS) {
    for (const [k, v] of Object.entries((strings && strings[l]) || {})) {
      dicts[l][`${prefix}.${k}`] = v;
      withStrings.add(prefix);
    }
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
