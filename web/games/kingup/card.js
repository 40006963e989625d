// My secret goal card: recording the printed card (a 6-of-13 picker), drawing
// from the virtual deck, and, once known, where my 6 characters stand and what
// they would score now. Only this seat's own card ever reaches this phone.

import { h } from '../../ui.js';
import { CHARS, posText, token } from './common.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 */

/**
 * Thirteen toggles; the caller keeps the chosen set between snapshots.
 * @param {Ctx} ctx
 * @param {any} view
 * @param {{picked: Set<string>, onchange: () => void, disabled?: boolean, label: string}} o
 */
export function picker(ctx, view, o) {
  const count = h('p', { class: 'ku-picked', 'aria-live': 'polite', text: ctx.t('card.picked', { n: o.picked.size }) });
  const grid = h('div', { class: 'ku-picker', role: 'group', 'aria-label': o.label }, ...CHARS.map((ch) => token(ctx, view, ch, {
    selectable: o.picked.has(ch) || o.picked.size < 6,
    selected: o.picked.has(ch),
    pressed: o.picked.has(ch),
    disabled: Boolean(o.disabled) || (!o.picked.has(ch) && o.picked.size >= 6),
    onclick: () => {
      if (o.picked.has(ch)) o.picked.delete(ch);
      else if (o.picked.size < 6) o.picked.add(ch);
      o.onchange();
    },
  })));
  return h('div', { class: 'ku-picker-box' }, grid, count);
}

/**
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {{busy: boolean, pick: Set<string>, rerender: () => void,
 *          act: (a: Record<string, unknown>) => Promise<boolean>}} ui
 * @returns {HTMLElement|null}
 */
export function myCard(ctx, snap, ui) {
  const view = snap.view;
  const me = view.me;
  if (!me) return null;
  const legal = snap.legal || [];
  const virtual = view.goal_deck === 'virtual';
  const full = view.play_mode === 'full';
  const parts = [h('h2', { id: 'ku-card-title', text: ctx.t('card.title') })];
  if (virtual) parts.push(h('p', { class: 'ku-virtual' }, h('span', { class: 'badge ku-virtual-badge', text: ctx.t('card.virtual') }), ' ', ctx.t('card.virtual_help')));

  if (legal.some((/** @type {any} */ a) => a.type === 'goal')) {
    parts.push(h('p', { class: 'hint', text: ctx.t('card.pick') }));
    parts.push(picker(ctx, view, { picked: ui.pick, onchange: ui.rerender, disabled: ui.busy, label: ctx.t('card.title') }));
    parts.push(h('button', {
      type: 'button', class: 'primary ku-save-card', disabled: ui.busy || ui.pick.size !== 6, text: ctx.t('card.save'),
      onclick: () => { ui.act({ type: 'goal', characters: CHARS.filter((c) => ui.pick.has(c)) }).then((ok) => { if (ok) ui.pick.clear(); }); },
    }));
  } else if (legal.some((/** @type {any} */ a) => a.type === 'draw_goal')) {
    parts.push(h('button', {
      type: 'button', class: 'primary ku-draw-card', disabled: ui.busy, text: ctx.t('card.draw'),
      onclick: () => { ui.act({ type: 'draw_goal' }); },
    }));
  } else if (me.goal) {
    if (virtual && me.goal_card !== null && me.goal_card !== undefined) {
      parts.push(h('p', { class: 'hint ku-card-no', text: ctx.t('card.virtual_no', { n: me.goal_card }) }));
    }
    const scoring = full && view.phase !== 'score_entry';
    parts.push(h('ul', { class: 'ku-goal', 'aria-label': ctx.t('card.title') }, ...me.goal.map((/** @type {string} */ ch) => {
      const pos = view.positions[ch];
      return h('li', { dataset: { char: ch } },
        token(ctx, view, ch, { small: true }),
        scoring ? h('span', { class: 'ku-where', text: posText(ctx, pos) }) : null,
        scoring ? h('span', { class: 'ku-pts', text: ctx.t('points', { n: me.projected ? me.projected.points[ch] : 0 }) }) : null);
    })));
    if (scoring && me.projected) {
      parts.push(h('p', { class: 'ku-projected' }, h('strong', { text: ctx.t('card.projected', { score: me.projected.score }) })));
      parts.push(h('p', { class: 'hint', text: ctx.t('card.projected_help') }));
    }
    parts.push(h('p', { class: 'hint', text: ctx.t('card.secret') }));
  }
  return h('section', { class: 'card ku-card', 'aria-labelledby': 'ku-card-title' }, ...parts);
}

/**
 * "Waiting for secret cards: Mina, Bora" while a crowned round (or the board entry)
 * cannot be scored yet.
 * @param {Ctx} ctx
 * @param {any} view
 */
export function missingCards(ctx, view) {
  const missing = view.players.filter((/** @type {string} */ p) => !view.goal_cards_in.includes(p));
  if (!missing.length) return null;
  return h('p', { class: 'notice ku-missing', text: ctx.t('card.missing', { names: missing.map((/** @type {string} */ p) => ctx.name(p)).join(', ') }) });
}
