// The pyramid: this leg's dice tents, the die that just came out (on every
// phone at once), the big roll button, shake-to-roll, the typed-in physical
// die (diceSource = manual) and, in pyramid-only mode, "next leg".

import { h } from '../../ui.js';
import { GREY, colourName, colourWord, dieEl, dieText, greyFace } from './common.js';

/** @typedef {import('./common.js').Ctx} Ctx @typedef {import('./common.js').Tent} Tent */

/**
 * The tents (5 per leg) and the dice still in the pyramid.
 * @param {Ctx} ctx
 * @param {any} view
 * @param {{tent: Tent|null, fresh: boolean, text: string|null}} last the die just rolled
 */
export function tentsCard(ctx, view, last) {
  const tents = view.tents || [];
  const slots = [];
  for (let i = 0; i < view.tents_per_leg; i++) {
    const tent = tents[i];
    const fresh = last.fresh && i === tents.length - 1 && last.tent !== null;
    slots.push(h('li', { class: `cm-tent ${tent ? 'full' : 'empty'}`, dataset: { n: String(i + 1) } },
      tent ? dieEl(ctx, view, tent, { fresh }) : h('span', { class: 'cm-tent-empty', role: 'img', 'aria-label': ctx.t('pyramid.tent_empty', { n: i + 1 }) })));
  }
  const left = view.pyramid || [];
  const leftText = left.length
    ? ctx.t('pyramid.left', { dice: left.map((/** @type {string} */ d) => colourName(ctx, view, d)).join(', ') })
    : ctx.t('pyramid.left_none');
  const lastBox = last.tent || last.text ? h('div', { class: `cm-last ${last.fresh ? 'fresh' : ''}`, 'aria-live': 'polite' },
    last.tent ? dieEl(ctx, view, last.tent, { big: true, fresh: last.fresh }) : null,
    h('div', { class: 'cm-last-text' },
      h('span', { class: 'cm-last-title', text: ctx.t(last.tent && (view.tents || []).length ? 'pyramid.last' : 'pyramid.last_leg_die') }),
      h('strong', { class: 'cm-last-die', text: last.tent ? dieText(ctx, view, last.tent) : String(last.text) }))) : null;
  return h('section', { class: 'card cm-pyramid', 'aria-labelledby': 'cm-tents-title' },
    h('h2', { id: 'cm-tents-title', class: 'cm-small-title', text: ctx.t('pyramid.tents') }),
    h('ol', { class: 'cm-tents', dataset: { count: String(tents.length) } }, ...slots),
    h('p', { class: 'cm-left' },
      ...left.map((/** @type {string} */ d) => h('span', {
        class: `cm-left-die ${d === GREY ? 'cm-die-grey' : `cm-c-${colourWord(view, d)}`}`,
        'aria-hidden': 'true',
        dataset: { die: d },
      })),
      h('span', { class: 'hint cm-left-text', text: leftText })),
    lastBox);
}

/**
 * The roll button, and what comes with it: the shake toggle, the physical-die
 * form, "next leg" in pyramid-only mode.
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {{busy: boolean, shake: {state: string, toggle: () => void}, manual: {die: string|null, value: number|null, color: string|null},
 *          setManual: (m: Partial<{die: string|null, value: number|null, color: string|null}>) => void,
 *          act: (a: Record<string, unknown>) => Promise<any>, roll: () => void, sel?: unknown}} ui
 */
