// What a phone keeps of a table's fair dice across reloads (localStorage, one
// key per table): every commitment and seal hash it was shown (its chain and
// links: fair-chain.js), so the check of the next proof holds the server to them even after
// the page was closed (docs/fairness.md, "On the phone").

/** @typedef {import('../fairness.js').Line} Line */

/**
 * The commitments and seal hashes this phone was shown at table ``id``, by
 * label, as a Map that writes itself through to localStorage.
 * @param {string} id
 * @returns {Map<string, string>}
 */
export function shownHashes(id) {
  const key = `tablemate.shown.${id}`;
  /** @type {Map<string, string>} */
  let shown;
  try { shown = new Map(Object.entries(JSON.parse(localStorage.getItem(key) || '{}') || {})); } catch { shown = new Map(); }
  const set = shown.set.bind(shown);
  shown.set = (label, hash) => {
    set(label, hash);
    try {
      // What another tab of this table kept since this page read it stays (first seen wins).
      const now = JSON.parse(localStorage.getItem(key) || '{}') || {};
      for (const [l, h] of Object.entries(now)) if (!shown.has(l) && typeof h === 'string') set(l, h);
      localStorage.setItem(key, JSON.stringify(Object.fromEntries(shown)));
    } catch { /* this page only */ }
    return shown;
  };
  return shown;
}
