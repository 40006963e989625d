// What a game module may ask of the table screen (games-loader.js's
// GameContext): its words before the platform's, who this phone is (or the
// seat without a phone it enters for), a seat's name, and its actions sent as
// that seat. The table screen builds one for the module it mounts.

import { getLang, has, onLangChange, t } from '../i18n.js';
import { vibrate } from '../ui.js';
import { shownSnapshot } from './proxies.js';

/**
 * What `snap.legal` holds for the game itself: everything but the actions the
 * platform handles, whose list GET /api/games publishes with each game.
 * @param {import('../net.js').Snapshot} snap
 * @param {import('../app.js').GameInfo|undefined} game
 */
export function gameLegal(snap, game) {
  const platform = new Set((game && game.platform_actions) || []);
  return (snap.legal || []).filter((a) => !platform.has(a.type));
}

/**
 * @param {import('./session.js').Session} session
 * @param {ReturnType<typeof import('./proxies.js').proxyBar>} proxies the "Entering for" switcher
 * @param {() => import('../net.js').Snapshot|null} current the snapshot the screen draws now
 * @param {() => boolean} shown whether the screen is still on the page
 * @param {Array<() => void>} offs the screen's undo list: the module's language listeners go there
 * @returns {import('../games-loader.js').GameContext}
 */
export function gameContext(session, proxies, current, shown, offs) {
  return {
    t(key, params) {
      const snap = current();
      const game = snap ? snap.game : '';
      return game && has(`${game}.${key}`) ? t(`${game}.${key}`, params) : t(key, params);
    },
    get lang() { return getLang(); },
    get me() {
      const snap = current();
      return snap ? shownSnapshot(snap, proxies.entering).me : null;
    },
    get game() {
      const snap = current();
      return snap ? snap.game : '';
    },
    name(pid) {
      const snap = current();
      const p = snap && snap.players.find((x) => x.id === pid);
      return p ? p.name : pid;
    },
    act(action, opts = {}) {
      const snap = current();
      // `player` and `host` are set by the server from the token; a template
      // may carry `host: true` as a "host only" marker, which is not payload.
      const { player: _player, host: _host, ...payload } = action;
      // Entering for a seat without a phone: every action of the game screen
      // goes as it; a screen may also name such a seat for one action (`as`),
      // e.g. the caller's one tap for a paper seat's raised hand.
      const may = (/** @type {string|null|undefined} */ pid) => (pid && snap && snap.proxies && snap.proxies[pid] ? pid : undefined);
      const once = may(opts.as);
      const as = once || may(proxies.entering);
      // `quiet`: an action the phone sends by itself (no tap) shows no refusal; its caller does.
      const sent = session.act(/** @type {{type: string}} */ (payload), { ...(as ? { as } : {}), ...(opts.quiet ? { quiet: true } : {}) });
      // An entry made for the seat chosen in the switcher brings the phone back
      // to its own seat: on its own turn, a phone still "entering for" another
      // seat showed every button greyed.
      if (!once && as) sent.then(() => { if (shown() && proxies.entering === as) proxies.enterFor(null); }, () => { /* stays, to try again */ });
      return sent;
    },
    vibrate,
    gameLegal(s) { return gameLegal(s, session.game()); },
    title() { return session.title(); },
    onLangChange(cb) {
      const off = onLangChange(cb);
      offs.push(off);
      return off;
    },
  };
}
