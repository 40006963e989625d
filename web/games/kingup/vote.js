// The election: Yes / No with a confirmation step, "3 of 5 voted", and the
// simultaneous reveal. The phone only ever has its own vote and No count; the
// others' votes arrive all at once in `last_election`.

import { h } from '../../ui.js';
import { charLabel, token } from './common.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 */

/**
 * The candidate and what it means for my card.
 * @param {Ctx} ctx
 * @param {any} view
 * @returns {HTMLElement[]}
 */
export function voteHead(ctx, view) {
  const e = view.election;
  const me = view.me;
  const out = [
    h('h2', { id: 'ku-vote-title', text: ctx.t('vote.title', { char: charLabel(ctx, view, e.candidate) }) }),
    h('div', { class: 'ku-candidate' },
      token(ctx, view, e.candidate, { mine: Boolean(me && me.goal && me.goal.includes(e.candidate)) }),
      h('p', { text: ctx.t('vote.nominated', { name: ctx.name(e.nominator), char: charLabel(ctx, view, e.candidate) }) })),
  ];
  if (me && me.goal) {
    const on = me.goal.includes(e.candidate);
    out.push(h('p', { class: on ? 'ku-oncard' : 'hint', text: ctx.t(on ? 'vote.on_card' : 'vote.not_on_card', { char: charLabel(ctx, view, e.candidate) }) }));
  }
  return out;
}

/**
 * Yes / No, then the confirmation, then "You voted Yes." (this seat's own vote only).
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {{busy: boolean, choice: 'yes'|'no'|null, choose: (v: 'yes'|'no'|null) => void,
 *          sealed: 'yes'|'no'|null, vote: (v: 'yes'|'no') => Promise<boolean>}} ui
 * @returns {HTMLElement}
 */
export function voteActions(ctx, snap, ui) {
  const view = snap.view;
  const e = view.election;
  const me = view.me;
  const votes = (snap.legal || []).filter((/** @type {any} */ a) => a.type === 'vote').map((/** @type {any} */ a) => a.vote);
  const canNo = votes.includes('no');
  const label = (/** @type {string} */ v) => ctx.t(v === 'no' ? 'vote.no' : 'vote.yes');
  if (votes.length && ui.choice && (ui.choice === 'yes' || canNo)) {
    const v = ui.choice;
    return h('div', { class: `ku-vote-confirm ${v}`, role: 'group', 'aria-labelledby': 'ku-confirm-title' },
      h('p', { id: 'ku-confirm-title', class: 'ku-confirm-title', text: ctx.t('vote.confirm_title', { vote: label(v), char: charLabel(ctx, view, e.candidate) }) }),
      h('p', { class: 'hint', text: ctx.t('vote.confirm_help') }),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'ku-back', text: ctx.t('vote.back'), disabled: ui.busy, onclick: () => ui.choose(null) }),
        h('button', {
          type: 'button', class: `primary ku-vote-final ${v}`, disabled: ui.busy, dataset: { vote: v },
          text: ctx.t('vote.confirm', { vote: label(v) }),
          onclick: () => { ui.vote(v).then(() => ui.choose(null)); },
        })));
  }
  if (votes.length) {
    return h('div', { class: 'ku-vote-pick' },
      h('div', { class: 'ku-vote-buttons row' },
        h('button', { type: 'button', class: 'ku-vote yes', disabled: ui.busy, dataset: { vote: 'yes' }, text: label('yes'), onclick: () => ui.choose('yes') }),
        h('button', { type: 'button', class: 'ku-vote no', disabled: ui.busy || !canNo, dataset: { vote: 'no' }, text: label('no'), onclick: () => ui.choose('no') })),
      // My own count only; no other phone ever receives it.
      me && me.no_left !== null && me.no_left !== undefined
        ? h('p', { class: 'hint ku-no-left', text: canNo ? ctx.t('vote.no_left', { n: me.no_left }) : ctx.t('vote.no_none') })
        : null);
  }
  if (me && me.vote === 'sealed') {
    // Sealed on this phone: the server holds only its hash until every vote is in.
    const mine = ui.sealed;
    return h('div', { class: 'ku-my-vote', dataset: { vote: mine || 'sealed' } },
      mine ? h('p', { text: ctx.t('vote.mine', { vote: label(mine) }) }) : null,
      h('p', { class: 'hint ku-sealed-note', text: ctx.t('vote.sealed_note') }));
  }
  if (me && me.vote) return h('p', { class: 'ku-my-vote', dataset: { vote: me.vote }, text: ctx.t('vote.mine', { vote: label(me.vote) }) });
  return h('p', { class: 'hint', text: me ? '' : ctx.t('vote.spectator') });
}

