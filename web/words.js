// A commitment said aloud: 4 words of the BIP-39 lists (words/en.json,
// words/ko.json; licence note in tablemate_verify/words/LICENSE.txt), from the
// hash's first 44 bits, 11 bits a word, as Python's tablemate_verify.words.
// A list is fetched the first time a phrase in its language is shown, never
// with the page: through the import map, the versioned URL the service worker
// has precached, so a phone offline still has it.

const WORDS = 4;
const BITS = 11;
const HASH = /^[0-9a-f]{11,}$/;

/** @type {Map<string, Promise<string[]>>} */
const lists = new Map();

/**
 * The 4 list positions of a hash.
 * @param {string} hash lowercase hex
 * @returns {number[]}
 */
export function wordIndices(hash) {
  if (!HASH.test(hash)) throw new Error('a hash is lowercase hex, at least 11 digits');
  // 44 bits: exact in a double, so plain arithmetic (bit operators stop at 32).
  const bits = parseInt(hash.slice(0, 11), 16);
  return Array.from({ length: WORDS }, (_, i) => Math.floor(bits / 2 ** (BITS * (WORDS - 1 - i))) % 2 ** BITS);
}

/**
 * @param {string} hash @param {string[]} words a 2,048-word list
 * @returns {string[]}
 */
export function phraseFrom(hash, words) {
  return wordIndices(hash).map((i) => words[i]);
}

/**
 * The word list of `lang`, fetched once.
 * @param {'ko' | 'en'} lang
 * @param {(url: string) => Promise<{ok: boolean, json: () => Promise<unknown>}>} [get] fetch (tests pass their own)
 * @returns {Promise<string[]>}
 */
export function loadWords(lang, get = fetch) {
  let list = lists.get(lang);
  if (!list) {
    const rel = `./words/${lang}.json`;
    const url = typeof import.meta.resolve === 'function' ? import.meta.resolve(rel) : new URL(rel, import.meta.url).href;
    list = get(url).then(async (res) => {
      const words = res.ok ? await res.json() : null;
      if (!Array.isArray(words) || words.length !== 2 ** BITS) throw new Error(`the ${lang} word list did not load`);
      return /** @type {string[]} */ (words);
    });
    // A failed load is not kept: the next phrase tries again.
    list.catch(() => lists.delete(lang));
    lists.set(lang, list);
  }
  return list;
}

/**
 * The 4 words of a commitment or seal hash, in `lang`.
 * @param {string} hash @param {'ko' | 'en'} lang
 */
export async function phrase(hash, lang) {
  return phraseFrom(hash, await loadWords(lang));
}
