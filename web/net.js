// Everything that talks to the server: JSON over HTTP with one error type, and
// the live WebSocket of a table (reconnect with backoff, resync by version).

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
 * @typedef {'connecting'|'open'|'offline'} ConnStatus
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

/**
 * The connection state on `<html data-connection>`, for styling and tests:
 * `open` (the server answers), `connecting` (a first connection is under way),
 * `offline` (the server stopped answering; reconnecting). A table's socket
 * sets it while one is live; otherwise HTTP requests do.
 * @param {ConnStatus} state
 */
export function setConnection(state) {
  const root = document.documentElement;
  if (root.dataset.connection === state) return;
  root.dataset.connection = state;
  for (const fn of [...connectionListeners]) fn(state);
}

/** @type {Set<(state: ConnStatus) => void>} */
const connectionListeners = new Set();

/**
 * Calls `fn` each time the connection state changes; returns the unsubscribe.
 * @param {(state: ConnStatus) => void} fn
 */
export function onConnection(fn) {
  connectionListeners.add(fn);
  return () => { connectionListeners.delete(fn); };
}

/** A table's socket owns `data-connection` while it runs. */
let liveCount = 0;
/** How long a plain request may go unanswered on "lie-fi" before it counts as failed. */
const HTTP_TIMEOUT_MS = 15000;

/**
 * Calls `fn` once the server answers again after a network failure (the
 * browser's `online` event, or a probe every few seconds), e.g. for the home
 * page to load what it could not. Returns the cancel function.
 * @param {() => void} fn
 */
export function whenBack(fn) {
  let done = false;
  let timer = 0;
  const finish = () => {
    if (done) return;
    done = true;
    clearInterval(timer);
    window.removeEventListener('online', probe);
    off();
    fn();
  };
  const probe = () => {
    fetch('/healthz', { cache: 'no-store' }).then((r) => { if (r.ok) { if (!liveCount) setConnection('open'); finish(); } }, () => {});
  };
  const off = onConnection((state) => { if (state === 'open') finish(); });
  window.addEventListener('online', probe);
  timer = window.setInterval(probe, 4000);
  return () => { done = true; clearInterval(timer); window.removeEventListener('online', probe); off(); };
}

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
    if (!liveCount) setConnection('offline');
    throw new ApiError(0, 'network', 'The server could not be reached.');
  } finally {
    clearTimeout(timer);
  }
  if (!liveCount) setConnection('open');
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
 * refusal is the caller's to handle, not shown (a phone's fair-dice seed).
 * @typedef {{version?: number, as?: string, quiet?: boolean}} ActOptions
 */

/**
 * The body of an action, HTTP and socket alike.
 * @param {{type: string, [field: string]: unknown}} action
 * @param {ActOptions} opts
 */
function actionBody(action, opts) {
  return {
    action, request_id: requestId(),
    ...(opts.version === undefined ? {} : { version: opts.version }),
    ...(opts.as === undefined ? {} : { as: opts.as }),
  };
}

/**
 * Whether two snapshots say the same (a socket's `state` frame carries a `type`,
 * each snapshot the server's clock when it was built, and HTTP and the socket
 * order keys differently).
 * @param {any} a @param {any} b @returns {boolean}
 */
export function sameSnapshot(a, b) {
  return sameJson(a, b, true);
}

/** A snapshot's top-level keys that say nothing of the table: the frame's type, the server's clock. */
const NOT_TABLE = new Set(['type', 'now']);

/**
 * Whether `next` says what `last` said but for who is connected: the socket's
 * first frame, where this phone's own seat is now connected.
 * @param {any} next @param {any} last @returns {boolean}
 */
export function presenceChanged(next, last) {
  if (!Array.isArray(next.players) || !Array.isArray(last.players) || next.players.length !== last.players.length) return false;
  const rest = (/** @type {any} */ o) => { const { players: _p, type: _t, now: _n, ...others } = o; return others; };
  const seat = (/** @type {any} */ p) => { const { connected: _c, ...others } = p || {}; return others; };
  return sameJson(rest(next), rest(last))
    && next.players.every((/** @type {any} */ p, /** @type {number} */ i) => sameJson(seat(p), seat(last.players[i])));
}

/**
 * Whether `next` is `last` with only its fair dice part changed (a phone's
 * seed landed): the version moved, nothing a game screen draws did.
 * @param {any} next @param {any} last
 */
