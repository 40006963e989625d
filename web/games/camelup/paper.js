// The race is over and seats without a phone left face-down cards on the
// finish piles: the host turns the piles over and records, in pile order, the
// camel each of those cards shows (docs/rules/camelup.md). The phones' cards
// stay hidden until the server pays the piles.

import { h } from '../../ui.js';
import { colourName, colourWord } from './common.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 * @typedef {{winner: Array<string|null>, loser: Array<string|null>}} Picks
 */

/**
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {Picks} picks what the host has picked so far (kept by the caller)
 * @param {{busy: boolean, act: (a: Record<string, unknown>) => Promise<any>}} ui
 * @param {() => void} rerender
 */
export function paperCardsCard(ctx, snap, picks, ui, rerender) {
  const v = snap.view;
  const cards = v.paper_cards || { winner: [], loser: [] };
  const mayRecord = (snap.legal || []).some((/** @type {any} */ a) => a.type === 'paper_cards');
  const card = h('section', { class: 'card cm-paper-cards', 'aria-labelledby': 'cm-paper-title' },
    h('h2', { id: 'cm-paper-title', text: ctx.t('paper.title') }));
  if (!mayRecord) {
    card.append(h('p', { class: 'hint', text: ctx.t('paper.wait') }));
    return card;
  }
  card.append(h('p', { class: 'hint', text: ctx.t('paper.help') }));
  const piles = /** @type {Array<'winner'|'loser'>} */ (['winner', 'loser']);
  for (const pile of piles) {
    const list = cards[pile] || [];
    while (picks[pile].length < list.length) picks[pile].push(null);
    picks[pile].length = list.length;
  }
  /**
   * Where `camel` is already picked on another card of the same seat (the
   * view's `distinct`: one seat's cards name different camels), as words.
   * @param {'winner'|'loser'} pile @param {number} i @param {string} camel
   */
  const takenAt = (pile, i, camel) => {
    if (cards.distinct !== 'player') return null;
    const owner = cards[pile][i].player;
    for (const p of piles) {
      const at = (cards[p] || []).findIndex((/** @type {{player: string}} */ c, /** @type {number} */ j) =>
        (p !== pile || j !== i) && c.player === owner && picks[p][j] === camel);
      if (at >= 0) return ctx.t('paper.taken', { pile: ctx.t(`finish.pile.${p}`), position: cards[p][at].position });
    }
    return null;
  };
  for (const pile of piles) {
    const list = cards[pile] || [];
    if (!list.length) continue;
    card.append(h('h3', { text: ctx.t(`finish.pile.${pile}`) }));
    list.forEach((/** @type {{position: number, player: string}} */ c, /** @type {number} */ i) => {
      card.append(h('div', { class: 'cm-paper-card', role: 'group', 'aria-label': ctx.t('paper.card', { position: c.position, name: ctx.name(c.player) }), dataset: { pile, position: String(c.position) } },
        h('p', { class: 'cm-paper-label', text: ctx.t('paper.card', { position: c.position, name: ctx.name(c.player) }) }),
        h('div', { class: 'cm-choice-row cm-hand' }, ...v.camels.racing.map((/** @type {string} */ camel) => {
          const taken = takenAt(pile, i, camel);
          return h('button', {
            type: 'button',
            class: `cm-card-pick cm-c-${colourWord(v, camel)}`,
            'aria-pressed': String(picks[pile][i] === camel),
            disabled: ui.busy || taken !== null,
            title: taken,
            dataset: { camel },
            text: colourName(ctx, v, camel),
            onclick: () => { picks[pile][i] = camel; rerender(); },
          });
        }))));
    });
  }
  const ready = [...picks.winner, ...picks.loser].every((c) => c !== null);
  card.append(h('div', { class: 'row cm-confirm' }, h('button', {
    type: 'button', class: 'primary cm-confirm-paper', disabled: ui.busy || !ready, text: ctx.t('paper.confirm'),
    onclick: () => { if (ready) ui.act({ type: 'paper_cards', winner: [...picks.winner], loser: [...picks.loser] }); },
  })));
  return card;
}
