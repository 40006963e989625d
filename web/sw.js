// Service worker: every app file, precached under its versioned URL and served
// cache-first, so the installed app opens at once: offline, and on a network
// that connects but never answers. The API and the socket are never cached: a
// table's state must always be live.
//
// Updates: the server changes BUILD below whenever any app file changes, so
// the browser sees a new sw.js. The first worker takes over at once; a later
// one installs its own cache beside the old and waits until the user taps
// "a new version is ready" (see update.js), so no page runs on two versions.

/** @type {ServiceWorkerGlobalScope} */
const sw = /** @type {any} */ (self);

// Filled in by the server at start-up (server/http/assets.py): this deploy's version
// and, for every app file, its versioned URL ('/' is the shell page).
/** @type {{version: string, files: Record<string, string>}} */
const BUILD = { version: 'dev', files: {} };

const PREFIX = 'tablemate-shell-';
const CACHE = `${PREFIX}${BUILD.version}`;
const FILES = BUILD.files;
// The app's own pages: each is index.html, and the app routes itself.
const APP_PAGE = /^\/(?:index\.html|t\/[A-Za-z0-9_-]{1,64}\/?)?$/;

sw.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // A versioned URL may come from the HTTP cache (its bytes never change);
    // the page is revalidated. addAll is all or nothing: a half-filled cache
    // never becomes the shell, the browser retries on a later visit.
    await cache.addAll(Object.values(FILES).map((url) => new Request(url, { cache: url === '/' ? 'no-cache' : 'default' })));
    await routeFilesToCache(/** @type {any} */ (event));
    if (!sw.registration.active) await sw.skipWaiting();
  })());
});

/**
 * Where the browser has static routing (Chrome 123+), a versioned file (a
 * ?v= URL, or a bundle's hashed name) is answered from this version's cache
 * by the browser itself, without running
 * this script's fetch handler once per file: a table's ~40 modules cost the
 * page's main thread far less. A miss goes to the network; elsewhere the
 * fetch handler below does the same job.
 * @param {{addRoutes?: (rules: unknown) => Promise<void>}} event
 */
async function routeFilesToCache(event) {
  if (typeof event.addRoutes !== 'function' || typeof URLPattern !== 'function') return;
  // A bundle's name is its version (its path is its cache key): exactly that
  // URL, without a query (a retry's ?retry= must reach the network).
  const named = Object.entries(FILES).filter(([path, url]) => path === url && path !== '/');
  try {
    await event.addRoutes([
      { condition: { urlPattern: new URLPattern({ pathname: '/*', search: 'v=*' }) }, source: { cacheName: CACHE } },
      ...named.map(([path]) => ({
        condition: { urlPattern: new URLPattern({ pathname: path, search: '' }) }, source: { cacheName: CACHE },
      })),
    ]);
  } catch { /* an older form of the API: the fetch handler serves them */ }
}

sw.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') sw.skipWaiting();
});

sw.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const keys = await caches.keys();
    await Promise.all(keys
      .filter((k) => k.startsWith(PREFIX) && k !== CACHE)
      .map((k) => caches.delete(k)));
    await sw.clients.claim();
  })());
});

/**
 * This version's copy of `key`, else the network (and the copy kept).
 * @param {string} key a versioned URL, or '/' for the shell page
 * @param {Request} req
 */
async function cacheFirst(key, req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key);
  if (hit) return hit;
  const res = await fetch(key === '/' ? req : key);
  if (res.ok && res.type === 'basic') await cache.put(key, res.clone());
  return res;
}

sw.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== sw.location.origin) return;
  // Never cached: the API (live state) and the health check.
  if (url.pathname.startsWith('/api/') || url.pathname === '/healthz') return;
  if (req.mode === 'navigate') {
    if (APP_PAGE.test(url.pathname) && FILES['/']) event.respondWith(cacheFirst('/', req));
    return;
  }
  const current = FILES[url.pathname];
  if (!current) return;
  // A file of another version (from a page older than this worker, or a retry
  // that must reach the server) goes to the network as asked.
  if (url.search && `${url.pathname}${url.search}` !== current) return;
  event.respondWith(cacheFirst(current, req));
});
