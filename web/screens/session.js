// /t/<table id>: owns the seat token and the live connection of one table and
// shows the join form, the lobby or the table, whichever the snapshot calls for.

import { Live } from '../live.js';
import { api, fetchSnapshot, sendAction } from '../net.js';
import { fairChanged } from '../snapshot.js';
import { createStore } from '../store.js';
import { clearToken, getToken, setToken } from '../tokens.js';
import { clearError, gameTitle, h, showError, toast, vibrate } from '../ui.js';
import { getLang, t } from '../i18n.js';
import { allowSleep, keepAwake } from '../wake.js';
import { fairTable } from './fair.js';
import { joinScreen } from './join.js';
import { lobbyScreen } from './lobby.js';
import { notFoundScreen } from './notfound.js';
import { tableScreen } from './table.js';

/** How long a move from before a reload may hold the screen once the socket is open. */
const RESUMED_HOLD_MS = 15000;
/** How long a game action refused by other seats' waiting draws goes on being sent again
 * (`sendPastDraws`): each refusal means another seat's draw got in first, so six seats
 * drawing at once wait five draws, each at most the server's wait for a missing link (3 s,
 * `Limits.draw_wait`) after which any phone makes it. */
const DRAW_PATIENCE_MS = 20000;

/**
 * @typedef {import('../app.js').App} App
 * @typedef {import('../app.js').GameInfo} GameInfo
 * @typedef {import('../net.js').Snapshot} Snapshot
 * @typedef {import('../net.js').ConnStatus} ConnStatus
 * @typedef {{snapshot: Snapshot|null, conn: ConnStatus, resumed: number}} SessionState
 *   `resumed`: moves an earlier page of this tab left unanswered, still on their way
 * @typedef {{update: (state: SessionState, prev: SessionState) => void, destroy: () => void}} View
 * @typedef {{
 *   id: string, spectator: boolean, token: string|null, app: App,
 *   store: import('../store.js').Store<SessionState>,
 *   game: () => GameInfo|undefined,
 *   title: (lang?: import('../i18n.js').Lang) => string,
 *   act: (action: {type: string, [k: string]: unknown}, opts?: import('../net.js').ActOptions) => Promise<{version: number, events: unknown[]}>,
 *   restart: (notice?: string) => void,
 *   fair: import('./fair.js').FairTable,
 * }} Session
 */

/**
 * @param {HTMLElement} root
 * @param {App} app
 * @param {string} id
 */