export function rollControl(ctx, snap, ui) {
  const view = snap.view;
  const legal = snap.legal || [];
  const pyramidOnly = view.mode === 'pyramid';
  const out = [];
  const nextLeg = legal.some((/** @type {any} */ a) => a.type === 'next_leg');
  if (pyramidOnly && view.phase === 'leg_over') {
    out.push(h('p', { class: 'notice cm-leg-done', text: ctx.t('pyramid.leg_done', { leg: view.leg }) }));
    out.push(h('button', {
      type: 'button', class: 'primary cm-next-leg', disabled: ui.busy || !nextLeg, text: ctx.t('pyramid.next_leg'),
      onclick: () => { ui.act({ type: 'next_leg' }); },
    }));
    return h('div', { class: 'cm-roll-box' }, ...out);
  }
  const manual = legal.filter((/** @type {any} */ a) => a.type === 'pyramid_manual');
  if (manual.length) {
    out.push(manualForm(ctx, view, manual, ui));
    return h('div', { class: 'cm-roll-box' }, ...out);
  }
  const can = legal.some((/** @type {any} */ a) => a.type === 'pyramid');
  // While a bet or a tile waits for its confirm, that confirm is the one primary
  // button: two yellow buttons on top of each other invite the wrong tap.
  out.push(h('button', {
    type: 'button',
    class: ui.sel ? 'cm-roll' : 'primary cm-roll',
    disabled: ui.busy || !can,
    text: ui.busy && can ? ctx.t('pyramid.rolling') : ctx.t(pyramidOnly ? 'pyramid.roll_only' : 'pyramid.roll'),
    onclick: () => ui.roll(),
  }));
  if (view.phase !== 'over' && snap.me !== null) {
    const s = ui.shake.state;
    const on = s === 'on';
    out.push(h('button', {
      type: 'button',
      class: `cm-shake ${on ? 'on' : ''}`,
      'aria-pressed': String(on),
      disabled: s === 'none',
      text: ctx.t(on ? 'pyramid.shake_on' : 'pyramid.shake_off'),
      onclick: () => ui.shake.toggle(),
    }));
    const note = s === 'denied' ? 'pyramid.shake_denied' : s === 'none' ? 'pyramid.shake_none' : 'pyramid.shake_help';
    out.push(h('p', { class: 'hint cm-shake-note', text: ctx.t(note) }));
  }
  return h('div', { class: 'cm-roll-box' }, ...out);
}

/**
 * diceSource = manual: tap the die that came out and its face, then send.
 * Only what `legal` lists can be picked.
 * @param {Ctx} ctx @param {any} view @param {any[]} templates
 * @param {Parameters<typeof rollControl>[2]} ui
 */
function manualForm(ctx, view, templates, ui) {
  const m = ui.manual;
  const dice = [...new Set(templates.map((a) => a.die))];
  // Grey faces grouped by colour: W1 W2 W3, then B1 B2 B3.
  const faces = templates.filter((a) => a.die === m.die)
    .sort((a, b) => String(a.color || '').localeCompare(String(b.color || '')) * -1 || a.value - b.value);
  const faceKey = (/** @type {any} */ a) => `${a.color || ''}${a.value}`;
  const chosen = faces.find((a) => a.value === m.value && (a.color || null) === (m.color || null)) || null;
  const dieLabel = (/** @type {string} */ d) => (d === GREY ? ctx.t('colour.grey') : colourName(ctx, view, d));
  return h('div', { class: 'cm-manual', role: 'group', 'aria-labelledby': 'cm-manual-title' },
    h('h3', { id: 'cm-manual-title', text: ctx.t('pyramid.manual_title') }),
    h('div', { class: 'cm-choice-row', role: 'group', 'aria-label': ctx.t('pyramid.manual_die') },
      ...dice.map((d) => h('button', {
        type: 'button',
        class: `cm-pick-die ${d === GREY ? 'cm-die-grey' : `cm-c-${colourWord(view, d)}`}`,
        'aria-pressed': String(m.die === d),
        dataset: { die: d },
        text: dieLabel(d),
        onclick: () => ui.setManual({ die: d, value: null, color: null }),
      }))),
    m.die ? h('div', { class: 'cm-choice-row', role: 'group', 'aria-label': ctx.t('pyramid.manual_value') },
      ...faces.map((a) => h('button', {
        type: 'button',
        class: `cm-pick-face ${a.color ? `cm-die-grey ink-${a.color}` : ''}`,
        'aria-pressed': String(chosen !== null && faceKey(chosen) === faceKey(a)),
        dataset: { value: String(a.value), color: a.color || '' },
        text: a.color ? greyFace(ctx, a) : String(a.value),
        onclick: () => ui.setManual({ value: a.value, color: a.color || null }),
      }))) : null,
    h('button', {
      type: 'button',
      class: 'primary cm-manual-send',
      disabled: ui.busy || !chosen,
      text: chosen ? ctx.t('pyramid.manual_send', { die: dieLabel(chosen.die), value: chosen.color ? greyFace(ctx, chosen) : chosen.value }) : ctx.t('pyramid.roll_only'),
      onclick: () => {
        if (!chosen) return;
        const { player: _p, host: _h, ...action } = chosen;
        ui.act(action).then((ok) => { if (ok) ui.setManual({ die: null, value: null, color: null }); });
      },
    }));
}

