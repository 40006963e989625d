// Manual cards (restrictionSource = manual): the host types in the physical
// restriction card (its 3 digits, in printed order) and the danger-zone card.

import { h } from '../../ui.js';
import { panel } from '../shared.js';

/** @typedef {import('../../games-loader.js').GameContext} Ctx */

/**
 * @param {Ctx} ctx
 */
export function cardsForm(ctx) {
  const title = h('h2', { id: 'cu-cardsform-title' });
  const wait = h('p', { class: 'waiting' });

  // Restriction card: a digit keypad, tapped in printed order.
  const rTitle = h('h3');
  const rHelp = h('p', { class: 'hint' });
  const picked = h('div', { class: 'cu-picked', 'aria-live': 'polite' });
  const keypad = h('div', { class: 'cu-keypad', role: 'group' });
  /** @type {number[]} */
  let digits = [];
  /** @type {HTMLButtonElement[]} */
  const keys = [];
  for (const d of [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]) {
    const b = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'cu-key', text: d, dataset: { digit: d } }));
    b.addEventListener('click', () => {
      if (digits.length < 3 && !digits.includes(d)) digits.push(d);
      render();
    });
    keys.push(b);
    keypad.append(b);
  }
  const clearBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'cu-clear' }));
  clearBtn.addEventListener('click', () => { digits = []; render(); });
  const revealBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary cu-reveal' }));
  const rBox = h('div', { class: 'cu-cardform' }, rTitle, rHelp, picked, keypad, h('div', { class: 'row' }, clearBtn, revealBtn));

  // Danger zone: the configured cards as shortcuts, or any range.
  const dTitle = h('h3');
  const dHelp = h('p', { class: 'hint' });
  const presets = h('div', { class: 'cu-presets', role: 'group' });
  const loLabel = h('label', { for: 'cu-danger-lo' });
  const hiLabel = h('label', { for: 'cu-danger-hi' });
  const lo = /** @type {HTMLInputElement} */ (h('input', { id: 'cu-danger-lo', type: 'text', inputmode: 'numeric', maxlength: 3, autocomplete: 'off' }));
  const hi = /** @type {HTMLInputElement} */ (h('input', { id: 'cu-danger-hi', type: 'text', inputmode: 'numeric', maxlength: 3, autocomplete: 'off' }));
  const dangerBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary cu-danger-send' }));
  const dBox = h('div', { class: 'cu-cardform' }, dTitle, dHelp, presets,
    h('div', { class: 'row cu-range' }, h('div', { class: 'field' }, loLabel, lo), h('div', { class: 'field' }, hiLabel, hi)), dangerBtn);
  for (const x of [lo, hi]) x.addEventListener('input', () => render());

  const el = h('section', { class: 'card cu-cardsform', 'aria-labelledby': 'cu-cardsform-title' }, title, wait, rBox, dBox);
  /** @type {any} */
  let snap = null;
  let busy = false;
  let presetKey = '';

  revealBtn.addEventListener('click', async () => {
    if (digits.length !== 3 || busy) return;
    busy = true;
    render();
    try {
      await ctx.act({ type: 'restriction', digits: [...digits] });
      digits = [];
    } catch { /* shown by the platform */ }
    busy = false;
    render();
  });
  dangerBtn.addEventListener('click', async () => {
    const range = [Number(lo.value), Number(hi.value)];
    if (busy || !validRange()) return;
    busy = true;
    render();
    try {
      await ctx.act({ type: 'danger', range });
      lo.value = '';
      hi.value = '';
    } catch { /* shown by the platform */ }
    busy = false;
    render();
  });

  const validRange = () => /^\d{1,3}$/.test(lo.value.trim()) && /^\d{1,3}$/.test(hi.value.trim())
    && Number(lo.value) >= 1 && Number(lo.value) <= Number(hi.value);

  function render() {
    if (!snap) return;
    const v = snap.view;
    el.hidden = v.phase !== 'cards';
    if (el.hidden) return;
    const legal = snap.legal || [];
    const canR = v.restriction_pending && legal.some((/** @type {any} */ a) => a.type === 'restriction');
    const canD = v.danger_pending && legal.some((/** @type {any} */ a) => a.type === 'danger');
    title.textContent = ctx.t('cardsform.title', { round: v.round });
    wait.hidden = canR || canD;
    wait.textContent = ctx.t('cardsform.wait');
    rBox.hidden = !canR;
    dBox.hidden = !canD;
    rTitle.textContent = ctx.t('cardsform.restriction');
    rHelp.textContent = ctx.t('cardsform.restriction_help');
    keypad.setAttribute('aria-label', ctx.t('cardsform.keypad'));
    picked.replaceChildren(...[0, 1, 2].map((i) => h('span', { class: `cu-digit${digits[i] === undefined ? ' empty' : ''}`, text: digits[i] === undefined ? '·' : digits[i] })));
    picked.setAttribute('aria-label', ctx.t('cardsform.picked', { digits: digits.join(' ') || '–' }));
    for (const k of keys) k.disabled = busy || digits.length >= 3 || digits.includes(Number(k.dataset.digit));
    clearBtn.textContent = ctx.t('cardsform.clear');
    clearBtn.disabled = !digits.length || busy;
    revealBtn.textContent = ctx.t('cardsform.reveal');
    revealBtn.disabled = digits.length !== 3 || busy;
    dTitle.textContent = ctx.t('cardsform.danger');
    dHelp.textContent = ctx.t('cardsform.danger_help');
    loLabel.textContent = ctx.t('cardsform.lo');
    hiLabel.textContent = ctx.t('cardsform.hi');
    dangerBtn.textContent = ctx.t('cardsform.danger_send');
    dangerBtn.disabled = busy || !validRange();
    const zones = /** @type {number[][]} */ ((snap.options && snap.options.dangerZones) || []);
    const key = JSON.stringify(zones);
    if (key !== presetKey) {
      presetKey = key;
      presets.replaceChildren(...zones.map((z) => {
        const b = h('button', { type: 'button', class: 'cu-preset', text: `${z[0]}–${z[1]}` });
        b.addEventListener('click', () => { lo.value = String(z[0]); hi.value = String(z[1]); render(); });
        return b;
      }));
    }
    presets.setAttribute('aria-label', ctx.t('cardsform.presets'));
  }

  return panel(el, (next) => { snap = next; }, render);
}
