// The lobby: a large QR code and the short code to join, share/copy, the seat
// list (the host orders it clockwise), and the start button near the thumb.

import { has, onLangChange, t } from '../i18n.js';
import { copyText, h, toast } from '../ui.js';
import { connBadge } from './conn.js';
import { pinCard } from './pin.js';
import { figureText, seatsComponent } from './seats.js';

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
  const seats = seatsComponent(session, 'lobby');
  const pin = pinCard(session, 'lobby');
  const count = h('p', { class: 'count' });
  const limit = h('p', { class: 'notice', hidden: true });
  const optionsList = h('dl', { class: 'kv' });
  const optionsBox = h('details', { class: 'options', hidden: true }, h('summary', { t: 'lobby.options' }), optionsList);

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

  const footer = h('div', { class: 'bottom-bar stack' }, count, limit, startBtn, waiting);

  root.append(h('section', { class: 'lobby', 'aria-labelledby': 'lobby-title' },
    h('div', { class: 'screen-head' }, h('div', null, gameName, h('h1', { id: 'lobby-title', t: 'lobby.title' })), conn.el),
    session.spectator ? h('p', { class: 'tag', t: 'lobby.spectator' }) : null,
    h('div', { class: 'card join-card' },
      h('h2', { class: 'center', t: 'lobby.scan' }),
      h('figure', { class: 'qr-box' },
        h('img', { src: `/api/tables/${encodeURIComponent(session.id)}/qr.svg`, alt: 'lobby.qr_alt', width: 320, height: 320 })),
      h('p', { class: 'code-line' }, h('span', { t: 'lobby.code' }), ' ', codeEl),
      h('p', { class: 'link-line' }, h('span', { t: 'lobby.link' }), ' ', h('span', { class: 'link-text', id: 'lobby-link', text: joinUrl })),
      session.spectator ? null : shareRow),
    h('section', { class: 'card', 'aria-labelledby': 'lobby-seats' },
      h('h2', { id: 'lobby-seats', t: 'lobby.seats' }),
      h('p', { class: 'hint', t: 'lobby.order_hint' }),
      seats.el),
    pin.el,
    optionsBox,
    session.spectator ? null : bigScreen,
    session.spectator ? null : footer));

  /** @type {import('./session.js').SessionState|null} */
  let last = null;

  /** @param {import('./session.js').SessionState} state */
  function update(state) {
    last = state;
    conn.set(state.conn);
    const snap = state.snapshot;
    if (!snap) return;
    gameName.textContent = session.title();
    codeEl.textContent = snap.code || '—';
    seats.update(snap);
    pin.update(snap);
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
    const entries = Object.entries(snap.options || {});
    optionsBox.hidden = entries.length === 0;
    optionsList.replaceChildren(...entries.flatMap(([k, v]) => {
      const label = has(`${snap.game}.option.${k}`) ? t(`${snap.game}.option.${k}`) : k;
      const value = has(`${snap.game}.option.${k}.${v}`) ? t(`${snap.game}.option.${k}.${v}`) : figureText(v);
      return [h('dt', { text: label }), h('dd', { text: value })];
    }));
  }

  const offLang = onLangChange(() => { if (last) update(last); });
  return {
    update,
    destroy() {
      offLang();
    },
  };
}
