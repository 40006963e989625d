// The service worker's side of a deploy: registers the worker and, when a new
// version has installed beside the running one, offers "a new version is
// ready — tap to reload". The tap lets the new worker take over, then reloads,
// so a page never mixes two versions' files.

import { h } from './ui.js';

/**
 * @param {ServiceWorker} waiting
 */
function offer(waiting) {
  if (document.getElementById('update-ready')) return;
  let accepted = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (accepted) location.reload();
  });
  const button = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', id: 'update-ready', class: 'update-ready', t: 'update.ready',
    onclick: () => {
      accepted = true;
      button.disabled = true;
      waiting.postMessage('skip-waiting');
    },
  }));
  document.body.append(button);
}

/** Registers /sw.js; the app works without it. */
export function watchUpdates() {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('/sw.js').then((reg) => {
    const check = () => {
      // Only an update waits: the first worker takes over by itself.
      if (reg.waiting && navigator.serviceWorker.controller) offer(reg.waiting);
    };
    check();
    reg.addEventListener('updatefound', () => {
      const incoming = reg.installing;
      if (!incoming) return;
      incoming.addEventListener('statechange', () => { if (incoming.state === 'installed') check(); });
    });
    // A phone left open at the table learns of a deploy when it comes back.
    const update = () => { reg.update().catch(() => { /* offline: next time */ }); };
    window.addEventListener('online', update);
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') update(); });
  }).catch(() => { /* the app works without it */ });
}
