// "Entering for": the bar that switches the game screen between this phone's
// own seat and a seat without a phone it may enter moves for (snap.proxies).

import { t } from '../i18n.js';
import { h } from '../ui.js';

/**
 * What the game screen is given while this phone enters for the seat
 * `entering` (a seat without a phone): that seat as `me` and its legal list
 * from `proxies`, never its view (the server sends none): the phone's own
 * secrets (`view.me`) are left out, so they are not shown as that seat's.
 * @param {import('../net.js').Snapshot} snap
 * @param {string|null} entering
 * @returns {import('../net.js').Snapshot}
 */
export function shownSnapshot(snap, entering) {
  const legal = entering && snap.proxies ? snap.proxies[entering] : undefined;
  // A paused phone (the host enters its moves), one handed back but not yet
  // continued, and a sealed one (its PIN first) see what a spectator sees:
  // the seat's turn is not this phone's to take, so the game draws a
  // spectator's screen, never "your turn" (issue 41 item 3).
  if (snap.paused || snap.sealed) return { ...snap, me: null };
  if (!entering || !legal) return snap;
  return { ...snap, me: entering, entering, legal, view: { ...snap.view, me: null } };
}

/**
 * @param {(pid: string) => string} name a seat's name
 * @param {(entering: string|null) => void} changed the seat entered for changed (a tap)
 */
export function proxyBar(name, changed) {
  const label = h('span', { class: 'proxy-label', t: 'table.enter_for' });
  const buttons = h('div', { class: 'row wrap proxy-buttons' });
  const now = h('p', { class: 'proxy-now', role: 'status' });
  const el = h('section', { class: 'card proxy-bar', hidden: true, role: 'group', 'aria-labelledby': 'proxy-title' },
    h('h2', { id: 'proxy-title', class: 'sr-only', t: 'table.enter_for' }), label, buttons, now);
  /** @type {string|null} the seat without a phone this phone enters for now */
  let entering = null;
  /** @type {import('../net.js').Snapshot|null} */
  let snap = null;

  /** @param {string|null} pid */
  function enterFor(pid) {
    entering = pid;
    render();
    changed(entering);
  }

  /** Shown while some seat without a phone can be entered for. */
  function render() {
    if (!snap) return;
    const seatsFor = Object.keys(snap.proxies || {});
    if (entering && !seatsFor.includes(entering)) entering = null;
    el.hidden = seatsFor.length === 0 || snap.status !== 'playing';
    el.classList.toggle('active', entering !== null);
    if (el.hidden) return;
    /** @param {string|null} pid @param {string} text */
    const choice = (pid, text) => h('button', {
      type: 'button', class: entering === pid ? 'primary' : '', 'aria-pressed': String(entering === pid),
      'data-proxy': pid || 'self', text,
      onclick: () => enterFor(pid),
    });
    buttons.replaceChildren(choice(null, t('table.enter_self')), ...seatsFor.map((pid) => choice(pid, name(pid))));
    now.textContent = entering ? t('table.entering_for', { name: name(entering) }) : '';
    now.hidden = !entering;
  }

  return {
    el,
    /** The seat entered for now, or null for this phone's own. */
    get entering() { return entering; },
    enterFor,
    /**
     * @param {import('../net.js').Snapshot} next
     * @returns {boolean} whether no seat entered for has anything to do now
     */
    update(next) {
      snap = next;
      render();
      return Object.keys(next.proxies || {}).every((pid) => !(next.proxies?.[pid] || []).length);
    },
  };
}