/**
 * "3 of 5 voted" and who has (a face-down card on the table), never what.
 * @param {Ctx} ctx
 * @param {any} view
 * @returns {HTMLElement[]}
 */
export function voteCount(ctx, view) {
  const e = view.election;
  const opening = Array.isArray(e.opening) && e.opening.length > 0;
  return [
    h('p', { class: 'ku-vote-count', role: 'status', text: opening
      ? ctx.t('vote.opening', { names: e.opening.map((/** @type {string} */ p) => ctx.name(p)).join(', ') })
      : ctx.t('vote.count', { count: e.votes_cast, total: e.voters }) }),
    h('ul', { class: 'ku-voters' }, ...view.players.map((/** @type {string} */ p) => {
      const done = e.voted.includes(p);
      return h('li', { class: done ? 'done' : '', dataset: { player: p } },
        h('span', { class: 'ku-voter-name', text: ctx.name(p) }),
        h('span', { class: 'badge', text: ctx.t(done ? 'vote.voted' : 'vote.waiting') }));
    })),
  ];
}

/**
 * The reveal in words to say aloud: "찬성 3, 반대 1. D, 왕으로 즉위!".
 * @param {Ctx} ctx
 * @param {any} view
 */
export function revealWords(ctx, view) {
  const last = view.last_election;
  const votes = Object.values(last.votes);
  const yes = votes.filter((v) => v !== 'no').length;
  const outcome = ctx.t(last.result === 'crowned' ? 'reveal.crowned' : 'reveal.eliminated', { char: charLabel(ctx, view, last.candidate) });
  return `${ctx.t('say.votes', { yes, no: votes.length - yes })} ${outcome}`;
}

/**
 * Everybody's vote at once, and what it did.
 * @param {Ctx} ctx
 * @param {any} view
 * @param {boolean} fresh animate (the reveal just happened)
 */
export function revealPanel(ctx, view, fresh) {
  const last = view.last_election;
  const crowned = last.result === 'crowned';
  const nextPid = !crowned && view.phase === 'movement' ? view.turn : null;
  return h('section', { class: `card ku-reveal ${crowned ? 'crowned' : 'eliminated'} ${fresh ? 'fresh' : ''}`, 'aria-labelledby': 'ku-reveal-title' },
    h('h2', { id: 'ku-reveal-title', text: ctx.t('reveal.title') }),
    h('div', { class: 'ku-candidate' },
      token(ctx, view, last.candidate, { mine: Boolean(view.me && view.me.goal && view.me.goal.includes(last.candidate)) }),
      h('p', { class: 'ku-reveal-result', role: 'status', text: ctx.t(crowned ? 'reveal.crowned' : 'reveal.eliminated', { char: charLabel(ctx, view, last.candidate) }) })),
    // All cards turn over together: the reveal is simultaneous.
    h('ul', { class: 'ku-reveal-votes' }, ...view.players.map((/** @type {string} */ p) => {
      const v = last.votes[p];
      return h('li', { class: `ku-reveal-vote ${v}`, dataset: { player: p, vote: v } },
        h('span', { class: 'ku-voter-name', text: ctx.name(p) }),
        h('span', { class: 'ku-vote-face', text: ctx.t(v === 'no' ? 'vote.no' : 'vote.yes') }));
    })),
    nextPid ? h('p', { class: 'hint', text: ctx.t('reveal.next', { name: ctx.name(nextPid) }) }) : null);
}
