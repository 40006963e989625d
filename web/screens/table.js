// The table during play: hosts the game module, shows the connection, the
// public scores, the history and (for the host) undo and seat tools.

import { loadGame } from '../games-loader.js';
import { fairOnly, presenceOnly } from '../snapshot.js';
import { has, onLangChange, t } from '../i18n.js';
import { dismissToast, h, showError, toast, vibrate } from '../ui.js';
import { connBadge } from './conn.js';
import { fairLine } from './fair.js';
import { gameContext } from './game-context.js';
import { historyPanel } from './history.js';
import { hostAwayBanner } from './hostship.js';
import { pausedCard } from './paused.js';
import { momentCard } from './moment.js';
import { pinCard } from './pin.js';
import { turnFold } from './turn.js';
import { reminderField } from './reminder.js';
import { resultsCard } from './results.js';
import { undoSheet } from './undo.js';
import { waitingBar } from './waiting.js';
import { figureLine } from './figures.js';
import { phonelessTools } from './phoneless.js';
import { proxyBar, shownSnapshot } from './proxies.js';
import { noPhoneMark, seatsComponent } from './seats.js';

/**
 * @param {HTMLElement} root
 * @param {import('./session.js').Session} session
 * @returns {import('./session.js').View}
 */
export function tableScreen(root, session) {
  const conn = connBadge();
  const titleEl = h('h1', { id: 'table-title', text: session.title() });
  const roundEl = h('p', { class: 'eyebrow' });
  // A new table is the results card's last link: play again (the same seats,
  // nobody scans again) comes first there.
  const hostAway = hostAwayBanner();
  const overBanner = h('div', { class: 'banner over', hidden: true }, h('strong', { t: 'table.over' }));
  /** @type {string|null} the status last drawn (null: none yet, the table just opened) */
  let lastStatus = null;
  const scoreboard = h('ul', { class: 'scoreboard', id: 'scoreboard', label: 'table.players' });
  // The game's own screen is built off the page and put in place of the
  // loading line once drawn (see loadGame below).
  const gameArea = h('div', { class: 'game-area', 'aria-live': 'off' });
  const gameLoading = h('div', { class: 'game-area' }, h('p', { class: 'loading', t: 'table.game_loading' }));
  // The history, worded on this phone (./history.js).
  const hist = historyPanel(session, () => snap);
  const seats = seatsComponent(session, 'table');
  const phoneless = phonelessTools(session);
  // "Entering for": the seats without a phone this phone may act for (./proxies.js).
  const proxies = proxyBar((pid) => ctx.name(pid), () => {
    if (alive && instance && snap) instance.update(shownSnapshot(snap, proxies.entering));
  });
  const pin = pinCard(session, 'table');
  const results = resultsCard(session);
  // The fair dice: the open scope's 4 words, this phone's last check (./fair.js).
  const fair = fairLine(session.fair, () => snap, (pid) => ctx.name(pid));
  const reminder = reminderField(session, 'table-reminder');
  const playersPanel = h('section', { class: 'card panel', id: 'players-panel', hidden: true, 'aria-labelledby': 'players-title' },
    h('h2', { id: 'players-title', t: 'table.players' }), seats.el, phoneless.el, reminder.el);
  // Whom the game waits for, and this phone's own seat while paused: both in
  // the bottom bar, in sight wherever the screen is scrolled (issue 33).
  const seatName = (/** @type {string} */ pid) => ctx.name(pid);
  const waiting = waitingBar(session, seatName);
  // The latest scoring, above the game, until a tap puts it away (./moment.js).
  const moment = momentCard(session.id, seatName);
  const paused = pausedCard(session, seatName);

  /** @param {HTMLElement} panel @param {HTMLElement} btn */
  const toggler = (panel, btn) => () => {
    const show = panel.hidden;
    for (const [p, b] of [[hist.el, historyBtn], [playersPanel, playersBtn]]) {
      p.hidden = true;
      b.setAttribute('aria-expanded', 'false');
    }
    panel.hidden = !show;
    btn.setAttribute('aria-expanded', String(show));
    if (show && panel === playersPanel) renderPlayers();
    // Its top in view, once it has its lines: scrolled while the history was still
    // loading, the panel was a heading and came to rest behind the bottom bar.
    const inView = () => { if (!panel.hidden) panel.scrollIntoView({ block: 'start' }); };
    if (show && panel === hist.el) hist.load().then(inView, inView);
    else if (show) inView();
  };
  const historyBtn = h('button', { type: 'button', t: 'table.history', 'aria-expanded': 'false', 'aria-controls': 'history-panel' });
  const playersBtn = h('button', { type: 'button', t: 'table.players', 'aria-expanded': 'false', 'aria-controls': 'players-panel' });
  historyBtn.addEventListener('click', toggler(hist.el, historyBtn));
  playersBtn.addEventListener('click', toggler(playersPanel, playersBtn));
  // This phone's turn in view, the scores folded meanwhile (./turn.js).
  const turn = turnFold(gameArea);
  // Undo asks first, in a sheet above the bar (./undo.js).
  const undo = undoSheet(session, () => snap);
  // `game-pending` until the game's screen is in place: the scores and the
  // fair line below wait for it (style.css), so its arrival moves nothing
  // already on screen (a seat's first load shifted them by 0.05-0.08 CLS).
  const screenEl = h('section', { class: 'table game-pending', 'aria-labelledby': 'table-title' },
    conn.banner,
    h('div', { class: 'screen-head' }, h('div', null, roundEl, titleEl), conn.el),
    conn.note,
    session.spectator ? h('p', { class: 'tag', t: 'table.spectator' }) : null,
    overBanner,
    hostAway.el,
    results.el,
    pin.el,
    turn.button,
    scoreboard,
    moment.el,
    proxies.el,
    gameLoading,
    fair.el,
    hist.el,
    playersPanel,
    h('div', { class: 'bottom-bar' }, paused.el, session.spectator ? null : undo.sheet, waiting.sheet, waiting.line,
      h('div', { class: 'row bar-buttons' }, historyBtn, playersBtn, session.spectator ? null : undo.button)));
  conn.covers(screenEl);
  root.append(screenEl);

  /** @type {import('../net.js').Snapshot|null} */
  let snap = null;
  /** @type {import('../games-loader.js').GameInstance|null} */
  let instance = null;
  let alive = true;
  /** @type {Array<() => void>} */
  const offs = [];
  let wasMyTurn = false;
  /** @type {any} the loaded game module (its yourTurn, strings) */
  let module = null;

  /**
   * The game's word for its rounds where it has one (Camel Up's legs), else the platform's.
   * @param {string} name `round`
   */
  function roundKey(name) {
    const own = snap ? `${snap.game}.table.${name}` : '';
    return own && has(own) ? own : `table.${name}`;
  }

  function renderScoreboard() {
    if (!snap) return;
    scoreboard.replaceChildren(...snap.players.map((p) => h('li', { class: p.id === snap?.me ? 'mine' : '' },
      h('span', { class: 'seat-name', text: p.name }),
      p.id === snap?.me ? h('span', { class: 'badge you', t: 'seats.you' }) : null,
      noPhoneMark(p),
      p.connected === false && p.phone !== false ? h('span', { class: 'dot off', role: 'img', label: 'seats.offline' }) : null,
      // The figures' words come with the game's module: until then a figure
      // would show its key ("money 3").
      module ? figureLine(snap?.game || '', p, snap?.status === 'over') : null)));
  }

  // What the game module may ask of this screen (./game-context.js).
  const ctx = gameContext(session, proxies, () => snap, () => alive, offs);

  /** "Your turn" (toast + vibration) when it becomes this phone's turn. Waits
   * for the game module, which knows what a turn is in its game. */
  function announceTurn() {
    if (!snap || !module) return;
    const shown = shownSnapshot(snap, proxies.entering);
    const myTurn = snap.status === 'playing' && shown.me !== null
      && (module.yourTurn ? module.yourTurn(shown) : ctx.gameLegal(shown).length > 0);
    if (myTurn && !wasMyTurn) {
      toast(t('table.your_turn'));
      vibrate([80, 40, 80]);
    } else if (!myTurn && wasMyTurn) {
      // The turn passed (a quick move): the toast goes with it (issue 41 item 7).
      dismissToast(t('table.your_turn'));
    }
    wasMyTurn = myTurn;
  }

  /**
   * @param {import('./session.js').SessionState} state
   * @param {import('./session.js').SessionState} [prev] the store's last state
   */
  function update(state, prev) {
    conn.set(state.conn);
    conn.sending(state.resumed > 0);
    if (!state.snapshot) return;
    // Only the connection changed (the socket opened, say): the badge is all
    // there is to draw (the actions' availability follows <html data-connection>).
    if (prev && prev.snapshot === state.snapshot && snap === state.snapshot) return;
    const prevSnap = snap;
    snap = state.snapshot;
    if (fairOnly(prevSnap, snap)) {
      // Only a phone's fair-dice seed came in (net.js kept every other field
      // but the server's clock): the game module still learns the version it
      // shows (what a big screen and the tests wait on), and finds every part
      // it drew unchanged.
      fair.render();
      waiting.update(snap);
      if (instance) instance.update(shownSnapshot(snap, proxies.entering));
      return;
    }
    if (presenceOnly(prevSnap, snap)) {
      // Only who is connected changed (a phone's socket opened or dropped):
      // the seats' dots are all there is to draw. Redrawing the game for it was
      // a whole render (~250 ms at 4x CPU) right after every socket connects.
      renderScoreboard();
      if (!playersPanel.hidden) renderPlayers();
      return;
    }
    titleEl.textContent = session.title();
    if (snap.round) {
      // A game may call its rounds otherwise (Camel Up's legs).
      const key = roundKey('round');
      roundEl.dataset.i18n = key;
      roundEl.dataset.i18nParams = JSON.stringify({ round: snap.round });
      roundEl.textContent = t(key, { round: snap.round });
    } else {
      delete roundEl.dataset.i18n;
      roundEl.textContent = '';
    }
    overBanner.hidden = snap.status !== 'over';
    const ended = snap.status === 'over' && lastStatus !== null && lastStatus !== 'over';
    lastStatus = snap.status;
    hostAway.update(snap);
    const isHost = !session.spectator && snap.me !== null && snap.me === snap.host;
    undo.update(snap, isHost);
    renderScoreboard();
    if (!playersPanel.hidden) renderPlayers();
    renderProxies();
    pin.update(snap);
    paused.update(snap);
    waiting.update(snap);
    results.update(snap);
    hist.update(snap);
    if (instance) instance.update(shownSnapshot(snap, proxies.entering));
    // A module may say what "my turn" means for its game (a host who may
    // always name a caller is not therefore always "on turn"); after the
    // game's draw, whose marks say what of the turn to bring into view.
    announceTurn();
    turn.update();
    showMoment();
    fair.render();
    // The game ended while this phone watched the board, scrolled down to it: the
    // results and "play again" are at the top, thousands of pixels away.
    if (ended) overBanner.scrollIntoView({ block: 'start' });
  }

  /** The game's latest scoring, said aloud by the host's phone (./moment.js). */
  function showMoment() {
    if (!snap || !module || !module.moment) return;
    const m = module.moment(shownSnapshot(snap, proxies.entering), ctx);
    const speaker = (m && m.speaker) || snap.host;
    moment.update(m, { speaks: !session.spectator && snap.me !== null && snap.me === speaker, game: snap.game });
  }

  /** The seats panel, drawn only while it is open: closed, it was a third of
   * a table's first render on a slow phone (~50 ms at 4x CPU) for nothing shown. */
  function renderPlayers() {
    if (!snap || !module) return;
    seats.update(snap);
    phoneless.update(snap);
    reminder.update(snap);
  }

  /** The "Enter moves for" switcher; on this phone's turn the bar folds away,
   * unless a seat it enters for has something to do now too (Count Up's caller
   * declares for a paper seat). */
  function renderProxies() {
    if (!snap) return;
    screenEl.classList.toggle('proxies-idle', proxies.update(snap));
  }

  const gameName = session.store.get().snapshot?.game || '';
  loadGame(gameName).then((mod) => {
    if (!alive) return;
    module = mod;
    instance = mod.mount(gameArea, ctx);
    // The module's strings are loaded now: figure labels can be translated.
    renderScoreboard();
    if (!playersPanel.hidden) renderPlayers();
    // Mounting and the first draw, each its own task (on a slow phone together
    // they were one ~100 ms task): the screen is still off the page, so nothing
    // half-built is ever shown and it is laid out once.
    window.setTimeout(() => {
      if (!alive || !instance) return;
      try {
        if (snap) instance.update(shownSnapshot(snap, proxies.entering));
      } catch (e) {
        showError({ code: 'error', message: String(e) });
      }
      gameLoading.replaceWith(gameArea);
      screenEl.classList.remove('game-pending');
      announceTurn();
      turn.update();
      showMoment();
    }, 0);
  }).catch((e) => {
    // No game's screen to wait for: the scores and the fair line show as they are.
    screenEl.classList.remove('game-pending');
    showError({ code: 'error', message: String(e) });
  });

  offs.push(onLangChange(() => {
    if (!snap) return;
    titleEl.textContent = session.title();
    renderScoreboard();
    fair.render();
    waiting.relabel();
    reminder.relabel();
    showMoment();
    hist.relabel();
  }));
  // A check came back: the history's marks follow it.
  offs.push(session.fair.onChange(() => hist.remark()));
  offs.push(fair.destroy);

  return {
    update,
    destroy() {
      alive = false;
      hist.destroy();
      conn.destroy();
      waiting.destroy();
      for (const off of offs) off();
      results.destroy();
      moment.destroy();
      if (instance) instance.destroy();
      instance = null;
    },
  };
}
