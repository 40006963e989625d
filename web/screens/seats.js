// The seat list with the host's tools: reorder (lobby), rename, remove
// (lobby), hand over host powers, and a per-seat rejoin QR for a lost phone.
// Used by the lobby and by the table's "Players" panel (with each seat's
// figures, figures.js). The tools for seats without a phone: phoneless.js.

import { api } from '../net.js';
import { confirmButton, h, showError } from '../ui.js';
import { figureLine } from './figures.js';

/**
 * The "no phone" mark of a seat without a phone (null for a seat with one).
 * @param {import('../net.js').Player} p
 */
export function noPhoneMark(p) {
  return p.phone === false
    ? h('span', { class: 'badge no-phone', t: 'seats.no_phone', label: 'seats.no_phone_label', tp: { name: p.name } })
    : null;
}

/**
 * @param {import('./session.js').Session} session
 * @param {'lobby'|'table'} mode
 */
export function seatsComponent(session, mode) {
  const list = h('ol', { class: 'seats', label: 'lobby.seats' });
  /** @type {import('../net.js').Snapshot|null} */
  let snap = null;
  /** @type {string|null} seat whose tools are open */
  let open = null;
  let draft = '';
  /** @type {{pid: string, svg: string, url: string}|null} */
  let rejoin = null;
  let busy = false;

  /** @param {{type: string, [k: string]: unknown}} action @param {{version?: number}} [opts] */
  async function act(action, opts) {
    busy = true;
    render();
    try {
      await session.act(action, opts);
      return true;
    } catch {
      return false; // already shown by session.act
    } finally {
      busy = false;
      render();
    }
  }

  /** @param {number} i @param {number} dir */
  function move(i, dir) {
    if (!snap) return;
    const from = snap.players.map((p) => p.id);
    const j = i + dir;
    if (j < 0 || j >= from.length) return;
    const order = [...from];
    [order[i], order[j]] = [order[j], order[i]];
    // With the order it was made from, not the version: a tap computed from an
    // older order must not win, but the anchor each phone sends as it joins
    // must not refuse a tap made just before this screen heard of it.
    act({ type: 'seats', order, from });
  }

  /** @param {string} pid */
  async function makeRejoin(pid) {
    try {
      const res = await api(`/api/tables/${encodeURIComponent(session.id)}/players/${encodeURIComponent(pid)}/rejoin`,
        { method: 'POST', body: {}, token: session.token });
      rejoin = { pid, svg: res.qr_svg, url: res.rejoin_url };
      render();
      const img = list.querySelector('.qr-box img');
      if (img) img.scrollIntoView({ block: 'center' });
    } catch (e) {
      showError(/** @type {any} */ (e), snap ? snap.game : undefined);
    }
  }

  /**
   * @param {import('../net.js').Player} p
   * @param {boolean} isHost
   */
  function panel(p, isHost) {
    if (!snap) return null;
    const name = p.name;
    const input = /** @type {HTMLInputElement} */ (h('input', {
      id: `rename-${p.id}`, maxlength: 24, autocomplete: 'off', 'data-focus-key': `rename-${p.id}`,
    }));
    input.value = draft;
    input.addEventListener('input', () => { draft = input.value; });
    const form = h('form', { class: 'rename', novalidate: true },
      h('label', { for: `rename-${p.id}`, t: 'seats.new_name', tp: { name } }),
      h('div', { class: 'row' }, input, h('button', { type: 'submit', t: 'common.save', disabled: busy })));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const next = draft.trim();
      if (!next || next === name) return;
      if (await act({ type: 'rename', player: p.id, name: next })) open = null;
      render();
    });
    const tools = h('div', { class: 'row wrap' });
    const lobby = snap.status === 'lobby';
    const phoneless = p.phone === false;
    // A stand-in holds host powers until the host is back (snap.host_away): the
    // host's seat stays the host's, and the powers are not the stand-in's to give.
    const hostSeat = p.id === snap.host_away;
    if (isHost && p.id !== snap.me) {
      // A seat without a phone cannot hold host powers: it has no phone to use them.
      if (!phoneless && !snap.host_away) {
        tools.append(confirmButton({
          key: `host:${p.id}`, t: 'seats.make_host', confirm: 'seats.make_host_confirm', tp: { name },
          onConfirm: () => { act({ type: 'host', player: p.id }); },
        }));
      }
      tools.append(confirmButton({
        key: `rejoin:${p.id}`, t: phoneless ? 'seats.give_phone' : 'seats.rejoin', confirm: 'seats.rejoin_confirm', tp: { name },
        onConfirm: () => { makeRejoin(p.id); },
      }));
      // A live phone leaves its seat only by its own choice (issue 37): the host
      // may take a seat off a phone that has no live socket.
      if (!phoneless && !hostSeat && snap.status !== 'over' && p.connected !== true) {
        tools.append(confirmButton({
          key: `phoneless:${p.id}`, t: 'seats.phoneless', confirm: 'seats.phoneless_confirm', tp: { name },
          onConfirm: () => { act({ type: 'phoneless', player: p.id }); },
        }));
      }
      // Its own phone kept its token (paused): the seat goes back to it, where
      // the rules allow now (the server says why not, as the waiting sheet does).
      if (p.paused === true && snap.status !== 'over') {
        tools.append(confirmButton({
          key: `back:${p.id}`, t: 'stall.hand_back', confirm: 'stall.hand_back_confirm', tp: { name },
          onConfirm: () => { act({ type: 'phone_back', player: p.id }); },
        }));
      }
      if (lobby && !hostSeat) {
        tools.append(confirmButton({
          key: `remove:${p.id}`, t: 'seats.remove', confirm: 'seats.remove_confirm', tp: { name }, class: 'danger',
          onConfirm: () => { open = null; act({ type: 'remove', player: p.id }); },
        }));
      }
    }
    if (!isHost && p.id === snap.me && !phoneless && snap.status !== 'over') {
      tools.append(confirmButton({
        key: `self-phoneless:${p.id}`, t: 'seats.self_phoneless', confirm: 'seats.self_phoneless_confirm', tp: { name },
        onConfirm: () => { act({ type: 'phoneless', player: p.id }); },
      }));
    }
    let qr = null;
    if (rejoin && rejoin.pid === p.id) {
      qr = h('figure', { class: 'qr-box small' },
        h('img', {
          src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(rejoin.svg)}`,
          alt: 'seats.rejoin_alt', tp: { name }, width: 240, height: 240,
        }),
        h('figcaption', { t: 'seats.rejoin_help', tp: { name } }));
    }
    return h('div', { class: 'seat-panel', id: `seat-panel-${p.id}` }, form, tools, qr);
  }

  function render() {
    if (!snap) return;
    const active = /** @type {HTMLElement|null} */ (document.activeElement);
    const focusKey = active && list.contains(active) ? active.dataset.focusKey : undefined;
    const isHost = !session.spectator && snap.me !== null && snap.me === snap.host;
    const lobby = snap.status === 'lobby';
    const last = snap.players.length - 1;
    const rows = snap.players.map((p, i) => {
      const mine = p.id === snap?.me;
      const canManage = !session.spectator && (isHost || mine);
      const main = h('div', { class: 'seat-main' },
        h('span', { class: 'seat-no', 'aria-hidden': 'true', text: i + 1 }),
        h('span', { class: 'seat-name', text: p.name }),
        p.host ? h('span', { class: 'badge host', t: 'seats.host' }) : null,
        mine ? h('span', { class: 'badge you', t: 'seats.you' }) : null,
        noPhoneMark(p),
        p.connected === undefined || p.phone === false ? null : h('span', {
          class: `dot ${p.connected ? 'on' : 'off'}`, role: 'img', label: p.connected ? 'seats.online' : 'seats.offline',
        }),
        mode === 'table' ? figureLine(snap?.game || '', p, snap?.status === 'over') : null);
      const tools = h('div', { class: 'seat-tools' });
      if (isHost && lobby) {
        tools.append(
          h('button', {
            type: 'button', class: 'icon', label: 'seats.move_up', tp: { name: p.name }, disabled: busy || i === 0,
            'data-focus-key': `up-${p.id}`, onclick: () => move(i, -1),
          }, '↑'),
          h('button', {
            type: 'button', class: 'icon', label: 'seats.move_down', tp: { name: p.name }, disabled: busy || i === last,
            'data-focus-key': `down-${p.id}`, onclick: () => move(i, 1),
          }, '↓'));
      }
      if (canManage) {
        tools.append(h('button', {
          type: 'button', class: 'icon', label: 'seats.manage', tp: { name: p.name },
          'aria-expanded': String(open === p.id), 'aria-controls': `seat-panel-${p.id}`,
          'data-focus-key': `manage-${p.id}`,
          onclick: () => {
            open = open === p.id ? null : p.id;
            draft = p.name;
            if (rejoin && rejoin.pid !== open) rejoin = null;
            render();
          },
        }, '⋯'));
      }
      return h('li', { class: `seat${mine ? ' mine' : ''}`, 'data-player': p.id },
        h('div', { class: 'seat-row' }, main, tools),
        open === p.id && canManage ? panel(p, isHost) : null);
    });
    if (open && !snap.players.some((p) => p.id === open)) open = null;
    list.replaceChildren(...rows);
    // Re-rendering replaces the buttons; keep the keyboard/screen-reader focus.
    if (focusKey) {
      const again = /** @type {HTMLElement|null} */ (list.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`));
      if (again && !(/** @type {HTMLButtonElement} */ (again).disabled)) again.focus();
    }
  }

  return {
    el: list,
    /** @param {import('../net.js').Snapshot} s */
    update(s) {
      snap = s;
      render();
    },
  };
}
