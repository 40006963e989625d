// Keeps the screen on while the phone is at a table. The browser drops the
// lock whenever the page is hidden, so it is requested again on return.

/** @type {any} */
let sentinel = null;
let wanted = false;

/**
 * `<html data-wake>`: `on` (the screen stays on), `off` (asked, refused), or
 * `unsupported` (no Wake Lock API: iOS before 16.4, WebKitGTK; the phone's
 * own auto-lock then applies and the game still works).
 * @param {'on'|'off'|'unsupported'|null} state
 */
function mark(state) {
  if (state === null) delete document.documentElement.dataset.wake;
  else document.documentElement.dataset.wake = state;
}

async function request() {
  const wl = /** @type {any} */ (navigator).wakeLock;
  if (wanted && !wl) { mark('unsupported'); return; }
  if (!wanted || document.visibilityState !== 'visible' || sentinel) return;
  try {
    sentinel = await wl.request('screen');
    mark('on');
    sentinel.addEventListener('release', () => { sentinel = null; if (wanted) mark('off'); });
  } catch {
    sentinel = null; // low battery, not allowed: the game still works
    mark('off');
  }
}

function onVisibility() {
  if (document.visibilityState === 'visible') request();
}

/** Start keeping the screen awake (at a table). */
export function keepAwake() {
  if (wanted) return;
  wanted = true;
  document.addEventListener('visibilitychange', onVisibility);
  request();
}

/** Let the screen sleep again (left the table). */
export function allowSleep() {
  wanted = false;
  mark(null);
  document.removeEventListener('visibilitychange', onVisibility);
  const s = sentinel;
  sentinel = null;
  if (s) s.release().catch(() => {});
}