export function fairChanged(next, last) {
  if (!next || !last || !next.fair || next.version <= last.version) return false;
  const rest = (/** @type {any} */ o) => { const { fair: _f, version: _v, type: _t, now: _n, ...others } = o; return others; };
  return sameJson(rest(next), rest(last));
}

/** @param {any} a @param {any} b @param {boolean} [top] @returns {boolean} */
function sameJson(a, b, top = false) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  const keys = Object.keys(a).filter((k) => !(top && NOT_TABLE.has(k)));
  if (keys.length !== Object.keys(b).filter((k) => !(top && NOT_TABLE.has(k))).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
}

/** @param {string} table @param {string|null} token @returns {Promise<Snapshot>} */
export async function fetchSnapshot(table, token) {
  const snap = await api(`/api/tables/${encodeURIComponent(table)}`, { token });
  heardClock(snap);
  return snap;
}

/** How far the server's clock is ahead of this phone's (ms), from the last snapshot heard. */
let clockSkew = 0;

/**
 * A snapshot fresh from the server carries its clock (`now`, while the game
 * waits for someone): how long a seat has been waited for is then told by the
 * server's time, whatever this phone's clock says. A snapshot kept from
 * before (a reload) is never used for it: its `now` is old.
 * @param {{now?: unknown}|null|undefined} snap
 */
function heardClock(snap) {
  if (snap && typeof snap.now === 'number') clockSkew = snap.now * 1000 - Date.now();
}

/** The server's time now (epoch ms), by this phone's clock and the last skew heard. */
export function serverNow() {
  return Date.now() + clockSkew;
}

/**
 * The phone pings this often, so the server knows it is there (presence, and
 * closing sockets whose phone is gone). The server sends a frame at least every
 * 2 s by itself (its heartbeat), so the phone's own pings can be rare: each costs
 * the server a frame to parse.
 */
const PING_MS = 8000;
/** Nothing heard for this long (a server without the heartbeat): ask with a ping. */
const QUIET_MS = 2500;
/** Nothing heard for this long: the socket is dead, whatever the browser thinks. */
const DEAD_MS = 5000;
/** A socket that has not opened by then is given up (a silent network never fails it). */
const CONNECT_MS = 5000;
/** An action unanswered this long on an open socket is sent again (same request_id). */
const RESEND_MS = 8000;
const BACKOFF_BASE_MS = 300;
const BACKOFF_MAX_MS = 10000;

/**
 * @typedef {{
 *   body: {type: 'action', action: {type: string}, request_id: string, version?: number, as?: string},
 *   resolve: (r: ActionResult) => void, reject: (e: ApiError) => void, sentAt: number,
 * }} Pending
 */

