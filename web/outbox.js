// The actions a table's socket owes the server: each waits, by its request id,
// until its `result` or error comes back. A tap on a dying connection is never
// lost (what waits goes again, in order, on every new socket, and again when
// unanswered too long), and never doubled (the server applies a request id
// once). How the bytes travel is the socket's (live.js): it hands `send` in.
// What a tap waits for outlives the page too: iOS reloads a backgrounded PWA
// (and a player reloads a page that looks stuck) while the toast still says
// the move will be sent. The tab's sessionStorage keeps each tap's frame until
// it is answered, and the next page of that table and seat sends it again.

import { ApiError, actionBody } from './net.js';

/**
 * @typedef {import('./net.js').ActionResult} ActionResult
 * @typedef {import('./net.js').ActOptions} ActOptions
 * @typedef {{type: 'action', action: {type: string}, request_id: string, version?: number, as?: string}} ActionFrame
 * @typedef {{frame: ActionFrame, resolve: (r: ActionResult) => void, reject: (e: ApiError) => void, sentAt: number, at: number, kept: boolean, sent: boolean, pages: number, sentHere: boolean}} Pending
 * @typedef {{frame: ActionFrame, at: number, sent?: boolean, pages?: number}} Kept
 *   `sent`: it went out at least once (it may have been applied, its answer lost);
 *   `pages`: how many pages sent it (a page reloaded offline, never reaching the server, counts none)
 * @typedef {{load: () => Kept[], save: (kept: Kept[]) => void}} Keeper
 * @typedef {{waiting: Array<{frame: ActionFrame, done: Promise<ActionResult>}>, stale: number, unsure: number}} Resumed
 *   `stale`: dropped, never sent; `unsure`: dropped, sent before (it may have been applied)
 */

/** An action unanswered this long on an open socket is sent again (same request_id). */
const RESEND_MS = 8000;
/**
 * A tap older than this when a new page finds it is not sent: the table has
 * moved on at the real table too, and its player may well have made it again
 * by hand; and the server remembers a request id for 500 versions only, after
 * which one that went out and was applied would be applied again.
 */
export const KEEP_MS = 10 * 60 * 1000;
/** Pages that may send a tap: one the server never answers (it closes the
 * socket on it) must not hold every page after it. A page that never reached
 * the server (reloaded again while offline) does not count. */
const KEEP_PAGES = 3;

/**
 * The taps of one table and seat in this tab's sessionStorage. A tab's own:
 * two tabs never replay each other's (a duplicated tab copies them, harmless:
 * the server applies a request id once), and it goes with the tab. A secret
 * (a PIN) is never kept (see `add`).
 * @param {string} table @param {string|null} token
 * @returns {Keeper}
 */
export function tabKeeper(table, token) {
  const key = `tablemate.outbox.${table}`;
  return {
    load() {
      try {
        const got = JSON.parse(sessionStorage.getItem(key) || 'null');
        return got && got.token === token && Array.isArray(got.kept) ? got.kept : [];
      } catch {
        return [];
      }
    },
    save(kept) {
      try {
        if (kept.length) sessionStorage.setItem(key, JSON.stringify({ token, kept }));
        else sessionStorage.removeItem(key);
      } catch {
        // Full: what it kept before may be answered by now, and must not be sent by the next page.
        try { sessionStorage.removeItem(key); } catch { /* storage blocked: this page only */ }
      }
    },
  };
}

/** @param {unknown} k @returns {k is Kept} */
function isKept(k) {
  const f = k && typeof k === 'object' ? /** @type {any} */ (k).frame : null;
  return !!f && f.type === 'action' && typeof f.request_id === 'string' && !!f.action
    && typeof f.action.type === 'string' && typeof /** @type {any} */ (k).at === 'number';
}

export class Outbox {
  /**
   * @param {(frame: ActionFrame) => void} send puts a frame on the socket open now
   * @param {Keeper|null} [keeper] where unanswered taps outlive the page
   */
  constructor(send, keeper = null) {
    this.send = send;
    this.keeper = keeper;
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
  }

  /** How many actions wait for an answer. */
  get size() {
    return this.pending.size;
  }

