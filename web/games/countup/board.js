// What every phone follows: the cards of the round, who has locked, the big
// current number, the leader, each marker on its 0–20 track, and the
// declarations and collisions as they happen.

import { h } from '../../ui.js';
import { spokenNumber } from './speech.js';

/**
 * @typedef {import('../../games-loader.js').GameContext} Ctx
 * @typedef {{number: number, declared: string[], advanced: string|null, leader: string|null,
 *   counter: string, voided: boolean, end: string|null}} Call
 */

/**
 * The round's cards: restriction card, restricted digits, danger zone.
 * @param {Ctx} ctx
 * @param {any} v the view
 */
export function cardsInfo(ctx, v) {
  const items = [];
  if (v.restriction_card) {
    items.push(h('div', { class: 'cu-card-box' },
      h('span', { class: 'cu-card-label', text: ctx.t('cards.restriction') }),
      h('span', { class: 'cu-card-digits' }, ...v.restriction_card.map((/** @type {number} */ d) => h('span', {
        class: `cu-digit${v.restricted_digits.includes(d) ? ' banned' : ''}`, text: d,
      })))));
  }
  if (v.restricted_digits.length) {
    items.push(h('p', { class: 'cu-rule', text: ctx.t('cards.banned', { digits: v.restricted_digits.join(', ') }) }));
    if (v.restricted_digits.includes(0) && !(v.restriction_card || []).includes(0)) {
      items.push(h('p', { class: 'hint', text: ctx.t('cards.cover_zero') }));
    }
  } else if (v.big_table) {
    items.push(h('p', { class: 'cu-rule', text: ctx.t('cards.big_table', { max: v.max }) }));
  } else if (!v.restriction_pending) {
    items.push(h('p', { class: 'cu-rule', text: ctx.t('cards.none') }));
  }
  if (v.danger_enabled && v.danger) {
    items.push(h('p', { class: 'cu-rule cu-danger', text: ctx.t('cards.danger', { lo: v.danger[0], hi: v.danger[1] }) }));
  }
  items.push(h('p', { class: 'hint', text: ctx.t('cards.range', { top: v.number_range[1], max: v.max }) }));
  return h('section', { class: 'card cu-cards', 'aria-labelledby': 'cu-cards-title' },
    h('h2', { id: 'cu-cards-title', text: ctx.t('cards.title', { round: v.round }) }), ...items);
}

/**
 * Who has locked a sheet (public, like a pencil put down).
 * @param {Ctx} ctx
 * @param {any} snap
 */
export function lockedList(ctx, snap) {
  const players = /** @type {Array<any>} */ (snap.players);
  const done = players.filter((p) => p.locked).length;
  // Seats without a phone write on the paper sheet: nobody waits for them.
  const paper = /** @type {string[]} */ ((snap.view && snap.view.paper) || []);
  const state = (/** @type {any} */ p) => (p.locked ? 'locked.done' : paper.includes(p.id) ? 'locked.paper' : 'locked.waiting');
  return h('section', { class: 'card cu-locked', 'aria-labelledby': 'cu-locked-title' },
    h('h2', { id: 'cu-locked-title', text: ctx.t('locked.title', { done, all: players.length }) }),
    h('ul', { class: 'cu-locked-list' }, ...players.map((p) => h('li', { class: p.locked ? 'done' : 'waiting', dataset: { player: p.id } },
      h('span', { class: 'cu-lock-icon', 'aria-hidden': 'true', text: p.locked ? '✓' : '…' }),
      h('span', { class: 'cu-name', text: ctx.name(p.id) }),
      h('span', { class: 'cu-lock-state', text: ctx.t(state(p)) })))));
}

/**
 * One line of the count's story for a called number where something happened.
 * @param {Ctx} ctx
 * @param {Call} c
 */
export function callText(ctx, c) {
  const names = c.declared.map((p) => ctx.name(p)).join(ctx.lang === 'ko' ? '·' : ', ');
  if (c.declared.length === 1) return ctx.t('log.solo', { n: c.number, name: names });
  if (c.declared.length > 1) return ctx.t(c.voided ? 'log.collision_voided' : 'log.collision', { n: c.number, names });
  return String(c.number);
}

/**
 * The big number, what it did, and who leads.
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {{style: 'sino'|'native'}} prefs
 */