/**
 * The live connection of one phone to one table. Keeps only the newest
 * snapshot (by version); a gap or a missed message heals with `sync`.
 *
 * Liveness is the application's own: the server's heartbeat, a `ping` every PING_MS (or
 * after QUIET_MS without a word), and a socket from
 * which nothing came for DEAD_MS is dropped at once (no waiting for a close
 * handshake that a dead network never completes) and a new one opened.
 *
 * Actions go over the socket with a request_id and stay pending until their
 * `result` (or error) comes back; they are sent again on every new socket, so
 * a tap on a dying connection is never lost, and the server applies a
 * request_id once, so it is never doubled.
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
    /** @type {Snapshot|null} */
    this.last = null;
    /** @type {WebSocket|null} */
    this.ws = null;
    this.attempts = 0;
    this.stopped = true;
    /** stop() ran: an action now has nowhere to go (before start() it waits for the socket). */
    this.ended = false;
    this.everOpened = false;
    this.retryTimer = 0;
    this.watchTimer = 0;
    this.lastSeen = 0;
    this.openedAt = 0;
    this.lastPing = 0;
    /** @type {ConnStatus} */
    this.status = 'connecting';
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
    this.wake = this.wake.bind(this);
    this.sleepy = this.sleepy.bind(this);
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    liveCount++;
    window.addEventListener('online', this.wake);
    window.addEventListener('offline', this.sleepy);
    document.addEventListener('visibilitychange', this.wake);
    this.watchTimer = window.setInterval(() => this.watch(), 1000);
    this.connect();
  }

  stop() {
    this.ended = true;
    if (!this.stopped) {
      this.stopped = true;
      liveCount--;
      clearTimeout(this.retryTimer);
      clearInterval(this.watchTimer);
      window.removeEventListener('online', this.wake);
      window.removeEventListener('offline', this.sleepy);
      document.removeEventListener('visibilitychange', this.wake);
      this.drop();
    }
    // Also what waited for a start() that never came.
    const gone = new ApiError(0, 'network', 'The table was closed on this phone.');
    for (const p of this.pending.values()) p.reject(gone);
    this.pending.clear();
  }

  /** Accepts a snapshot from any source if it is not older than the one we have. @param {Snapshot} snap */
  accept(snap) {
    if (!snap || typeof snap.version !== 'number' || snap.version < this.version) return;
    // The socket's first frame repeats the snapshot the screen was just drawn
    // from (the HTTP one, same version): drawing it again would cost a whole
    // render on a slow phone, for nothing.
    if (this.last && snap.version === this.version && sameSnapshot(snap, this.last)) return;
    // Only the seats' presence differs: keep every other field the very object
    // the screen drew, as a presence frame does, so the game is not redrawn for
    // it (a whole render on a slow phone, right after the socket opens).
    if (this.last && snap.version === this.version && presenceChanged(snap, this.last)) {
      snap = { ...this.last, players: snap.players };
    }
    // Only a phone's fair-dice seed came in: likewise, every field but those
    // two (and the server's clock) stays the object the screen drew (table.js
    // draws the fair line alone).
    if (this.last && fairChanged(snap, this.last)) {
      snap = { ...this.last, version: snap.version, fair: snap.fair, ...(snap.now === undefined ? {} : { now: snap.now }) };
    }
    this.version = snap.version;
    this.last = snap;
    this.opts.onState(snap);
  }

  /** Asks for the current snapshot (after an action, or when a gap is suspected). */
  async sync() {
    if (this.isOpen()) {
      this.send({ type: 'sync', version: this.version });
      return;
    }
    try {
      this.accept(await fetchSnapshot(this.opts.table, this.opts.token));
    } catch (e) {
      this.failed(/** @type {ApiError} */ (e));
    }
  }

  isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && this.status === 'open';
  }

  /**
   * Sends one action; resolves with its result, whenever the connection lets
   * it through. Not connected now: it waits and goes first thing on the next
   * socket. It is not pinned to the version it was decided at (unless the
   * caller asks): two taps queued together would refuse each other. The
   * engine still refuses a move that became illegal meanwhile.
   * @param {{type: string, [field: string]: unknown}} action
   * @param {ActOptions} [opts]
   * @returns {Promise<ActionResult>}
   */
  act(action, opts = {}) {
    const queued = !this.isOpen();
    /** @type {Pending['body']} */
    const body = { type: 'action', ...actionBody(action, opts) };
    return new Promise((resolve, reject) => {
      if (this.ended) {
        reject(new ApiError(0, 'network', 'Not connected to the table.'));
        return;
      }
      /** @type {Pending} */
      const p = { body, resolve, reject, sentAt: 0 };
      this.pending.set(body.request_id, p);
      if (!queued) this.transmit(p);
    });
  }

  /** How many actions wait for an answer. */
  get queued() {
    return this.pending.size;
  }

  /** @private @param {Pending} p */
  transmit(p) {
    p.sentAt = Date.now();
    this.send(p.body);
  }

  /** @private Every pending action, in the order it was made, on the new socket. */
  flush() {
    for (const p of this.pending.values()) this.transmit(p);
  }

  /** @param {unknown} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      try { this.ws.send(JSON.stringify(msg)); } catch { /* closing: the watchdog reconnects */ }
    }
  }

  /** @private */
  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/api/tables/${encodeURIComponent(this.opts.table)}/ws`;
  }

  /**
   * The socket's subprotocols: the seat token rides in the handshake's
   * headers, never in the URL, which proxies and browser histories keep.
   * @private
   */
  protocols() {
    return this.opts.token ? ['tablemate', `tablemate.token.${this.opts.token}`] : ['tablemate'];
  }

  /** @private @param {ConnStatus} status */
  setStatus(status) {
    this.status = status;
    setConnection(status);
    this.opts.onStatus(status);
  }

  /** @private */
  connect() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.retryTimer);
    this.setStatus(this.everOpened ? 'offline' : 'connecting');
    let ws;
    try {
      ws = new WebSocket(this.url(), this.protocols());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    this.openedAt = Date.now();
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempts = 0;
      this.everOpened = true;
      this.lastSeen = Date.now();
      this.lastPing = 0;
      this.setStatus('open');
      // The server's first message is the snapshot; what waited goes after it.
      this.flush();
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
      if (this.stopped) return;
      if (ev.code === 4401) {
        this.fatal(new ApiError(401, 'bad_token', ev.reason || 'This seat token is no longer valid.'));
        return;
      }
      if (ev.code === 4409) {
        // Pushed out by a newer socket of this seat (server/live/admission.py):
        // reconnecting would push that one out in turn.
        this.fatal(new ApiError(409, 'too_many_sockets', ev.reason || 'This seat is open on too many phones.'));
        return;
      }
      this.retry();
    };
  }

  /** @private @param {any} msg */
  handle(msg) {
    switch (msg && msg.type) {
      case 'state':
        heardClock(msg);
        this.accept(msg);
        break;
      case 'presence':
        this.presence(msg);
        break;
      case 'draw':
        this.draw(msg);
        break;
      case 'pong':
        if (typeof msg.version === 'number' && msg.version > this.version) this.send({ type: 'sync', version: this.version });
        break;
      case 'result': {
        const p = this.pending.get(msg.request_id);
        if (!p) break;
        this.pending.delete(msg.request_id);
        p.resolve({ version: msg.version, events: msg.events || [] });
        break;
      }
      case 'error': {
        const err = msg.error || {};
        const e = new ApiError(err.code === 'table_not_found' ? 404 : 0, err.code || 'error', err.message || '');
        const p = typeof msg.request_id === 'string' ? this.pending.get(msg.request_id) : undefined;
        if (p) {
          this.pending.delete(msg.request_id);
          p.reject(e);
        } else if (e.code === 'bad_token') this.fatal(e);
        // Not about one action (rate_limited, store_unavailable, …): what is
        // pending goes again once RESEND_MS has passed, with the same request_id.
        else this.opts.onError(e);
        break;
      }
      default:
        break;
    }
  }

  /**
   * Who is connected changed; the table did not (same version).
   * @private @param {{connected?: unknown}} msg
   */
  presence(msg) {
    const snap = this.last;
    if (!snap || !Array.isArray(msg.connected)) return;
    const online = new Set(msg.connected);
    const players = snap.players.map((p) => ({ ...p, connected: online.has(p.id) }));
    this.last = { ...snap, players };
    this.opts.onState(this.last);
  }

  /**
   * A draw announced, or a link of it taken (docs/api.md, the `draw` frame):
   * whom it waits for, put into the snapshot this phone holds as its
   * `fair.pending` (the same the next snapshot would carry). One of before
   * that snapshot (the draw made meanwhile) is dropped.
   * @private @param {{version?: unknown, pending?: unknown}} msg
   */
  draw(msg) {
    const snap = this.last;
    if (!snap || !snap.fair || typeof msg.version !== 'number' || msg.version < snap.version || !msg.pending) return;
    this.last = { ...snap, fair: { ...snap.fair, pending: msg.pending } };
    this.opts.onState(this.last);
  }

  /** @private The heartbeat and watchdog, once a second. */
  watch() {
    if (this.stopped || !this.ws) return;
    const now = Date.now();
    if (this.ws.readyState === WebSocket.CONNECTING) {
      if (now - this.openedAt > CONNECT_MS) this.dead();
      return;
    }
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (now - this.lastSeen > DEAD_MS) {
      this.dead();
      return;
    }
    if (now - this.lastPing >= PING_MS || (now - this.lastSeen >= QUIET_MS && now - this.lastPing >= 1000)) {
      this.lastPing = now;
      this.send({ type: 'ping' });
    }
    for (const p of this.pending.values()) {
      if (p.sentAt && now - p.sentAt > RESEND_MS) this.transmit(p);
    }
  }

  /** @private The socket is dead without knowing it: say so now, open a new one. */
  dead() {
    this.drop();
    this.retry();
  }

  /** The browser says the network is gone: believe it at once. @private */
  sleepy() {
    if (this.stopped || !this.ws) return;
    this.dead();
  }

  /** @private */
  drop() {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      // Not awaited: a dead network never completes the close handshake.
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
    this.setStatus(this.everOpened ? 'offline' : 'connecting');
    const attempt = ++this.attempts;
    // The first retry goes at once: most drops are one bad moment.
    const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    const delay = attempt === 1 ? 0 : cap / 2 + Math.random() * (cap / 2);
    clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
    if (attempt > 1) {
      try {
        this.accept(await fetchSnapshot(this.opts.table, this.opts.token));
      } catch (e) {
        if (this.failed(/** @type {ApiError} */ (e))) return;
      }
    }
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
      // A phone that slept may hold a socket that died silently.
      if (Date.now() - this.lastSeen < DEAD_MS) {
        this.send({ type: 'ping' });
        return;
      }
      this.drop();
    }
    this.attempts = 0;
    this.connect();
  }
}
