// Keeps the screen on while the phone is at a table. The browser drops the
// lock whenever the page is hidden, so it is requested again on return.

/** @type {any} */
let sentinel = null;
let wanted = false;

async function request() {
  const wl = /** @type {any} */ (navigator).wakeLock;
  if (!wanted || !wl || document.visibilityState !== 'visible' || sentinel) return;
  try {
    sentinel = await wl.request('screen');
    sentinel.addEventListener('release', () => { sentinel = null; });
  } catch {
    sentinel = null; // low battery, not allowed, or not supported: the game still works
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
  document.removeEventListener('visibilitychange', onVisibility);
  const s = sentinel;
  sentinel = null;
  if (s) s.release().catch(() => {});
}
