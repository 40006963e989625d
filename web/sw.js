// Service worker: a versioned cache of the app shell, so the installed app
// opens without a network. The API and the socket are never cached: a table's
// state must always be live. Bump VERSION when the shell's file list changes.

/** @type {ServiceWorkerGlobalScope} */
const sw = /** @type {any} */ (self);

const VERSION = 'v3';
const CACHE = `tablemate-shell-${VERSION}`;
const SHELL = [
  '/',
  '/app.js',
  '/net.js',
  '/store.js',
  '/i18n.js',
  '/ui.js',
  '/tokens.js',
  '/wake.js',
  '/games-loader.js',
  '/i18n/ko.json',
  '/i18n/en.json',
  '/screens/home.js',
  '/screens/session.js',
  '/screens/join.js',
  '/screens/lobby.js',
  '/screens/seats.js',
  '/screens/table.js',
  '/screens/conn.js',
  '/screens/notfound.js',
  '/screens/pin.js',
  '/screens/results.js',
  '/games/generic.js',
  '/style.css',
  '/manifest.webmanifest',
  '/icons/icon-192.png',
  '/icons/icon-512.png',
];
const SHELL_PATHS = new Set(SHELL);
const NETWORK_TIMEOUT_MS = 4000;

sw.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // cache: 'reload' skips the HTTP cache, so a new version gets new files.
    await cache.addAll(SHELL.map((url) => new Request(url, { cache: 'reload' })));
    await sw.skipWaiting();
  })());
});

sw.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const keys = await caches.keys();
    await Promise.all(keys
      .filter((k) => k.startsWith('tablemate-shell-') && k !== CACHE)
      .map((k) => caches.delete(k)));
    await sw.clients.claim();
  })());
});

/**
 * Network first (the shell stays fresh while online), refreshing the cache;
 * the cached copy when the network fails or is too slow.
 * @param {FetchEvent} event
 * @param {string} key cache key ('/' for every page: they all are index.html)
 */
async function networkFirst(event, key) {
  const cache = await caches.open(CACHE);
  const network = fetch(event.request).then((res) => {
    if (res.ok && res.type === 'basic') {
      const copy = res.clone();
      event.waitUntil(cache.put(key, copy));
    }
    return res;
  });
  const cached = await cache.match(key);
  if (!cached) return network;
  const timeout = new Promise((resolve) => { setTimeout(() => resolve(cached), NETWORK_TIMEOUT_MS); });
  try {
    return await Promise.race([network, timeout]);
  } catch {
    return cached;
  }
}

sw.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== sw.location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname === '/healthz') return;
  if (req.mode === 'navigate') {
    event.respondWith(networkFirst(event, '/'));
    return;
  }
  if (SHELL_PATHS.has(url.pathname)) event.respondWith(networkFirst(event, url.pathname));
});
