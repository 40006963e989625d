// The host's reminder for a late player (issue 33), off by default: after how
// long a wait the late phone rings and every phone shows the wait
// (./waiting.js). The host picks it in the lobby's rules (and may change it
// from the table's players panel); the other phones read it there.

import { t } from '../i18n.js';
import { h } from '../ui.js';

/** What the web offers (seconds; 0: off). The server takes any whole number up to 600. */
export const CHOICES = [0, 30, 60, 120];

/**
 * A setting in words: "Off", "30 s", "1 min", "1 min 30 s".
 * @param {number} seconds
 */
export function reminderText(seconds) {
  if (!seconds) return t('reminder.off');
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return [m ? t('reminder.minutes', { n: m }) : '', s ? t('reminder.seconds', { n: s }) : ''].filter(Boolean).join(' ');
}

/**
 * @param {import('./session.js').Session} session
 * @param {string} id the select's id (a screen may show it once)
 */
export function reminderField(session, id) {
  const select = /** @type {HTMLSelectElement} */ (h('select', { id }));
  const value = h('strong', { class: 'reminder-value' });
  const label = h('label', { for: id, class: 'rule-label', t: 'reminder.label' });
  const el = h('div', { class: 'reminder-field' }, label, select, value, h('p', { class: 'hint', t: 'reminder.help' }));
  let shown = -1;
  select.addEventListener('change', async () => {
    const before = shown;
    try {
      await session.act({ type: 'reminder', seconds: Number(select.value) });
    } catch {
      select.value = String(before); // shown by session.act
    }
  });

  /** @param {number} current */
  function fill(current) {
    const opts = CHOICES.includes(current) ? CHOICES : [...CHOICES, current].sort((a, b) => a - b);
    select.replaceChildren(...opts.map((s) => h('option', { value: String(s), text: reminderText(s) })));
    select.value = String(current);
  }

  return {
    el,
    /** @param {import('../net.js').Snapshot} snap */
    update(snap) {
      const isHost = !session.spectator && snap.me !== null && snap.me === snap.host;
      const current = snap.reminder || 0;
      select.hidden = !isHost;
      value.hidden = isHost;
      value.textContent = reminderText(current);
      if (isHost) label.setAttribute('for', id);
      else label.removeAttribute('for');
      if (current !== shown || select.options.length === 0) fill(current);
      shown = current;
    },
    /** The language changed: the choices' words. */
    relabel() {
      fill(shown < 0 ? 0 : shown);
      value.textContent = reminderText(shown < 0 ? 0 : shown);
    },
  };
}
