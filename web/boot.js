// Inlined into index.html's head by the server (server/http/assets.py), so it runs
// while the parser is still at the top of the page, before any module has
// downloaded: a table page asks for its snapshot now, in parallel with the
// module graph, instead of a round trip after the modules ran. net.js's
// fetchSnapshot takes this answer, once, if it asks for the same table with
// the same seat; otherwise it is never used. A classic script, no imports:
// the key names are those of tokens.js and screens/session.js.
//
// A tab that kept its last snapshot needs no request, but its page may be
// the worker's copy of the home page, which preloads no table screen: the
// table's and its game's modules and stylesheet are asked for now, so they
// do not come one import at a time.
(() => {
  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (!m || typeof fetch !== 'function' || typeof AbortController !== 'function') return;
  const table = m[1];
  /** @param {unknown} game */
  const warm = (game) => {
    /** @type {Record<string, string>} */
    let urls = {};
    try {
      urls = JSON.parse(document.querySelector('script[type="importmap"]')?.textContent || '{}').imports || {};
    } catch { return; }
    /** @param {string} path @param {string} rel @param {string} [as] */
    const hint = (path, rel, as) => {
      if (!urls[path]) return;
      const link = document.createElement('link');
      link.rel = rel;
      if (as) link.as = as;
      link.href = urls[path];
      document.head.append(link);
    };
    hint('/screens/session.js', 'modulepreload');
    hint('/screens/table.js', 'modulepreload');
    if (typeof game === 'string' && /^[a-z][a-z0-9_]{0,40}$/.test(game)) {
      hint(`/games/${game}.js`, 'modulepreload');
      hint(`/games/${game}.css`, 'preload', 'style');
    }
  };
  /** @type {string|null} */
  let token = null;
  if (new URLSearchParams(location.search).get('view') !== 'spectator') {
    // A rejoin link carries a code the page redeems for a new seat token
    // first (screens/session.js): nothing asked for now would be of use.
    if (new URLSearchParams(location.hash.slice(1)).get('claim')) return;
    try {
      token = localStorage.getItem(`tablemate.token.${table}`);
      // The tab opens on the last snapshot it showed and the socket brings
      // the current one: nothing here would be waited for.
      const kept = JSON.parse(sessionStorage.getItem(`tablemate.snapshot.${table}`) || 'null');
      if (token && kept && kept.snap && kept.token === token) {
        warm(kept.snap.game);
        return;
      }
    } catch { /* storage blocked: ask anyway */ }
  }
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const path = `/api/tables/${table}`;
  // As net.js's api(): a request into a silent network must end.
  const abort = new AbortController();
  window.setTimeout(() => abort.abort(), 15000);
  const response = fetch(path, { headers, cache: 'no-store', credentials: 'same-origin', signal: abort.signal });
  response.catch(() => { /* seen by whoever takes it */ });
  /** @type {any} */ (window).tablemateEarly = { path, token, response };
})();
