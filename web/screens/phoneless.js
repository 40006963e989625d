// The host's tools for seats without a phone, beside the seat list (lobby and
// table): add such a seat, and let any phone enter for them.

import { api } from '../net.js';
import { h, showError } from '../ui.js';

/**
 * The host's tools for seats without a phone: add one (lobby) and whether any
 * phone may enter for them. Hidden from the other phones.
 * @param {import('./session.js').Session} session
 */
export function phonelessTools(session) {
  /** @type {import('../net.js').Snapshot|null} */
  let snap = null;
  const input = /** @type {HTMLInputElement} */ (h('input', { id: 'add-phoneless', maxlength: 24, autocomplete: 'off' }));
  const addBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', t: 'seats.add' }));
  const form = h('form', { class: 'add-phoneless', novalidate: true },
    h('label', { for: 'add-phoneless', t: 'seats.add_phoneless_name' }),
    h('div', { class: 'row' }, input, addBtn));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const name = input.value.trim();
    if (!name) return;
    addBtn.disabled = true;
    try {
      await api(`/api/tables/${encodeURIComponent(session.id)}/players`,
        { method: 'POST', body: { name, phone: false }, token: session.token });
      input.value = '';
    } catch (e) {
      showError(/** @type {any} */ (e), snap ? snap.game : undefined);
    } finally {
      addBtn.disabled = false;
    }
  });
  const adder = h('details', { class: 'phoneless-add' },
    h('summary', { t: 'seats.add_phoneless' }), h('p', { class: 'hint', t: 'seats.add_phoneless_help' }), form);
  const all = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'proxies-all' }));
  all.addEventListener('change', async () => {
    try {
      await session.act({ type: 'proxies', who: all.checked ? 'all' : 'host' });
    } catch {
      all.checked = !all.checked; // shown by session.act
    }
  });
  // A checkbox row as every form has them (.check): the box beside its words.
  const proxies = h('div', { class: 'check proxies-all' }, all, h('label', { for: 'proxies-all', t: 'seats.proxies_all' }));
  const el = h('div', { class: 'phoneless-tools', hidden: true }, adder, proxies);
  return {
    el,
    /** @param {import('../net.js').Snapshot} s */
    update(s) {
      snap = s;
      const isHost = !session.spectator && s.me !== null && s.me === s.host;
      el.hidden = !isHost;
      adder.hidden = s.status !== 'lobby';
      proxies.hidden = !s.players.some((p) => p.phone === false);
      all.checked = s.proxies_who === 'all';
    },
  };
}
