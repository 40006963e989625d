// Seats without a phone: their goal card and vote are physical cards. A phone
// switched to "Entering for: <seat>" gets that seat's `legal` list only (its
// actions go with `as`): the vote card once every phone has voted, the printed
// goal card once the King is crowned. Nothing here ever shows what the seat
// holds before the table has seen it.

import { h } from '../../ui.js';
import { CHARS } from './common.js';
import { picker } from './card.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 * @typedef {{busy: boolean, rerender: () => void, paperPick: Map<string, Set<string>>,
 *            paperVote: Map<string, 'yes'|'no'>, vote: (v: 'yes'|'no') => Promise<boolean>,
 *            act: (a: Record<string, unknown>) => Promise<boolean>}} PaperUi
 */

/**
 * On the host's own screen: "Mina's vote card can be entered: switch to Mina".
 * @param {Ctx} ctx
 * @param {Array<[string, any[]]>} waiting seats and their legal lists
 */
export function proxyHint(ctx, waiting) {
  const names = waiting.filter(([, l]) => l.some((a) => a.type === 'vote' || a.type === 'goal'))
    .map(([pid]) => ctx.name(pid));
  if (!names.length) return null;
  return h('p', { class: 'notice ku-proxy-hint', role: 'status', text: ctx.t('paper.switch', { names: names.join(', ') }) });
}

/**
 * "Waiting for the host: Mina's vote card (no phone)", on every phone.
 * @param {Ctx} ctx
 * @param {any} view
 */
export function paperWaiting(ctx, view) {
  const waiting = /** @type {string[]} */ (view.paper_waiting || []);
  if (!waiting.length || !['vote', 'awaiting_goals'].includes(view.phase)) return null;
  const key = view.phase === 'vote' ? 'paper.waiting_vote' : 'paper.waiting_card';
  return h('p', { class: 'notice ku-paper-waiting', role: 'status', text: ctx.t(key, { names: waiting.map((p) => ctx.name(p)).join(', ') }) });
}

/**
 * The entry card for one paper seat: its vote card, or its printed goal card.
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {PaperUi} ui
 * @param {string} pid
 * @param {any[]} legal that seat's templates
 * @returns {HTMLElement|null}
 */
export function paperPanel(ctx, snap, ui, pid, legal) {
  const view = snap.view;
  const name = ctx.name(pid);
  const votes = legal.filter((a) => a.type === 'vote').map((a) => a.vote);
  const goal = legal.some((a) => a.type === 'goal') && view.phase === 'awaiting_goals';
  if (!votes.length && !goal) return null;
  const id = `ku-paper-${pid}`;
  const parts = [h('h2', { id, text: ctx.t('paper.title', { name }) })];
  if (votes.length) {
    const label = (/** @type {string} */ v) => ctx.t(v === 'no' ? 'vote.no' : 'vote.yes');
    const chosen = ui.paperVote.get(pid) || null;
    parts.push(h('p', { class: 'hint', text: ctx.t('paper.vote_help', { name }) }));
    parts.push(h('div', { class: 'ku-vote-buttons row', role: 'group', 'aria-labelledby': id },
      ...['yes', 'no'].map((v) => h('button', {
        type: 'button', class: `ku-vote ${v}`, dataset: { vote: v }, text: label(v),
        'aria-pressed': String(chosen === v), disabled: ui.busy || !votes.includes(v),
        onclick: () => { ui.paperVote.set(pid, /** @type {'yes'|'no'} */ (v)); ui.rerender(); },
      }))));
    if (chosen && votes.includes(chosen)) {
      parts.push(h('button', {
        type: 'button', class: `primary ku-paper-vote-send ${chosen}`, disabled: ui.busy,
        text: ctx.t('paper.vote_send', { name, vote: label(chosen) }),
        onclick: () => {
          // Sealed on this phone like its own vote, and opened by it once every vote is in.
          ui.vote(chosen).then((ok) => { if (ok) ui.paperVote.delete(pid); });
        },
      }));
    }
  } else {
    let pick = ui.paperPick.get(pid);
    if (!pick) { pick = new Set(); ui.paperPick.set(pid, pick); }
    const picked = pick;
    parts.push(h('p', { class: 'hint', text: ctx.t('paper.card_help', { name }) }));
    parts.push(picker(ctx, view, { picked, onchange: ui.rerender, disabled: ui.busy, label: ctx.t('card.goal_for', { name }) }));
    parts.push(h('button', {
      type: 'button', class: 'primary ku-paper-card-send', disabled: ui.busy || picked.size !== 6,
      text: ctx.t('paper.card_send', { name }),
      onclick: () => {
        ui.act({ type: 'goal', characters: CHARS.filter((c) => picked.has(c)) })
          .then((ok) => { if (ok) ui.paperPick.delete(pid); });
      },
    }));
  }
  return h('section', { class: 'card ku-paper', 'aria-labelledby': id, dataset: { player: pid } }, ...parts);
}