/**
 * Shake-to-roll. One shake = one roll: the first strong reading fires, and
 * nothing fires again until the phone has been still for QUIET_MS.
 * States: off, on, denied (iOS refused), none (no motion sensor).
 */
export class Shake {
  static KEY = 'tablemate.camelup.shake';
  static QUIET_MS = 1000;
  /** m/s² without gravity, or with gravity where only that is given */
  static LIMIT = 14;
  static LIMIT_G = 24;

  /**
   * @param {() => void} onShake
   * @param {() => void} onChange
   */
  constructor(onShake, onChange) {
    this.onShake = onShake;
    this.onChange = onChange;
    this.armed = true;
    this.lastHigh = 0;
    this.state = typeof window.DeviceMotionEvent === 'undefined' ? 'none' : 'off';
    this.handler = this.motion.bind(this);
    let stored = false;
    try { stored = localStorage.getItem(Shake.KEY) === '1'; } catch { /* private mode */ }
    // iOS needs a tap to ask again on every page load; elsewhere resume at once.
    if (stored && this.state === 'off' && !Shake.needsPermission()) this.listen();
  }

  static needsPermission() {
    const D = /** @type {any} */ (window.DeviceMotionEvent);
    return Boolean(D && typeof D.requestPermission === 'function');
  }

  /** Called from a tap (iOS only asks for motion access inside a user gesture). */
  async toggle() {
    if (this.state === 'none') return;
    if (this.state === 'on') {
      this.stop();
      this.remember(false);
      this.onChange();
      return;
    }
    if (Shake.needsPermission()) {
      let answer = 'denied';
      try { answer = await /** @type {any} */ (window.DeviceMotionEvent).requestPermission(); } catch { answer = 'denied'; }
      if (answer !== 'granted') {
        this.state = 'denied';
        this.onChange();
        return;
      }
    }
    this.listen();
    this.remember(true);
    this.onChange();
  }

  /** @private */
  listen() {
    window.addEventListener('devicemotion', this.handler);
    this.state = 'on';
    this.armed = true;
  }

  stop() {
    window.removeEventListener('devicemotion', this.handler);
    if (this.state === 'on') this.state = 'off';
  }

  /** @private @param {boolean} on */
  remember(on) {
    try {
      if (on) localStorage.setItem(Shake.KEY, '1');
      else localStorage.removeItem(Shake.KEY);
    } catch { /* not remembered */ }
  }

  /** @private @param {DeviceMotionEvent} e */
  motion(e) {
    const now = Date.now();
    const a = e.acceleration;
    const g = e.accelerationIncludingGravity;
    const mag = (/** @type {DeviceMotionEventAcceleration|null} */ v) => (v && v.x !== null && v.y !== null && v.z !== null
      ? Math.hypot(v.x || 0, v.y || 0, v.z || 0) : null);
    const plain = mag(a);
    const strong = plain !== null ? plain > Shake.LIMIT : (mag(g) || 0) > Shake.LIMIT_G;
    if (!this.armed && now - this.lastHigh > Shake.QUIET_MS) this.armed = true;
    if (!strong) return;
    this.lastHigh = now;
    if (!this.armed) return;
    this.armed = false;
    this.onShake();
  }
}
