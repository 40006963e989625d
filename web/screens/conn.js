// The connection indicator: connected, connecting, or offline (reconnecting).
// The same state is on <html data-connection> (connection.js), for styles and tests.
// A phone that cannot hear the server may show an old table: then a banner
// pinned to the top of the screen says so wherever the page is scrolled, and
// the screen it covers is greyed (style.css, `.stale`).

import { h } from '../ui.js';
import { translateElement } from '../i18n.js';

const KEYS = { open: 'table.connected', connecting: 'table.connecting', offline: 'table.reconnecting' };
/** A first connection this slow is shown as stale too: a reload without a
 * network opens on the snapshot kept from before and may never connect. */
const SLOW_FIRST_MS = 4000;

export function connBadge() {
  const el = h('span', { class: 'conn connecting', role: 'status', t: KEYS.connecting });
  const banner = h('div', { class: 'stale-banner', role: 'alert', hidden: true },
    h('strong', { t: 'conn.stale_title' }), ' ', h('span', { t: 'conn.stale_body' }));
  /** @type {HTMLElement|null} the screen that greys while stale */
  let screen = null;
  let last = '';
  let timer = 0;
  /** @param {boolean} on */
  const stale = (on) => {
    banner.hidden = !on;
    if (screen) screen.classList.toggle('stale', on);
  };
  return {
    el,
    banner,
    /** @param {HTMLElement} s the screen to grey while it may be out of date */
    covers(s) { screen = s; },
    /** @param {import('../net.js').ConnStatus} conn */
    set(conn) {
      if (conn === last) return;
      last = conn;
      el.className = `conn ${conn}`;
      el.dataset.i18n = KEYS[conn];
      translateElement(el);
      clearTimeout(timer);
      if (conn === 'connecting') timer = window.setTimeout(() => stale(true), SLOW_FIRST_MS);
      stale(conn === 'offline');
    },
    destroy() { clearTimeout(timer); },
  };
}
