// The connection indicator: connected, connecting, or offline (reconnecting).
// The same state is on <html data-connection> (connection.js), for styles and tests.
// A phone that cannot hear the server may show an old table: then a banner
// pinned to the top of the screen says so wherever the page is scrolled, and
// the screen it covers is greyed (style.css, `.stale`). A move an earlier page
// left unanswered (a reload) is on its way: a note says so until it is
// answered, and the screen's controls wait for it (`.sending`), or a tap made
// again meanwhile would be a second move.

import { h } from '../ui.js';
import { translateElement } from '../i18n.js';

const KEYS = { open: 'table.connected', connecting: 'table.connecting', offline: 'table.reconnecting' };
/** What takes no input while a move from before a reload is on its way (style.css `.sending`). */
const SENDING_HELD = '.game-area, .card, .undo-sheet, button[aria-controls="undo-sheet"]';
/** A first connection this slow is shown as stale too: a reload without a
 * network opens on the snapshot kept from before and may never connect. */
const SLOW_FIRST_MS = 4000;

export function connBadge() {
  const el = h('span', { class: 'conn connecting', role: 'status', t: KEYS.connecting });
  const banner = h('div', { class: 'stale-banner', role: 'alert', hidden: true },
    h('strong', { t: 'conn.stale_title' }), ' ', h('span', { t: 'conn.stale_body' }));
  const note = h('p', { class: 'banner sending-note', role: 'status', hidden: true, t: 'conn.resumed' });
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
    note,
    /** @param {boolean} on a move from before the reload still waits for its answer */
    sending(on) {
      if (note.hidden !== on) return;
      note.hidden = !on;
      if (screen) {
        screen.classList.toggle('sending', on);
        if (on) screen.setAttribute('aria-busy', 'true');
        else screen.removeAttribute('aria-busy');
        // style.css stops the taps; `inert` the keyboard and switch access too.
        for (const el of screen.querySelectorAll(SENDING_HELD)) el.toggleAttribute('inert', on);
      }
    },
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
