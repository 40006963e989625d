// What a phone keeps of a table's fair dice across reloads (localStorage, one
// key per table): its own seeds and every commitment and seal hash it was
// shown, so the check of the next proof holds the server to them even after
// the page was closed (docs/fairness.md, "On the phone").

/** @typedef {import('../fairness.js').Line} Line */

/**
 * This phone's own seeds for table ``id`` (localStorage, so a reload keeps
 * them): ``check`` names every scope of the proof where the seed is not there
 * as sent (missing, another value, another seat) or was accepted at another
 * version than the table answered (held back).
 * @param {string} id
 */
export function ownSeeds(id) {
  const key = `tablemate.seeds.${id}`;
  /** @type {Record<string, {seat: string, seed: string, v: number|null}>} */
  let kept = {};
  try { kept = JSON.parse(localStorage.getItem(key) || '{}') || {}; } catch { kept = {}; }
  return {
    /** @param {string} scope @param {{seat: string, seed: string, v: number|null}} entry */
    keep(scope, entry) {
      kept[scope] = entry;
      try { localStorage.setItem(key, JSON.stringify(kept)); } catch { /* this page only */ }
    },
    /**
     * @param {any[]} scopes the proof's
     * @param {number|null} version the table's version the proof is of
     * @returns {Line[]}
     */
    check(scopes, version) {
      /** @type {Line[]} */
      const out = [];
      for (const s of scopes) {
        const own = s && kept[s.label];
        if (!own) continue;
        // A proof read before the table accepted this seed cannot hold it
        // (the proof's fetch can overtake the seed's answer as a leg opens).
        if (own.v !== null && version !== null && version < own.v) continue;
        const seeds = Array.isArray(s.seeds) ? s.seeds : [];
        const found = seeds.find((/** @type {any} */ e) => e && e.seed === own.seed);
        if (!found || found.seat !== own.seat || (own.v !== null && found.v !== own.v)) {
          out.push({ status: 'mismatch', code: 'own_seed_missing', where: { scope: s.label } });
        }
      }
      return out;
    },
  };
}

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
    try { localStorage.setItem(key, JSON.stringify(Object.fromEntries(shown))); } catch { /* this page only */ }
    return shown;
  };
  return shown;
}