export function tableRoute(root, app, id) {
  const spectator = new URLSearchParams(location.search).get('view') === 'spectator';
  // A rejoin link carries a one-time code in the fragment, which never
  // reaches a server's log; take it out of the address bar at once and
  // redeem it for this phone's own seat token (start()).
  const fragment = new URLSearchParams(location.hash.slice(1));
  /** @type {string|null} */
  let claim = spectator ? null : fragment.get('claim');
  if (fragment.has('claim')) history.replaceState(null, '', location.pathname + location.search);

  let alive = true;
  /** @type {Live|null} */
  let live = null;
  /** @type {View|null} */
  let view = null;
  let viewKind = '';
  /** @type {GameInfo|undefined} */
  let gameInfo;
  let pending = 0;
  /** @type {(() => void)|null} */
  let unsubscribe = null;
  let retryTimer = 0;

  const store = createStore(/** @type {SessionState} */ ({ snapshot: null, conn: 'connecting', resumed: 0 }));

  // The last snapshot this tab saw: a reload opens the table on it at once
  // (the socket brings the current one a round trip later), so a reload
  // without a network, or on one that never answers, still shows the table
  // instead of a spinner. Kept in sessionStorage: this tab only, this seat
  // only, gone with the tab.
  const keptKey = `tablemate.snapshot.${id}`;
  /** @param {Snapshot} snap */
  const keep = (snap) => {
    try {
      sessionStorage.setItem(keptKey, JSON.stringify({ token: session.token, snap, game: gameInfo }));
    } catch { /* full or blocked: not kept */ }
  };
  /** @param {string|null} token @returns {{snap: Snapshot, game: GameInfo|undefined}|null} */
  const kept = (token) => {
    try {
      const v = JSON.parse(sessionStorage.getItem(keptKey) || 'null');
      return v && v.token === token && v.snap ? v : null;
    } catch {
      return null;
    }
  };

  /** @type {Session} */
  const session = {
    id,
    spectator,
    token: null,
    app,
    store,
    game: () => gameInfo,
    title(lang = getLang()) {
      const snap = store.get().snapshot;
      const name = snap ? snap.game : '';
      return gameTitle(gameInfo, lang, name);
    },
    async act(action, opts = {}) {
      const snap = store.get().snapshot;
      const game = snap ? snap.game : undefined;
      if (!session.token) {
        const env = { error: { code: 'bad_token', message: 'Spectators cannot act.' } };
        showError(env.error, game);
        throw env;
      }
      pending++;
      try {
        // Over the live socket when there is one: it queues a tap made while
        // the connection is down and sends it, once, when it is back.
        const queued = live !== null && !live.isOpen();
        if (queued && !opts.quiet) toast(t('conn.queued'));
        const res = await sendPastDraws(action, opts);
        // The push normally arrives first; if it has not, ask for it.
        if (live && live.version < res.version) live.sync();
        return await drawn(res);
      } catch (e) {
        const err = /** @type {import('../net.js').ApiError} */ (e);
        if (!alive || opts.quiet) throw err.envelope || { error: { code: 'error', message: String(e) } };
        if (err.code === 'bad_token') lostSeat();
        else if (err.status === 404) showNotFound();
        else showError(err, game);
        throw err.envelope || { error: { code: 'error', message: String(e) } };
      } finally {
        pending--;
      }
    },
    restart(notice) {
      start(notice);
    },
    // This phone's seeds and checks of the table's fair dice, lobby and game alike.
    fair: fairTable(id, () => session.token, (action) => session.act(action, { quiet: true })),
  };

  /**
   * What becomes of a move an earlier page left unanswered: the screen waits
   * for it (`resumed`), and a refusal says which move it was about. One
   * refused only because another seat's draw waited goes again, as a tap does.
   * @param {Live} from @param {import('../outbox.js').ActionFrame} frame
   * @param {Promise<unknown>} done
   */
  function resumedAnswer(from, frame, done) {
    const settled = () => { if (alive && live === from) store.set({ resumed: Math.max(0, store.get().resumed - 1) }); };
    done.then(settled, (/** @type {import('../net.js').ApiError} */ e) => {
      if (!alive || live !== from || e.code === 'network') { settled(); return; }
      const platform = gameInfo && gameInfo.platform_actions;
      if (e.code === 'draw_pending' && platform && !platform.includes(frame.action.type)) {
        // Still that move, on its way: the screen keeps waiting for it.
        session.act(frame.action, frame.as ? { as: frame.as } : {}).then(settled, settled);
        return;
      }
      settled();
      if (e.code === 'bad_token') lostSeat();
      else if (e.status === 404) showNotFound();
      else {
        toast(t('conn.resumed_refused'));
        const snap = store.get().snapshot;
        showError(e, snap ? snap.game : undefined);
      }
    });
  }

  /**
   * Sends `action`; a game action refused because another seat's draw waits
   * for the phones' links (409 `draw_pending`: a table holds one draw at a
   * time) goes again once that draw is made, as the server decides a change
   * again when another committed first. So four taps on "draw my card" as a
   * King Up! round opens are four cards, not three errors. Not a platform
   * action: an undo or a seat change sent again would act on a table its
   * sender has not seen.
   * @param {{type: string, [k: string]: unknown}} action
   * @param {import('../net.js').ActOptions} opts
   */
  async function sendPastDraws(action, opts) {
    // Without the list of platform actions (the games' list never loaded) nothing goes again.
    const platform = gameInfo && gameInfo.platform_actions;
    const gameAction = !!platform && !platform.includes(action.type);
    const until = Date.now() + DRAW_PATIENCE_MS;
    for (let tries = 0; ; tries++) {
      try {
        return live ? await live.act(action, opts) : await sendAction(id, /** @type {string} */ (session.token), action, opts);
      } catch (e) {
        if (!gameAction || Date.now() >= until || /** @type {any} */ (e).code !== 'draw_pending') throw e;
        await drawMade(until, Math.min(300 * 2 ** tries, 3000));
      }
    }
  }

  /**
   * Resolves once this phone's snapshot shows no draw waiting: at once if it
   * showed one that is now made, else after `quiet` ms (the refusal may come
   * before the draw frame, or no frame reaches this phone: then the sends back
   * off, each refusal counting in the seat's rate limits); at `until` at the latest.
   * @param {number} until @param {number} quiet
   */
  function drawMade(until, quiet) {
    const since = Date.now();
    let seen = false;
    return new Promise((resolve) => {
      /** @param {SessionState} st */
      const check = (st) => {
        const waiting = !!(st.snapshot && st.snapshot.fair && /** @type {any} */ (st.snapshot.fair).pending);
        seen = seen || waiting;
        if (waiting || (!seen && Date.now() - since < quiet)) return;
        done();
      };
      const off = store.subscribe(check);
      const poll = setInterval(() => check(store.get()), 100);
      const timer = setTimeout(() => done(), Math.max(0, until - since));
      function done() { off(); clearInterval(poll); clearTimeout(timer); resolve(undefined); }
      check(store.get());
    });
  }

  /**
   * An action that draws waits for the phones' links (docs/fairness.md,
   * "Chains and pending draws"): its answer is only that the draw is
   * announced. Its own answer, the die or card, comes once the draw is made,
   * in this seat's snapshot (`fair.made`); a screen awaiting it (the die said
   * aloud, the roll shown) gets that. Given up after a while: the board shows
   * the draw anyway.
   * @param {{version: number, events: unknown[]}} res
   * @returns {Promise<{version: number, events: unknown[]}>}
   */
  function drawn(res) {
    const pend = /** @type {any} */ ((res.events || []).find((e) => e && /** @type {any} */ (e).type === 'draw_pending'));
    if (!pend) return Promise.resolve(res);
    return new Promise((resolve) => {
      /** @param {any} st */
      const check = (st) => {
        const made = st.snapshot && st.snapshot.fair ? st.snapshot.fair.made : null;
        if (!made || made.draw !== pend.draw) return false;
        off();
        clearTimeout(timer);
        resolve({ version: made.version, events: made.events });
        return true;
      };
      const off = store.subscribe(check);
      const timer = setTimeout(() => { off(); resolve(res); }, 30000);
      check(store.get());
    });
  }

  function teardown() {
    clearTimeout(retryTimer);
    if (live) live.stop();
    live = null;
    if (unsubscribe) unsubscribe();
    unsubscribe = null;
    if (view) view.destroy();
    view = null;
    viewKind = '';
    allowSleep();
    root.replaceChildren();
  }

  function showNotFound() {
    teardown();
    clearToken(id);
    notFoundScreen(root, 'table');
  }

  function lostSeat() {
    clearToken(id);
    start('join.lost_seat');
  }

  /** @param {SessionState} state @param {SessionState} prev */
  function render(state, prev) {
    const snap = state.snapshot;
    if (!snap) return;
    if (snap !== prev.snapshot) keep(snap);
    // A seed goes out once the socket is up (queued, it could outlive its scope).
    session.fair.update(snap, !spectator && state.conn === 'open', live ? live.heardFrom : null);
    const kind = snap.status === 'lobby' ? 'lobby' : 'table';
    if (kind !== viewKind) {
      if (view) view.destroy();
      root.replaceChildren();
      clearError();
      view = kind === 'lobby' ? lobbyScreen(root, session) : tableScreen(root, session);
      viewKind = kind;
      view.update(state, { snapshot: null, conn: state.conn, resumed: 0 });
      return;
    }
    // Someone else changed the table: a short buzz tells a phone lying on the table
    // (not for another phone's fair-dice seed, which changes nothing on it).
    if (prev.snapshot && snap.version > prev.snapshot.version && pending === 0 && !spectator
      && !fairChanged(snap, prev.snapshot)) vibrate(25);
    if (view) view.update(state, prev);
  }

  /**
   * Redeems the rejoin link's code: this phone gets a seat token of its own
   * (the host, who showed the code, never held one). A code used or expired
   * is said on the join form; a network failure tries again.
   * @returns {Promise<string|undefined|false>} a notice for the join form, or false: wait for a retry
   */
  async function redeem() {
    const code = claim;
    if (!code) return undefined;
    root.append(h('p', { class: 'loading', t: 'common.loading' }));
    try {
      const res = /** @type {{player: {id: string, token: string}}} */ (
        await api(`/api/tables/${encodeURIComponent(id)}/claim`, { method: 'POST', body: { claim: code } }));
      setToken(id, res.player.token);
      claim = null;
      return undefined;
    } catch (e) {
      const err = /** @type {import('../net.js').ApiError} */ (e);
      if (err.code === 'claim_not_found') { claim = null; return 'join.claim_used'; }
      if (err.status && err.status < 500 && err.status !== 429) { claim = null; showError(err); return undefined; }
      showError(err);
      return false;
    }
  }

  /** @param {string} [notice] i18n key of a message for the join form */
  async function start(notice) {
    teardown();
    if (claim) {
      const said = await redeem();
      if (!alive) return;
      if (said === false) {
        retryTimer = window.setTimeout(() => { if (alive) start(notice); }, 3000);
        return;
      }
      notice = said || notice;
      root.replaceChildren();
    }
    const token = spectator ? null : getToken(id);
    session.token = token;
    root.append(h('p', { class: 'loading', t: 'common.loading' }));
    /** @type {Snapshot} */
    let snap;
    const old = token ? kept(token) : null;
    if (old) {
      snap = old.snap;
      gameInfo = old.game;
    } else {
      try {
        const [s, list] = await Promise.all([fetchSnapshot(id, token), app.games().catch(() => [])]);
        snap = s;
        gameInfo = list.find((g) => g.name === snap.game);
      } catch (e) {
        if (!alive) return;
        const err = /** @type {import('../net.js').ApiError} */ (e);
        if (err.status === 404) { showNotFound(); return; }
        if (err.status === 401 && token) { lostSeat(); return; }
        showError(err);
        retryTimer = window.setTimeout(() => { if (alive) start(notice); }, 3000);
        return;
      }
    }
    if (!alive) return;
    root.replaceChildren();

    if (!token && !spectator) {
      view = joinScreen(root, session, snap, notice);
      viewKind = 'join';
      return;
    }

    keepAwake();
    unsubscribe = store.subscribe(render);
    live = new Live({
      table: id,
      token,
      onState: (s) => store.set({ snapshot: s }),
      onStatus: (c) => {
        // Taps still waiting when the connection drops: say they are not lost.
        if (c === 'offline' && store.get().conn !== 'offline' && live && live.queued > 0) toast(t('conn.queued'));
        if (c === 'open' && store.get().resumed > 0) {
          // A move from before the reload that the server has not answered in this
          // long on an open socket (it may never: a frame it closes the socket on)
          // no longer holds the screen; it still waits in the outbox.
          const opened = live;
          window.setTimeout(() => { if (alive && live === opened) store.set({ resumed: 0 }); }, RESUMED_HOLD_MS);
        }
        store.set({ conn: c });
      },
      onFatal: (e) => {
        if (!alive) return;
        if (e.status === 404) showNotFound();
        else if (e.code === 'bad_token' && token) lostSeat();
        else showError(e);
      },
      onError: (e) => showError(e, snap.game),
    });
    // Taps an earlier page of this tab left unanswered (a reload, iOS
    // discarding the page) go first on the socket: the toast said they would.
    const resumed = live.resume();
    store.set({ snapshot: null, conn: 'connecting', resumed: resumed.waiting.length });
    live.accept(snap);
    // In the alert, not the toast: the first snapshot's "Your turn" would replace it at once.
    if (resumed.unsure) showError({ code: 'resumed_unsure', message: t('conn.resumed_unsure') });
    else if (resumed.stale) showError({ code: 'resumed_stale', message: t('conn.resumed_stale') });
    for (const w of resumed.waiting) resumedAnswer(live, w.frame, w.done);
    // The socket opens in a task of its own: on a slow phone creating it is
    // ~30 ms that would otherwise lengthen the first render's task.
    const opening = live;
    window.setTimeout(() => { if (alive && live === opening) opening.start(); }, 0);
  }

  start();

  return {
    destroy() {
      alive = false;
      teardown();
    },
  };
}
