// A paused seat's own phone (issue 33). The host took the seat off this phone
// (`phoneless`) and enters its moves: the phone keeps its token and shows the
// table as a spectator would, with this card in the thumb's reach saying so.
// Once the host hands the seat back (`phone_back`), the card asks its owner to
// continue here (`resume`): only then do the seat's secrets show again.

import { translateElement } from '../i18n.js';
import { h } from '../ui.js';

/**
 * @param {import('./session.js').Session} session
 * @param {(pid: string) => string} name a seat's name
 */
export function pausedCard(session, name) {
  const title = h('h2', { id: 'paused-title' });
  const text = h('p', { class: 'hint' });
  const go = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary paused-continue' }));
  const el = h('section', { class: 'paused-card', 'aria-labelledby': 'paused-title', role: 'alert', hidden: true },
    title, text, go);
  go.addEventListener('click', async () => {
    go.disabled = true;
    try {
      await session.act({ type: 'resume' });
    } catch { /* shown by session.act */ }
    go.disabled = false;
  });

  /** @param {HTMLElement} node @param {string} key @param {Record<string, unknown>} [params] */
  const say = (node, key, params) => {
    // Keyed, so a change of language translates it again (i18n.translateTree).
    node.dataset.i18n = key;
    if (params) node.dataset.i18nParams = JSON.stringify(params);
    else delete node.dataset.i18nParams;
    translateElement(node);
  };

  return {
    el,
    /** @param {import('../net.js').Snapshot} snap */
    update(snap) {
      const paused = session.spectator ? undefined : snap.paused;
      el.hidden = !paused;
      if (!paused || !snap.me) return;
      const me = name(snap.me);
      const host = name(snap.host);
      if (paused === 'phoneless') {
        say(title, 'paused.title');
        say(text, 'paused.text', { host });
        go.hidden = true;
      } else {
        say(title, 'paused.back_title');
        say(text, 'paused.back_text', { host });
        say(go, 'paused.continue', { name: me });
        go.hidden = false;
      }
    },
  };
}
