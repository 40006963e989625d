// The connection indicator: connected, connecting, or offline (reconnecting).
// The same state is on <html data-connection> (net.js), for styles and tests.

import { h } from '../ui.js';
import { translateElement } from '../i18n.js';

const KEYS = { open: 'table.connected', connecting: 'table.connecting', offline: 'table.reconnecting' };

export function connBadge() {
  const el = h('span', { class: 'conn connecting', role: 'status', t: KEYS.connecting });
  let last = '';
  return {
    el,
    /** @param {import('../net.js').ConnStatus} conn */
    set(conn) {
      if (conn === last) return;
      last = conn;
      el.className = `conn ${conn}`;
      el.dataset.i18n = KEYS[conn];
      translateElement(el);
    },
  };
}
