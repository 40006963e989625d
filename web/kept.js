// What this phone keeps of each table in localStorage: its seat token, its
// fair-dice chain (~17 KB: 257 links), the commitments it was shown, the votes
// it sealed, the moments it has seen. A site gets ~5 MB there, and nothing
// ever removed a table's keys: a regular player's phone filled up after a few
// hundred tables, and from then a new seat's token could not be kept (a reload
// lost the seat). A table lives hours (TABLEMATE_TABLE_TTL, 6 h by default, its
// code four times that), so what a table not opened on this phone for
// KEEP_DAYS keeps is of no more use: it goes, at most once a day.

/** Days a table's keys stay after this phone last opened it. */
export const KEEP_DAYS = 14;
const DAY = 24 * 3600 * 1000;
const SEEN = 'tablemate.seen';
const TIDIED = 'tablemate.tidied';
/** `tablemate.<kind>.<table>` (a table id has no dot), and a chain's top kept by its anchor. */
const PER_TABLE = /^tablemate\.(?:token|chain|shown|votes|moment|links)\.([^.]+)(?:\.[0-9a-f]+)?$/;
/** The kinds whose loss costs nothing but a new chain: what goes first when storage is full. */
const BULKY = /^tablemate\.(?:chain|links)\.([^.]+)/;

/** @returns {Record<string, number>} when this phone last opened each table (ms) */
function seenMap() {
  try {
    const m = JSON.parse(localStorage.getItem(SEEN) || '{}');
    return m && typeof m === 'object' ? m : {};
  } catch {
    return {};
  }
}

/** @returns {string[]} every key of localStorage */
function keys() {
  /** @type {string[]} */
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const k = localStorage.key(i);
      if (k !== null) out.push(k);
    }
  } catch { /* storage blocked */ }
  return out;
}

/** @param {string} k */
function remove(k) {
  try { localStorage.removeItem(k); } catch { /* nothing stored */ }
}

/**
 * This phone opened table `table` now: its keys stay another KEEP_DAYS.
 * @param {string} table @param {number} [now]
 */
export function touchTable(table, now = Date.now()) {
  const seen = seenMap();
  // Read with every change (Camel Up's odds ask for the token): written once an hour at most.
  if (seen[table] !== undefined && now - seen[table] < 3600 * 1000 && seen[table] <= now) return;
  seen[table] = now;
  try { localStorage.setItem(SEEN, JSON.stringify(seen)); } catch { /* kept another time */ }
}

/**
 * Removes the keys of tables not opened for KEEP_DAYS, once a day. A table
 * whose keys were stored before this phone kept dates counts from today.
 * @param {number} [now]
 */
export function tidyStorage(now = Date.now()) {
  let last = 0;
  try { last = Number(localStorage.getItem(TIDIED)) || 0; } catch { return; }
  if (now - last < DAY && last <= now) return;
  const seen = seenMap();
  const tables = new Set();
  for (const k of keys()) {
    const m = PER_TABLE.exec(k);
    if (!m) continue;
    const table = m[1];
    tables.add(table);
    if (seen[table] === undefined) seen[table] = now;
    else if (now - seen[table] > KEEP_DAYS * DAY) remove(k);
  }
  for (const table of Object.keys(seen)) {
    if (!tables.has(table) || now - seen[table] > KEEP_DAYS * DAY) delete seen[table];
  }
  try {
    localStorage.setItem(SEEN, JSON.stringify(seen));
    localStorage.setItem(TIDIED, String(now));
  } catch { /* tried again next time */ }
}

/**
 * Storage is full: the other tables' chains go (the bulk of what a phone
 * keeps; one is made again if that table is opened). True when any went.
 * @param {string} table the table being played, whose keys stay
 */
export function makeRoom(table) {
  let freed = false;
  for (const k of keys()) {
    const m = BULKY.exec(k);
    if (m && m[1] !== table) { remove(k); freed = true; }
  }
  return freed;
}
