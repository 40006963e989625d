// The seat's recovery PIN. Chosen on the seat's own phone (lobby or table); if
// that phone dies mid-game, the host's rejoin code opens the seat on another
// phone with its secrets hidden ("sealed") until this PIN is entered, so the
// host, who sees the rejoin code first, cannot read them.

import { t } from '../i18n.js';
import { h, toast } from '../ui.js';

/**
 * @param {import('./session.js').Session} session
 * @param {'lobby'|'table'} where at the table only a sealed seat sees it (a
 *   PIN is chosen in the lobby, where nobody is busy playing)
 * @returns {{el: HTMLElement, update: (snap: import('../net.js').Snapshot) => void}}
 */
export function pinCard(session, where) {
  const input = /** @type {HTMLInputElement} */ (h('input', {
    type: 'password', inputmode: 'numeric', autocomplete: 'off', pattern: '[0-9]{4,8}',
    maxlength: 8, minlength: 4, id: 'seat-pin', class: 'pin-input',
  }));
  const label = h('label', { for: 'seat-pin', t: 'pin.label' });
  const title = h('h2', { id: 'pin-title' });
  const text = h('p', { class: 'hint' });
  const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'primary' }));
  const form = h('form', { class: 'pin-form row' }, label, input, button);
  const el = h('section', { class: 'card pin-card', 'aria-labelledby': 'pin-title', hidden: true }, title, text, form);
  /** @type {'set'|'unlock'} */
  let mode = 'set';

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const pin = input.value.trim();
    if (!/^[0-9]{4,8}$/.test(pin)) {
      toast(t('pin.format'));
      return;
    }
    button.disabled = true;
    try {
      // A secret: never kept across a reload (outbox.js).
      await session.act({ type: mode === 'unlock' ? 'unlock' : 'pin', pin }, { secret: true });
      input.value = '';
      toast(t(mode === 'unlock' ? 'pin.unlocked' : 'pin.saved'));
    } catch {
      // the error is shown by the session (bad_pin, rate_limited, ...)
    } finally {
      button.disabled = false;
    }
  });

  /** @param {string} key @param {HTMLElement} node */
  const say = (key, node) => { node.dataset.i18n = key; node.textContent = t(key); };

  return {
    el,
    update(snap) {
      const seated = !session.spectator && snap.me !== null && typeof snap.sealed === 'boolean';
      el.hidden = !seated || (where === 'table' ? !snap.sealed : snap.status !== 'lobby');
      if (el.hidden) return;
      if (snap.sealed) {
        mode = 'unlock';
        el.classList.add('sealed');
        say('pin.sealed_title', title);
        say(snap.pin ? 'pin.sealed_text' : 'pin.sealed_no_pin', text);
        form.hidden = !snap.pin;
        say('pin.unlock', button);
      } else {
        mode = 'set';
        el.classList.remove('sealed');
        say(snap.pin ? 'pin.set_title_done' : 'pin.set_title', title);
        say('pin.set_text', text);
        form.hidden = false;
        say(snap.pin ? 'pin.change' : 'pin.save', button);
      }
    },
  };
}
