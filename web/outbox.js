// The actions a table's socket owes the server: each waits, by its request id,
// until its `result` or error comes back. A tap on a dying connection is never
// lost (what waits goes again, in order, on every new socket, and again when
// unanswered too long), and never doubled (the server applies a request id
// once). How the bytes travel is the socket's (live.js): it hands `send` in.

import { ApiError, actionBody } from './net.js';

/**
 * @typedef {import('./net.js').ActionResult} ActionResult
 * @typedef {import('./net.js').ActOptions} ActOptions
 * @typedef {{type: 'action', action: {type: string}, request_id: string, version?: number, as?: string}} ActionFrame
 * @typedef {{frame: ActionFrame, resolve: (r: ActionResult) => void, reject: (e: ApiError) => void, sentAt: number}} Pending
 */

/** An action unanswered this long on an open socket is sent again (same request_id). */
const RESEND_MS = 8000;

export class Outbox {
  /** @param {(frame: ActionFrame) => void} send puts a frame on the socket open now */
  constructor(send) {
    this.send = send;
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
    return new Promise((resolve, reject) => {
      /** @type {Pending} */
      const p = { frame, resolve, reject, sentAt: 0 };
      this.pending.set(frame.request_id, p);
      if (now) this.transmit(p);
    });
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

  /** Nothing will carry what waits: each is told. @param {ApiError} e */
  rejectAll(e) {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  /** @private @param {unknown} requestId */
  take(requestId) {
    if (typeof requestId !== 'string') return undefined;
    const p = this.pending.get(requestId);
    this.pending.delete(requestId);
    return p;
  }

  /** @private @param {Pending} p */
  transmit(p) {
    p.sentAt = Date.now();
    this.send(p.frame);
  }
}