  /**
   * One action, answered whenever the connection lets it through: sent now
   * if `now`, else first thing on the next socket (`flush`).
   * @param {{type: string, [field: string]: unknown}} action
   * @param {ActOptions} opts
   * @param {boolean} now
   * @returns {Promise<ActionResult>}
   */
  add(action, opts, now) {
    /** @type {ActionFrame} */
    const frame = { type: 'action', ...actionBody(action, opts) };
    // A quiet action (a fair-dice seed or link, a vote's opening) is its
    // screen's, which sends it again by itself from what it keeps. A secret (a
    // PIN) is never written to storage (the browser saves a tab's to disk), nor
    // sent again by a later page (each unlock try counts against the seat's five).
    return this.wait(frame, Date.now(), !opts.quiet && !opts.secret, now);
  }

  /**
   * The taps an earlier page of this tab left unanswered, waiting again in
   * the order they were made (sent with the next `flush`); those older than
   * KEEP_MS, or sent by KEEP_PAGES pages already, are forgotten and counted.
   * Each waiting one's promise is the caller's to tell the player of.
   * @param {number} now @returns {Resumed}
   */
  resume(now) {
    if (!this.keeper) return { waiting: [], stale: 0, unsure: 0 };
    const kept = this.keeper.load().filter(isKept).filter((k) => !this.pending.has(k.frame.request_id));
    const ok = (/** @type {Kept} */ k) => now - k.at <= KEEP_MS && k.at <= now && (k.pages || 0) < KEEP_PAGES;
    const fresh = kept.filter(ok);
    const waiting = fresh.map((k) => ({
      frame: k.frame, done: this.wait(k.frame, k.at, true, false, k.sent === true, k.pages || 0),
    }));
    this.save();
    const unsure = kept.filter((k) => !ok(k) && k.sent === true).length;
    return { waiting, stale: kept.length - fresh.length - unsure, unsure };
  }

  /** Every waiting action, in the order it was made (a new socket). */
  flush() {
    for (const p of this.pending.values()) this.transmit(p);
  }

  /** Each action sent and unanswered for RESEND_MS goes again. @param {number} now */
  resend(now) {
    for (const p of this.pending.values()) {
      if (p.sentAt && now - p.sentAt > RESEND_MS) this.transmit(p);
    }
  }

  /**
   * A `result` frame: its action is done. @param {{request_id?: unknown, version: number, events?: unknown[]}} msg
   */
  settle(msg) {
    const p = this.take(msg.request_id);
    if (p) p.resolve({ version: msg.version, events: msg.events || [] });
  }

  /**
   * An `error` frame that names a request: that action is refused. False when
   * it names none waiting here (an error about the connection, not an action).
   * @param {unknown} requestId @param {ApiError} e
   */
  refuse(requestId, e) {
    const p = this.take(requestId);
    if (p) p.reject(e);
    return !!p;
  }

  /**
   * Nothing will carry what waits (the table left on this phone): each is
   * told, and none is sent by a later page either. @param {ApiError} e
   */
  rejectAll(e) {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.save();
  }

  /**
   * @private @param {ActionFrame} frame @param {number} at when it was made
   * @param {boolean} kept @param {boolean} now @param {boolean} [sent] it went out before
   * @param {number} [pages] pages before this one that sent it
   * @returns {Promise<ActionResult>}
   */
  wait(frame, at, kept, now, sent = false, pages = 0) {
    return new Promise((resolve, reject) => {
      /** @type {Pending} */
      const p = { frame, resolve, reject, sentAt: 0, at, kept, sent, pages, sentHere: false };
      this.pending.set(frame.request_id, p);
      if (kept) this.save();
      if (now) this.transmit(p);
    });
  }

  /** @private @param {unknown} requestId */
  take(requestId) {
    if (typeof requestId !== 'string') return undefined;
    const p = this.pending.get(requestId);
    this.pending.delete(requestId);
    if (p && p.kept) this.save();
    return p;
  }

  /** @private What waits, as the next page would send it. */
  save() {
    if (!this.keeper) return;
    /** @type {Kept[]} */
    const kept = [];
    for (const p of this.pending.values()) {
      if (p.kept) kept.push({ frame: p.frame, at: p.at, ...(p.sent ? { sent: true } : {}), ...(p.pages ? { pages: p.pages } : {}) });
    }
    this.keeper.save(kept);
  }

  /** @private @param {Pending} p */
  transmit(p) {
    p.sentAt = Date.now();
    this.send(p.frame);
    if (!p.sentHere) {
      // Before a reload, a frame that went out may have been applied: the next page
      // must know, and how many pages sent it.
      p.sentHere = true;
      p.sent = true;
      p.pages += 1;
      if (p.kept) this.save();
    }
  }
}
