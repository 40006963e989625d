// Seat tokens, one per table, kept on this phone so reopening the table's
// link puts the player straight back in the seat.

import { makeRoom, touchTable } from './kept.js';

/** @param {string} table */
const key = (table) => `tablemate.token.${table}`;

/** @param {string} table @returns {string|null} */
export function getToken(table) {
  try {
    const token = localStorage.getItem(key(table));
    if (token) touchTable(table);
    return token;
  } catch {
    return null;
  }
}

/** @param {string} table @param {string} token */
export function setToken(table, token) {
  try {
    localStorage.setItem(key(table), token);
  } catch {
    // Storage full: the other tables' chains make room (kept.js), else (private
    // mode, storage blocked) the seat lasts this page only.
    if (makeRoom(table)) {
      try { localStorage.setItem(key(table), token); } catch { /* this page only */ }
    }
  }
  touchTable(table);
}

/** @param {string} table */
export function clearToken(table) {
  try { localStorage.removeItem(key(table)); } catch { /* nothing stored */ }
}

const NAME_KEY = 'tablemate.name';

/** The last name typed on this phone, to prefill the next form. */
export function lastName() {
  try { return localStorage.getItem(NAME_KEY) || ''; } catch { return ''; }
}

/** @param {string} name */
export function rememberName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch { /* not remembered */ }
}
