// Everything that talks to the server: JSON over HTTP with one error type, and
// the live WebSocket of a table (reconnect with backoff, resync by version).

/**
 * @typedef {{code: string, message: string}} ErrorBody
 * @typedef {{id: string, name: string, host: boolean, connected?: boolean, [figure: string]: unknown}} Player
 * @typedef {{
 *   table: string, game: string, code: string|null, version: number,
 *   status: 'lobby'|'playing'|'over', host: string, me: string|null,
 *   options: Record<string, unknown>, min_players: number, max_players: number,
 *   players: Player[], view: Record<string, unknown>,
 *   legal: Array<{type: string, [field: string]: unknown}>, round?: number,
 *   join_url?: string, sealed?: boolean, pin?: boolean
 * }} Snapshot
 * @typedef {'connecting'|'open'|'reconnecting'} ConnStatus
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
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached.');
  }
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
 * @param {{version?: number}} [opts]
 * @returns {Promise<{version: number, events: unknown[]}>}
 */
export async function sendAction(table, token, action, opts = {}) {
  const body = { action, request_id: requestId(), ...(opts.version === undefined ? {} : { version: opts.version }) };
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

/** @param {string} table @param {string|null} token @returns {Promise<Snapshot>} */
export function fetchSnapshot(table, token) {
  return api(`/api/tables/${encodeURIComponent(table)}`, { token });
}

const PING_MS = 20000;
const DEAD_MS = 50000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 15000;

/**
 * The live connection of one phone to one table. Keeps only the newest
 * snapshot (by version); a gap or a missed message heals with `sync`.
 */
export class Live {
  /**
   * @param {{
   *   table: string, token: string|null,
   *   onState: (s: Snapshot) => void,
   *   onStatus: (s: ConnStatus) => void,
   *   onFatal: (e: ApiError) => void,
   *   onError: (e: ApiError) => void,
   * }} opts
   */
  constructor(opts) {
    this.opts = opts;
    this.version = -1;
    /** @type {WebSocket|null} */
    this.ws = null;
    this.attempts = 0;
    this.stopped = true;
    this.everOpened = false;
    this.retryTimer = 0;
    this.pingTimer = 0;
    this.lastSeen = 0;
    this.wake = this.wake.bind(this);
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    window.addEventListener('online', this.wake);
    document.addEventListener('visibilitychange', this.wake);
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    window.removeEventListener('online', this.wake);
    document.removeEventListener('visibilitychange', this.wake);
    this.drop();
  }

  /** Accepts a snapshot from any source if it is not older than the one we have. @param {Snapshot} snap */
  accept(snap) {
    if (!snap || typeof snap.version !== 'number' || snap.version < this.version) return;
    this.version = snap.version;
    this.opts.onState(snap);
  }

  /** Asks for the current snapshot (after an action, or when a gap is suspected). */
  async sync() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.send({ type: 'sync', version: this.version });
      return;
    }
    try {
      this.accept(await fetchSnapshot(this.opts.table, this.opts.token));
    } catch (e) {
      this.failed(/** @type {ApiError} */ (e));
    }
  }

  /** @param {unknown} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** @private */
  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const q = this.opts.token ? `?token=${encodeURIComponent(this.opts.token)}` : '';
    return `${proto}//${location.host}/api/tables/${encodeURIComponent(this.opts.table)}/ws${q}`;
  }

  /** @private */
  connect() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.opts.onStatus(this.everOpened ? 'reconnecting' : 'connecting');
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempts = 0;
      this.everOpened = true;
      this.lastSeen = Date.now();
      this.opts.onStatus('open');
      clearInterval(this.pingTimer);
      this.pingTimer = window.setInterval(() => this.ping(), PING_MS);
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      this.lastSeen = Date.now();
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.handle(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      if (this.stopped) return;
      if (ev.code === 4401) {
        this.fatal(new ApiError(401, 'bad_token', ev.reason || 'This seat token is no longer valid.'));
        return;
      }
      this.retry();
    };
  }

  /** @private @param {any} msg */
  handle(msg) {
    switch (msg && msg.type) {
      case 'state':
        this.accept(msg);
        break;
      case 'pong':
        if (typeof msg.version === 'number' && msg.version > this.version) this.send({ type: 'sync', version: this.version });
        break;
      case 'error': {
        const err = msg.error || {};
        const e = new ApiError(0, err.code || 'error', err.message || '');
        if (e.code === 'bad_token') this.fatal(e);
        else this.opts.onError(e);
        break;
      }
      default:
        break; // `result`: actions go over HTTP, their results come back there
    }
  }

  /** @private */
  ping() {
    if (Date.now() - this.lastSeen > DEAD_MS) {
      // No pong for two and a half intervals: the socket is dead without knowing it.
      this.drop();
      this.retry();
      return;
    }
    this.send({ type: 'ping' });
  }

  /** @private */
  drop() {
    const ws = this.ws;
    this.ws = null;
    clearInterval(this.pingTimer);
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      try { ws.close(1000); } catch { /* already closing */ }
    }
  }

  /**
   * Between attempts, one HTTP snapshot: it keeps the screen current while the
   * socket is down and tells a refused upgrade (401/404, which a browser
   * WebSocket cannot see) from a network blip.
   * @private
   */
  async retry() {
    this.opts.onStatus(this.everOpened ? 'reconnecting' : 'connecting');
    const attempt = ++this.attempts;
    try {
      this.accept(await fetchSnapshot(this.opts.table, this.opts.token));
    } catch (e) {
      if (this.failed(/** @type {ApiError} */ (e))) return;
    }
    // Something else (wake, another retry) may have reconnected meanwhile.
    if (this.stopped || this.ws || attempt !== this.attempts) return;
    const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    const delay = cap / 2 + Math.random() * (cap / 2);
    clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
  }

  /** @private @param {ApiError} e @returns {boolean} true when it ended the connection */
  failed(e) {
    if (e && (e.status === 401 || e.status === 404)) {
      this.fatal(e);
      return true;
    }
    return false;
  }

  /** @private @param {ApiError} e */
  fatal(e) {
    this.stop();
    this.opts.onFatal(e);
  }

  /** Back in view or back online: reconnect now instead of waiting out the backoff. @private */
  wake() {
    if (this.stopped || document.visibilityState === 'hidden') return;
    if (this.ws) {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      // A phone that slept may hold a socket that died silently; pongs come
      // at least every PING_MS, so an older silence means start over.
      if (Date.now() - this.lastSeen < PING_MS + 5000) {
        this.send({ type: 'ping' });
        return;
      }
      this.drop();
    }
    this.attempts = 0;
    this.connect();
  }
}
