// A phone without a seat at this table: a name form while the lobby is open,
// otherwise a pointer to the host's rejoin QR and the big-screen view.

import { api } from '../net.js';
import { lastName, rememberName, setToken } from '../tokens.js';
import { h, showError, typedName } from '../ui.js';

/**
 * @param {HTMLElement} root
 * @param {import('./session.js').Session} session
 * @param {import('../net.js').Snapshot} snap
 * @param {string} [notice] i18n key of a message to show first
 */
export function joinScreen(root, session, snap, notice) {
  const spectateLink = h('a', { href: `/t/${session.id}?view=spectator`, class: 'button', 'data-link': true, t: 'join.spectate' });
  const title = session.title();
  const started = snap.status !== 'lobby';
  // Once the game has started nobody can join again: the lost seat's notice
  // then only says what happened, and the lines below say what to do.
  const key = started && notice === 'join.lost_seat' ? 'join.lost_seat_started' : notice;
  const noticeEl = key ? h('p', { class: 'notice warn', role: 'alert', t: key }) : null;

  if (started) {
    root.append(h('section', { class: 'card', 'aria-labelledby': 'join-title' },
      h('h1', { id: 'join-title', text: title }),
      noticeEl,
      h('p', { t: 'join.started' }),
      h('p', { class: 'hint', t: 'join.started_help' }),
      spectateLink));
    return { update() {}, destroy() {} };
  }

  const nameInput = /** @type {HTMLInputElement} */ (h('input', {
    id: 'join-name', name: 'name', autocomplete: 'nickname', maxlength: 24, required: true, enterkeyhint: 'go',
  }));
  nameInput.value = lastName();
  const submit = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'primary', t: 'join.submit' }));
  const form = h('form', { class: 'stack', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'join-name', t: 'join.your_name' }), nameInput),
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const name = typedName(nameInput);
    if (!name) return;
    submit.disabled = true;
    try {
      const res = await api(`/api/tables/${encodeURIComponent(session.id)}/players`, { method: 'POST', body: { name } });
      rememberName(name);
      setToken(session.id, res.player.token);
      session.restart();
    } catch (e) {
      submit.disabled = false;
      showError(/** @type {any} */ (e), snap.game);
    }
  });

  root.append(h('section', { class: 'card', 'aria-labelledby': 'join-title' },
    h('h1', { id: 'join-title', t: 'join.title' }),
    noticeEl,
    h('p', { class: 'hint', t: 'join.intro', tp: { game: title, count: snap.players.length } }),
    form,
    spectateLink));
  return { update() {}, destroy() {} };
}