export function numberCard(ctx, snap, prefs) {
  const v = snap.view;
  const c = v.count;
  /** @type {Call[]} */
  const calls = c.calls;
  const last = calls.length ? calls[calls.length - 1] : null;
  const value = c.value;
  const hit = Boolean(last && last.declared.length);
  const mineHit = hit && Array.isArray(v.my_numbers) && v.my_numbers.includes(value);
  const collide = hit && last && last.declared.length > 1;
  const big = h('div', { class: `cu-big${hit ? ' cu-hit' : ''}${collide ? ' cu-collide' : ''}${mineHit ? ' cu-mine' : ''}`, dataset: { value } },
    h('span', { class: 'cu-big-num', id: 'cu-current', text: value ? value : '–' }),
    h('span', { class: 'cu-big-words', text: value ? spokenNumber(value, ctx.lang, prefs.style) : ctx.t('count.ready') }));

  // The round's latest declaration: a collision stays the reason nobody leads
  // for every number after it, until someone declares alone.
  const lastDeclared = [...calls].reverse().find((x) => x.declared.length);
  let status;
  if (c.end) {
    status = ctx.t(c.end === 'marker20' ? 'count.ended_marker20' : 'count.ended_max', { n: value });
  } else if (c.leader) {
    status = ctx.t('count.leader', { name: ctx.name(c.leader), marker: c.markers[c.leader] });
  } else if (lastDeclared && lastDeclared.declared.length > 1) {
    status = ctx.t('count.collided', { n: lastDeclared.number });
  } else {
    status = ctx.t('count.no_leader');
  }
  const statusEl = h('p', { class: 'cu-status', text: status });
  // The pause lives on the caller's phone only; every other phone sees that the
  // count has stopped moving: no new number for three paces. Each new number
  // draws this card anew, so the cue goes as soon as the count moves on.
  const caller = v.caller || snap.host;
  let held = null;
  if (value && !c.end && v.phase === 'count' && snap.me !== caller) {
    held = h('p', { class: 'cu-held', role: 'status', hidden: true, text: ctx.t('count.held', { name: ctx.name(caller) }) });
    const pace = Number((snap.options || {}).countIntervalMs) || 800;
    const cue = held;
    window.setTimeout(() => { cue.hidden = false; }, Math.max(3000, 3 * pace));
  }
  // The line of what the number did stays, empty, when it did nothing, and the
  // status keeps two lines' room (countup.css): the card keeps its height through
  // the count, so the caller's controls below it do not move under the thumb.
  const flash = c.end ? null : h('p', { class: `cu-flash${collide ? ' collision' : ''}`, text: hit && last ? callText(ctx, last) : '' });
  return h('section', { class: 'card cu-number', 'aria-labelledby': 'cu-number-title' },
    h('h2', { id: 'cu-number-title', class: 'cu-visually-hidden', text: ctx.t('count.title') }),
    h('p', { class: 'cu-progress', text: ctx.t('count.progress', { n: value, max: v.max }) }),
    big, flash, statusEl, held);
}

/**
 * Each marker on its 0–20 track, and the declarations so far.
 * @param {Ctx} ctx
 * @param {any} snap
 */
export function markersCard(ctx, snap) {
  const v = snap.view;
  const c = v.count;
  /** @type {Call[]} */
  const calls = c.calls;
  const markers = h('ul', { class: 'cu-markers', 'aria-label': ctx.t('count.markers') },
    ...v.players.map((/** @type {string} */ p) => {
      const m = c.markers[p] || 0;
      const track = h('span', { class: 'cu-track', 'aria-hidden': 'true' });
      for (let i = 1; i <= v.marker_top; i++) track.append(h('span', { class: i <= m ? 'on' : '' }));
      return h('li', { class: `cu-marker${p === c.leader ? ' leading' : ''}${p === snap.me ? ' mine' : ''}`, dataset: { player: p } },
        h('span', { class: 'cu-name', text: ctx.name(p) }),
        p === c.leader ? h('span', { class: 'badge cu-lead', text: ctx.t('count.lead_badge') }) : null,
        h('span', { class: 'cu-marker-val', text: String(m).padStart(2, '0') }),
        track);
    }));
  const story = calls.filter((x) => x.declared.length).slice(-8).reverse();
  return h('section', { class: 'card cu-board', 'aria-labelledby': 'cu-board-title' },
    h('h2', { id: 'cu-board-title', text: ctx.t('count.markers') }),
    markers,
    story.length ? h('h3', { text: ctx.t('count.story') }) : null,
    story.length ? h('ol', { class: 'cu-log', 'aria-label': ctx.t('count.story') },
      ...story.map((x) => h('li', { class: x.declared.length > 1 ? 'collision' : 'solo', text: callText(ctx, x) }))) : null);
}
