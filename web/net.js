// Talking to the server over HTTP: JSON with one error type, an action sent
// at most once (retried with its request id), a table's snapshot, a table
// socket's handshake; and the shapes the server answers with, which every
// screen names from here. Running that socket is live.js's; what the
// connection indicator says, connection.js's.

import { httpReached } from './connection.js';
import { heardClock } from './snapshot.js';

/**
 * @typedef {{code: string, message: string}} ErrorBody
 * @typedef {{id: string, name: string, host: boolean, connected?: boolean, phone?: false, paused?: true, [figure: string]: unknown}} Player
 * @typedef {{
 *   table: string, game: string, code: string|null, version: number,
 *   status: 'lobby'|'playing'|'over', host: string, host_away?: string, me: string|null,
 *   evening?: {game: number, by: string},
 *   options: Record<string, unknown>, min_players: number, max_players: number,
 *   players: Player[], view: Record<string, unknown>,
 *   legal: Array<{type: string, [field: string]: unknown}>, round?: number,
 *   join_url?: string, sealed?: boolean, pin?: boolean,
 *   proxies?: Record<string, Array<{type: string, [field: string]: unknown}>>, proxies_who?: 'host'|'all',
 *   entering?: string, paused?: 'phoneless'|'handed_back',
 *   waiting_since?: Record<string, number>, now?: number, reminder?: number,
 *   step_in?: Record<string, number>, held?: Array<{type: string, [field: string]: unknown}>,
 *   reopened?: string[], step?: {v: number, type: string, seat: string, by: string},
 *   fair?: {open: Array<{scope: string, commitment: string, seeded: string[]}>,
 *     sealed: Array<{seal: string, hash: string}>, revealed: number, pending?: unknown}
 * }} Snapshot
 * @typedef {import('./connection.js').ConnStatus} ConnStatus
 * @typedef {{version: number, events: unknown[]}} ActionResult
 */

/** An error envelope from the server, or a network failure (`code: "network"`). */
export class ApiError extends Error {
  /**
   * @param {number} status HTTP status (0 when the server was not reached)
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  /** @returns {{error: ErrorBody}} */
  get envelope() {
    return { error: { code: this.code, message: this.message } };
  }
}

/** How long a plain request may go unanswered on "lie-fi" before it counts as failed. */
const HTTP_TIMEOUT_MS = 15000;

/**
 * The response to this very GET if index.html's boot script (web/boot.js)
 * started it before the modules ran; taken once, so a later ask is fresh.
 * @param {string} path
 * @param {string|null} token
 * @returns {Promise<Response>|null}
 */
function takeEarly(path, token) {
  const w = /** @type {{tablemateEarly?: {path: string, token: string|null, response: Promise<Response>}|null}} */ (/** @type {unknown} */ (window));
  const early = w.tablemateEarly;
  if (!early || early.path !== path || early.token !== token) return null;
  w.tablemateEarly = null;
  return early.response;
}

/**
 * @param {string} path
 * @param {{method?: string, body?: unknown, token?: string|null}} [opts]
 * @returns {Promise<any>}
 */
export async function api(path, opts = {}) {
  const { method = 'GET', body, token } = opts;
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  // A request into a silent network would otherwise hang for minutes.
  const abort = typeof AbortController === 'function' ? new AbortController() : null;
  const timer = abort ? window.setTimeout(() => abort.abort(), HTTP_TIMEOUT_MS) : 0;
  try {
    res = await ((method === 'GET' && body === undefined && takeEarly(path, token || null)) || fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
      signal: abort ? abort.signal : undefined,
    }));
  } catch {
    httpReached(false);
    throw new ApiError(0, 'network', 'The server could not be reached.');
  } finally {
    clearTimeout(timer);
  }
  httpReached(true);
  let data = null;
  try { data = await res.json(); } catch { /* not JSON: handled below */ }
  if (!res.ok) {
    const err = data && data.error;
    throw new ApiError(res.status, (err && err.code) || `http_${res.status}`, (err && err.message) || res.statusText || 'Request failed');
  }
  return data;
}

/**
 * A fresh id for one intended action. getRandomValues, not randomUUID: the
 * latter is missing outside secure contexts (a plain-http LAN address).
 */
export function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * Sends one action. Network failures and 5xx are retried with the same
 * request_id, so the server applies the action at most once.
 * @param {string} table
 * @param {string} token
 * @param {{type: string, [field: string]: unknown}} action
 * @param {ActOptions} [opts]
 * @returns {Promise<{version: number, events: unknown[]}>}
 */
export async function sendAction(table, token, action, opts = {}) {
  const body = actionBody(action, opts);
  const path = `/api/tables/${encodeURIComponent(table)}/actions`;
  for (let attempt = 0; ; attempt++) {
    try {
      return await api(path, { method: 'POST', body, token });
    } catch (e) {
      const retriable = e instanceof ApiError && (e.status === 0 || e.status >= 500);
      if (!retriable || attempt >= 3) throw e;
      await sleep(300 * 2 ** attempt * (0.5 + Math.random()));
    }
  }
}

/**
 * `version`: refused unless the table is still at it; `as`: a seat without a
 * phone this action is entered for (the server checks who may); `quiet`: a
 * refusal is the caller's to handle, not shown (a phone's fair-dice seed);
 * `secret`: its payload is the player's own secret (a PIN), never written to
 * storage nor sent again by a later page.
 * @typedef {{version?: number, as?: string, quiet?: boolean, secret?: boolean}} ActOptions
 */

/**
 * The body of an action, HTTP and socket alike.
 * @param {{type: string, [field: string]: unknown}} action
 * @param {ActOptions} opts
 */
export function actionBody(action, opts) {
  return {
    action, request_id: requestId(),
    ...(opts.version === undefined ? {} : { version: opts.version }),
    ...(opts.as === undefined ? {} : { as: opts.as }),
  };
}

/**
 * A table's live socket, opening (live.js runs it). The seat token rides in
 * the handshake's subprotocols, never in the URL, which proxies and browser
 * histories keep.
 * @param {string} table @param {string|null} token
 */
export function openSocket(table, token) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return new WebSocket(`${proto}//${location.host}/api/tables/${encodeURIComponent(table)}/ws`,
    token ? ['tablemate', `tablemate.token.${token}`] : ['tablemate']);
}

/** @param {string} table @param {string|null} token @returns {Promise<Snapshot>} */
export async function fetchSnapshot(table, token) {
  const snap = await api(`/api/tables/${encodeURIComponent(table)}`, { token });
  heardClock(snap);
  return snap;
}
