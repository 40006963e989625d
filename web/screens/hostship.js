// Host powers while the host's phone is away (server/service/hostship.py):
// every phone says who holds them now and until when; the stand-in is told
// how to bring the host's seat back. The server decides; this only shows it.

import { h } from '../ui.js';

/**
 * The banner of the lobby and the table screen.
 * @returns {{el: HTMLElement, update: (snap: import('../net.js').Snapshot) => void}}
 */
export function hostAwayBanner() {
  const el = h('div', { class: 'banner host-away', id: 'host-away', role: 'status', hidden: true });
  return {
    el,
    update(snap) {
      const away = snap.host_away;
      el.hidden = !away;
      if (!away) { el.replaceChildren(); return; }
      const name = (/** @type {string} */ id) => snap.players.find((p) => p.id === id)?.name || id;
      const tp = { host: name(away), name: name(snap.host) };
      el.replaceChildren(
        h('strong', { t: 'hostship.away', tp }), ' ',
        h('span', { t: snap.me === snap.host ? 'hostship.you_hold' : 'hostship.held', tp }));
    },
  };
}
