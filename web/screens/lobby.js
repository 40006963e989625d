// The lobby: a large QR code and the short code to join, share/copy, the seat
// list (the host orders it clockwise), the rules in words, and the start button near the thumb.

import { loadGame } from '../games-loader.js';
import { onLangChange, t } from '../i18n.js';
import { optionLines } from './options.js';
import { copyText, h, toast } from '../ui.js';
import { connBadge } from './conn.js';
import { hostAwayBanner } from './hostship.js';
import { pausedCard } from './paused.js';
import { pinCard } from './pin.js';
import { reminderField } from './reminder.js';
import { phonelessTools } from './phoneless.js';
import { seatsComponent } from './seats.js';

/**
 * @param {HTMLElement} root
 * @param {import('./session.js').Session} session
 * @returns {import('./session.js').View}
 */
export function lobbyScreen(root, session) {
  // The server's join_url (it knows its public address) when it sends one.
  const first = session.store.get().snapshot;
  const joinUrl = (first && typeof first.join_url === 'string' && first.join_url) || `${location.origin}/t/${session.id}`;
  const bigUrl = `${joinUrl}?view=spectator`;
  const conn = connBadge();
  const gameName = h('p', { class: 'eyebrow', text: session.title() });
  const codeEl = h('strong', { class: 'code', id: 'lobby-code' });
  const codeLine = h('p', { class: 'code-line' }, h('span', { t: 'lobby.code' }), ' ', codeEl);
  const seats = seatsComponent(session, 'lobby');
  const phoneless = phonelessTools(session);
  const pin = pinCard(session, 'lobby');
  const count = h('p', { class: 'count' });
  const limit = h('p', { class: 'notice', hidden: true });
  // The rules in words: what differs from the printed rules first, highlighted;
  // every rule one tap away.
  const rulesSummary = h('div', { class: 'rules-summary' });
  const rulesList = h('ul', { class: 'rules-list' });
  const rulesAllLabel = h('span');
  const rulesAll = h('details', { class: 'rules-all' }, h('summary', null, rulesAllLabel), rulesList);
  // The host's reminder for a late player, a setting of the table beside its game's rules.
  const reminder = reminderField(session, 'lobby-reminder');
  const optionsBox = h('section', { class: 'card rules', 'aria-labelledby': 'lobby-rules' },
    h('h2', { id: 'lobby-rules', t: 'lobby.options' }), rulesSummary, rulesAll, reminder.el);

  const copy = async (/** @type {string} */ text) => {
    toast(t((await copyText(text)) ? 'lobby.copied' : 'lobby.copy_failed'));
  };
  const share = async () => {
    const snap = session.store.get().snapshot;
    const data = { title: 'Tablemate', text: t('lobby.share_text', { game: session.title(), code: snap ? snap.code : '' }), url: joinUrl };
    try {
      await navigator.share(data);
    } catch (e) {
      if (/** @type {Error} */ (e).name !== 'AbortError') copy(joinUrl);
    }
  };
  const shareRow = h('div', { class: 'row' },
    typeof navigator.share === 'function' ? h('button', { type: 'button', t: 'lobby.share', onclick: share }) : null,
    h('button', { type: 'button', t: 'lobby.copy', onclick: () => copy(joinUrl) }));

  const startBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary', t: 'lobby.start' }));
  startBtn.addEventListener('click', async () => {
    startBtn.disabled = true;
    try {
      await session.act({ type: 'start' });
    } catch {
      startBtn.disabled = false; // the error is already shown
    }
  });
  const waiting = h('p', { class: 'waiting', t: 'lobby.waiting' });

  const bigScreen = h('details', { class: 'big-screen' },
    h('summary', { t: 'lobby.big_screen' }),
    h('p', { class: 'hint', t: 'lobby.big_screen_help' }),
    h('p', { class: 'link-text', text: bigUrl }),
    h('button', { type: 'button', t: 'lobby.copy_big_screen', onclick: () => copy(bigUrl) }));

  // A seat the host took off its phone in the lobby: this phone says so, and
  // continues here once handed back.
  const paused = pausedCard(session, (pid) => {
    const snap = session.store.get().snapshot;
    const p = snap && snap.players.find((x) => x.id === pid);
    return p ? p.name : pid;
  });
  const hostAway = hostAwayBanner();
  // After "play again": which game of the evening comes next and who set it up,
  // so a guest's phone that jumped from the results to here says why.
  const eveningLine = h('p', { class: 'banner evening-next', id: 'evening-next', role: 'status', hidden: true });
  const footer = h('div', { class: 'bottom-bar stack' }, paused.el, count, limit, startBtn, waiting);

  const screenEl = h('section', { class: 'lobby', 'aria-labelledby': 'lobby-title' },
    conn.banner,
    h('div', { class: 'screen-head' }, h('div', null, gameName, h('h1', { id: 'lobby-title', t: 'lobby.title' })), conn.el),
    conn.note,
    session.spectator ? h('p', { class: 'tag', t: 'lobby.spectator' }) : null,
    hostAway.el,
    eveningLine,
    h('div', { class: 'card join-card' },
      h('h2', { class: 'center', t: 'lobby.scan' }),
      h('figure', { class: 'qr-box' },
        h('img', { src: `/api/tables/${encodeURIComponent(session.id)}/qr.png`, alt: 'lobby.qr_alt', width: 320, height: 320 })),
      codeLine,
      h('p', { class: 'link-line' }, h('span', { t: 'lobby.link' }), ' ', h('span', { class: 'link-text', id: 'lobby-link', text: joinUrl })),
      session.spectator ? null : shareRow),
    h('section', { class: 'card', 'aria-labelledby': 'lobby-seats' },
      h('h2', { id: 'lobby-seats', t: 'lobby.seats' }),
      h('p', { class: 'hint', t: 'lobby.order_hint' }),
      seats.el,
      phoneless.el),
    pin.el,
    optionsBox,
    session.spectator ? null : bigScreen,
    session.spectator ? null : footer);
  conn.covers(screenEl);
  root.append(screenEl);

  /** @type {import('./session.js').SessionState|null} */
  let last = null;

  /**
   * @param {import('./session.js').SessionState} state
   * @param {import('./session.js').SessionState} [prev] the store's last state (none: draw anew)
   */
  function update(state, prev) {
    last = state;
    conn.set(state.conn);
    conn.sending(state.resumed > 0);
    const snap = state.snapshot;
    // Only the connection changed (the socket opened, say): nothing else to draw.
    if (!snap || (prev && prev.snapshot === snap)) return;
    gameName.textContent = session.title();
    codeEl.textContent = snap.code || '';
    // A table without a code (one started before codes were kept) is joined by its link.
    codeLine.hidden = !snap.code;
    seats.update(snap);
    hostAway.update(snap);
    const next = snap.evening;
    eveningLine.hidden = !next;
    if (next) {
      const by = snap.players.find((p) => p.id === next.by)?.name || next.by;
      eveningLine.dataset.i18n = next.by === snap.me ? 'lobby.evening_you' : 'lobby.evening';
      eveningLine.dataset.i18nParams = JSON.stringify({ game: next.game, name: by });
      eveningLine.textContent = t(eveningLine.dataset.i18n, { game: next.game, name: by });
    }
    phoneless.update(snap);
    pin.update(snap);
    paused.update(snap);
    reminder.update(snap);
    const n = snap.players.length;
    count.textContent = t('lobby.count', { count: n, min: snap.min_players, max: snap.max_players });
    const isHost = snap.me !== null && snap.me === snap.host;
    const short = n < snap.min_players;
    const over = n > snap.max_players;
    limit.hidden = !(short || over);
    limit.textContent = short ? t('lobby.need_more', { min: snap.min_players }) : over ? t('lobby.too_many', { max: snap.max_players }) : '';
    startBtn.hidden = !isHost;
    startBtn.disabled = short || over;
    waiting.hidden = isHost;
    renderRules(snap);
  }

  /** @param {import('../net.js').Snapshot} snap */
  function renderRules(snap) {
    const info = session.game();
    const lines = optionLines(snap.game, info && info.options_schema, /** @type {Record<string, unknown>} */ (snap.options || {}));
    const changed = lines.filter((l) => l.changed);
    rulesSummary.hidden = rulesAll.hidden = lines.length === 0;
    rulesSummary.replaceChildren(
      ...(changed.length ? [h('ul', { class: 'rules-changed' }, ...changed.map((l) => h('li', null,
        h('mark', null, h('span', { class: 'rule-label', text: `${l.label}: ` }), h('strong', { text: l.value })))))] : []),
      h('p', { class: 'hint', text: changed.length ? t('lobby.rules_rest', { count: lines.length - changed.length }) : t('lobby.rules_standard') }));
    rulesAllLabel.textContent = t('lobby.rules_all', { count: lines.length });
    rulesList.replaceChildren(...lines.map((l) => h('li', { class: l.changed ? 'changed' : '', 'data-option': l.key },
      h('span', { class: 'rule-label', text: l.label }),
      h('span', { class: 'rule-value' }, h('strong', { text: l.value }), l.changed ? h('span', { class: 'badge changed', t: 'lobby.rule_changed' }) : null),
      l.help ? h('span', { class: 'hint', text: l.help }) : null)));
  }

  // The option labels and values are the game's strings: load them here too,
  // the lobby is the first screen a player who scans the code sees.
  let alive = true;
  const initial = session.store.get().snapshot;
  if (initial) {
    loadGame(initial.game).then(() => { if (alive && last) update(last); }).catch(() => { /* labels stay keys */ });
  }

  const offLang = onLangChange(() => { reminder.relabel(); if (last) update(last); });
  return {
    update,
    destroy() {
      alive = false;
      conn.destroy();
      offLang();
    },
  };
}
