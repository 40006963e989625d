// The live WebSocket of one phone to one table: its connection state machine
// (connecting → open → offline and back, reconnect with backoff, resync by
// version). What it owes the server is outbox.js's; which snapshot to draw,
// snapshot.js's; what the indicator says while it runs, only this socket's.

import { socketOwner } from './connection.js';
import { ApiError, fetchSnapshot, openSocket } from './net.js';
import { Outbox, tabKeeper } from './outbox.js';
import { heardClock, nextSnapshot, withPresence } from './snapshot.js';

/**
 * @typedef {import('./net.js').Snapshot} Snapshot
 * @typedef {import('./net.js').ConnStatus} ConnStatus
 * @typedef {import('./net.js').ActionResult} ActionResult
 * @typedef {import('./net.js').ActOptions} ActOptions
 */

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
/** An open socket whose first snapshot has not come by then is given up too. */
const FIRST_STATE_MS = 10000;
const BACKOFF_BASE_MS = 300;
const BACKOFF_MAX_MS = 10000;

/**
 * Keeps only the newest snapshot (by version); a gap or a missed message
 * heals with `sync`.
 *
 * Liveness is the application's own: the server's heartbeat, a `ping` every PING_MS (or
 * after QUIET_MS without a word), and a socket from
 * which nothing came for DEAD_MS is dropped at once (no waiting for a close
 * handshake that a dead network never completes) and a new one opened.
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
    // `greeted`: this socket's first snapshot came; `live`: and no store outage
    // since, the table heard on it (the indicator's 'open').
    this.greeted = this.live = false;
    /** @type {number|null} the first draw this socket can have heard announced: its first
     * snapshot's version, one more if a draw already waited then (fair-chain.js) */
    this.heardFrom = null;
    this.retryTimer = 0;
    this.watchTimer = 0;
    this.lastSeen = 0;
    this.openedAt = 0;
    this.lastPing = 0;
    /** @type {ConnStatus} */
    this.status = 'connecting';
    /** @type {ReturnType<typeof socketOwner>|null} the indicator, while started */
    this.indicator = null;
    // A spectator sends nothing: nothing of it to keep.
    this.outbox = new Outbox((frame) => this.send(frame), opts.token ? tabKeeper(opts.table, opts.token) : null);
    this.wake = this.wake.bind(this);
    this.sleepy = this.sleepy.bind(this);
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.indicator = socketOwner();
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
      if (this.indicator) this.indicator.release();
      this.indicator = null;
      clearTimeout(this.retryTimer);
      clearInterval(this.watchTimer);
      window.removeEventListener('online', this.wake);
      window.removeEventListener('offline', this.sleepy);
      document.removeEventListener('visibilitychange', this.wake);
      this.drop();
    }
    // Also what waited for a start() that never came.
    this.outbox.rejectAll(new ApiError(0, 'network', 'The table was closed on this phone.'));
  }

  /** Accepts a snapshot from any source if it is not older than the one we have. @param {Snapshot} snap */
  accept(snap) {
    // Stopped (the seat lost, the table left): an HTTP answer still on its way says nothing to anyone.
    if (this.ended) return;
    const next = nextSnapshot(this.last, snap);
    if (!next) return;
    this.version = next.version;
    this.last = next;
    this.opts.onState(next);
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
    if (this.ended) return Promise.reject(new ApiError(0, 'network', 'Not connected to the table.'));
    return this.outbox.add(action, opts, this.isOpen());
  }

  /**
   * The taps an earlier page of this tab and seat left unanswered (a reload,
   * iOS discarding the page), sent first thing once the socket is heard: the
   * caller tells the player of each. Before `start`, once.
   * @returns {import('./outbox.js').Resumed}
   */
  resume() {
    if (this.ended || !this.stopped) return { waiting: [], stale: 0, unsure: 0 };
    return this.outbox.resume(Date.now());
  }

  /** How many actions wait for an answer. */
  get queued() {
    return this.outbox.size;
  }

  /** @param {unknown} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      try { this.ws.send(JSON.stringify(msg)); } catch { /* closing: the watchdog reconnects */ }
    }
  }

  /** @private @param {ConnStatus} status */
  setStatus(status) {
    this.status = status;
    if (this.indicator) this.indicator.say(status);
    this.opts.onStatus(status);
  }

  /** @private */
  connect() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.retryTimer);
    this.setStatus(this.everOpened ? 'offline' : 'connecting');
    let ws;
    try {
      ws = openSocket(this.opts.table, this.opts.token);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    this.live = false;
    this.greeted = false;
    this.heardFrom = null;
    this.openedAt = Date.now();
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.lastSeen = Date.now();
      this.lastPing = 0;
      // Not 'open' yet: the server's first message is the snapshot, and until it
      // comes nothing of the table is heard on this socket (a server that cannot
      // load it closes with 1013; its heartbeat may come first all the same).
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
        // Live before the snapshot is drawn: the screen drawn 'open' with it, not
        // with the one held while the socket was down.
        if (!this.live) this.heard(msg);
        this.accept(msg);
        break;
      case 'presence':
        // Who is connected changed; the table did not (same version).
        if (this.last && Array.isArray(msg.connected)) {
          this.last = withPresence(this.last, msg.connected);
          this.opts.onState(this.last);
        }
        break;
      case 'draw':
        this.draw(msg);
        break;
      case 'pong':
        if (typeof msg.version === 'number' && msg.version > this.version) this.send({ type: 'sync', version: this.version });
        break;
      case 'result':
        this.outbox.settle(msg);
        break;
      case 'error': {
        const err = msg.error || {};
        const e = new ApiError(err.code === 'table_not_found' ? 404 : 0, err.code || 'error', err.message || '');
        if (this.outbox.refuse(msg.request_id, e)) break;
        if (e.code === 'bad_token') { this.fatal(e); break; }
        if (e.code === 'store_unavailable' && this.live) {
          // The server cannot reach its store: nothing of the table is heard until
          // its fresh snapshot once it is back. Taps wait in the outbox meanwhile.
          this.live = false;
          this.setStatus('offline');
        }
        // Not about one action (rate_limited, store_unavailable, …): what is
        // pending goes again once the outbox's resend time has passed, with the same request_id.
        this.opts.onError(e);
        break;
      }
      default:
        break;
    }
  }

  /**
   * This socket's first snapshot came: open, the backoff over, what waited sent.
   * @private @param {any} msg
   */
  heard(msg) {
    const pending = msg.fair && msg.fair.pending;
    this.heardFrom = typeof msg.version === 'number' ? msg.version + (pending ? 1 : 0) : null;
    this.live = true;
    this.greeted = true;
    this.attempts = 0;
    this.everOpened = true;
    this.setStatus('open');
    this.outbox.flush();
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
    if (now - this.lastSeen > DEAD_MS || (!this.greeted && now - this.openedAt > FIRST_STATE_MS)) {
      this.dead();
      return;
    }
    if (now - this.lastPing >= PING_MS || (now - this.lastSeen >= QUIET_MS && now - this.lastPing >= 1000)) {
      this.lastPing = now;
      this.send({ type: 'ping' });
    }
    this.outbox.resend(now);
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
        const snap = await fetchSnapshot(this.opts.table, this.opts.token);
        // A socket heard meanwhile is newer, or as new: the HTTP answer, read while
        // this phone had no socket, would say its own seat is not connected.
        if (!this.live) this.accept(snap);
      } catch (e) {
        if (this.failed(/** @type {ApiError} */ (e))) return;
      }
    }
  }

  /** @private @param {ApiError} e @returns {boolean} true when it ended the connection */
  failed(e) {
    if (this.ended) return true;
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
