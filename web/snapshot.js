// What a snapshot says, apart from how it came (HTTP or the socket): which one
// a screen draws next, whether two say the same, and the server's clock a
// fresh one carries. Pure but for that clock, so node runs it as it is.

/**
 * @typedef {import('./net.js').Snapshot} Snapshot
 */

/**
 * The snapshot to draw after `last`, or null when there is nothing new to
 * draw: an older one, or the same table again. Where only presence or the fair
 * dice changed, every other field is `last`'s very object, so the screen does
 * not redraw a game for it (a whole render on a slow phone).
 * @param {Snapshot|null} last the one drawn now
 * @param {Snapshot} snap from any source
 * @returns {Snapshot|null}
 */
export function nextSnapshot(last, snap) {
  if (!snap || typeof snap.version !== 'number') return null;
  if (!last) return snap;
  if (snap.version < last.version) return null;
  if (snap.version === last.version) {
    // The socket's first frame repeats the snapshot the screen was just drawn
    // from (the HTTP one, same version).
    if (sameSnapshot(snap, last)) return null;
    // This phone's own seat is now connected, nothing else: as a presence frame.
    if (presenceChanged(snap, last)) snap = { ...last, players: snap.players };
  }
  // Only a phone's fair-dice seed came in (table.js draws the fair line alone).
  if (fairChanged(snap, last)) {
    snap = { ...last, version: snap.version, fair: snap.fair, ...(snap.now === undefined ? {} : { now: snap.now }) };
  }
  // A draw announced (a `draw` frame) is not in the snapshot of a version before
  // the one it commits as: a push of such a version that comes after the frame
  // (pushes race) must not make this phone forget the draw that waits for it.
  const held = last.fair ? /** @type {any} */ (last.fair).pending : undefined;
  if (held && snap.fair && !(/** @type {any} */ (snap.fair).pending) && snap.version < held.draw) {
    snap = { ...snap, fair: { ...snap.fair, pending: held } };
  }
  return snap;
}

/**
 * `snap` with who is connected as a `presence` frame says (the table did not
 * change, so neither did its version).
 * @param {Snapshot} snap @param {unknown[]} connected
 * @returns {Snapshot}
 */
export function withPresence(snap, connected) {
  const online = new Set(connected);
  return { ...snap, players: snap.players.map((p) => ({ ...p, connected: online.has(p.id) })) };
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

/**
 * Whether the snapshot `next` that follows `prev` on a screen is `prev` with only
 * its seats' presence changed: a presence frame (and nextSnapshot) copies the
 * snapshot and replaces `players` alone, so every other field is the very same
 * object, and nothing a game module draws changed.
 * @param {Snapshot|null} prev @param {Snapshot} next
 */
export function presenceOnly(prev, next) {
  if (!prev || prev === next || prev.version !== next.version || prev.players === next.players) return false;
  return sameObjectsBut(prev, next, ['players']);
}

/**
 * Whether `next` is `prev` with only a phone's fair-dice seed come in:
 * nextSnapshot kept every other field but the version and the server's clock.
 * @param {Snapshot|null} prev @param {Snapshot} next
 */
export function fairOnly(prev, next) {
  return !!prev && next.version > prev.version && sameObjectsBut(prev, next, ['version', 'fair', 'now']);
}

/**
 * Whether `a` and `b` have the same keys and hold the very same object at each
 * but the `changed` ones (an identity check: cheap, for a screen's every redraw).
 * @param {any} a @param {any} b @param {string[]} changed
 */
function sameObjectsBut(a, b, changed) {
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((k) => changed.includes(k) || a[k] === b[k]);
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

/** How far the server's clock is ahead of this phone's (ms), from the last snapshot heard. */
let clockSkew = 0;

/**
 * A snapshot fresh from the server carries its clock (`now`, while the game
 * waits for someone): how long a seat has been waited for is then told by the
 * server's time, whatever this phone's clock says. A snapshot kept from
 * before (a reload) is never used for it: its `now` is old.
 * @param {{now?: unknown}|null|undefined} snap
 */
export function heardClock(snap) {
  if (snap && typeof snap.now === 'number') clockSkew = snap.now * 1000 - Date.now();
}

/** The server's time now (epoch ms), by this phone's clock and the last skew heard. */
export function serverNow() {
  return Date.now() + clockSkew;
}
