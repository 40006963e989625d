// The connection indicator's one source of truth: `<html data-connection>`
// (styles, tests, screens/conn.js's badge through session.js). It must never
// say `open` while the server cannot be heard, so it has one owner at a time:
// while a table's socket runs (live.js) only the socket's own liveness sets it,
// since an HTTP answer says nothing of a socket that died silently; otherwise
// the HTTP requests (net.js) say whether the server answered.

/** @typedef {'connecting'|'open'|'offline'} ConnStatus */

/** @type {Set<(state: ConnStatus) => void>} */
const listeners = new Set();
/** How many table sockets run (a screen change may briefly overlap two). */
let sockets = 0;

/**
 * `open` (the server answers), `connecting` (a first connection is under way),
 * `offline` (the server stopped answering; reconnecting).
 * @param {ConnStatus} state
 */
function setConnection(state) {
  const root = document.documentElement;
  if (root.dataset.connection === state) return;
  root.dataset.connection = state;
  for (const fn of [...listeners]) fn(state);
}

/**
 * Calls `fn` each time the connection state changes; returns the unsubscribe.
 * @param {(state: ConnStatus) => void} fn
 */
export function onConnection(fn) {
  listeners.add(fn);
  return () => { listeners.delete(fn); };
}

/**
 * An HTTP request reached the server or failed to: said only while no socket
 * owns the indicator.
 * @param {boolean} reached
 */
export function httpReached(reached) {
  if (!sockets) setConnection(reached ? 'open' : 'offline');
}

/**
 * A table's socket takes the indicator until the returned release is called
 * (once); meanwhile `say` is what the socket knows of itself.
 * @returns {{say: (state: ConnStatus) => void, release: () => void}}
 */
export function socketOwner() {
  sockets++;
  let owns = true;
  return {
    say(state) { if (owns) setConnection(state); },
    release() {
      if (!owns) return;
      owns = false;
      sockets--;
    },
  };
}

/** Between two probes of a server that did not answer (`whenBack`). */
const PROBE_MS = 4000;

/**
 * Calls `fn` once the server answers again after a network failure (the
 * browser's `online` event, or a probe every few seconds), e.g. for the home
 * page to load what it could not. Returns the cancel function.
 * @param {() => void} fn
 */
export function whenBack(fn) {
  let done = false;
  let timer = 0;
  const cancel = () => {
    done = true;
    clearInterval(timer);
    window.removeEventListener('online', probe);
    off();
  };
  const finish = () => {
    if (done) return;
    cancel();
    fn();
  };
  const probe = () => {
    fetch('/healthz', { cache: 'no-store' }).then((r) => { if (r.ok) { httpReached(true); finish(); } }, () => {});
  };
  const off = onConnection((state) => { if (state === 'open') finish(); });
  window.addEventListener('online', probe);
  timer = window.setInterval(probe, PROBE_MS);
  return cancel;
}
