// Leg results (each ticket's reward and why, pyramid tickets, spectator
// income, the partnership copy, old and new money), the race end (the final
// leg, both finish piles card by card, standings, shared victory, a summary to
// share), the players' public figures and my own finish cards.

import { copyText, h, toast } from '../../ui.js';
import { camelTag, colourName, money } from './common.js';

/** @typedef {import('./common.js').Ctx} Ctx */

/** @param {number} n */
const plus = (n) => (n < 0 ? `−${-n}` : `+${n}`);

/**
 * One ticket line: "blue 5 ticket · 1st · +5".
 * @param {Ctx} ctx @param {any} view @param {any} t
 */
function ticketLine(ctx, view, t) {
  const why = t.why === 'pyramid' ? '' : ctx.t(`why.${t.why}`, { place: t.place });
  return h('li', { class: `cm-line ${t.reward > 0 ? 'gain' : t.reward < 0 ? 'loss' : ''}`, dataset: { kind: t.kind, camel: t.camel || '', reward: String(t.reward), why: t.why } },
    t.kind === 'pyramid'
      ? h('span', { class: 'cm-line-what', text: ctx.t('leg.pyramid') })
      : h('span', { class: 'cm-line-what' }, camelTag(ctx, view, t.camel, String(t.value))),
    why ? h('span', { class: 'cm-line-why', text: why }) : null,
    h('span', { class: 'cm-line-amount', text: plus(t.reward) }));
}

/**
 * "1 ● purple" in a ranking.
 * @param {Ctx} ctx @param {any} view @param {string} camel @param {number} i
 */
function rankItem(ctx, view, camel, i) {
  return h('li', { dataset: { camel, place: String(i + 1) } },
    h('span', { class: 'cm-rank-no', 'aria-hidden': 'true', text: String(i + 1) }), camelTag(ctx, view, camel));
}

/**
 * The last leg's scoring (view.last_leg), every player.
 * @param {Ctx} ctx @param {any} view
 * @param {{final?: boolean, open?: boolean}} [opts]
 */
export function legResult(ctx, view, opts = {}) {
  const r = view.last_leg;
  if (!r) return null;
  const title = ctx.t(opts.final ? 'leg.final_title' : 'leg.title', { leg: r.leg });
  const body = [
    h('ol', { class: 'cm-ranking', 'aria-label': ctx.t('leg.ranking') },
      ...r.ranking.map((/** @type {string} */ c, /** @type {number} */ i) => rankItem(ctx, view, c, i))),
    h('ul', { class: 'cm-leg-players' }, ...r.players.map((/** @type {any} */ p) => {
      const lines = p.tickets.map((/** @type {any} */ t) => ticketLine(ctx, view, t));
      if (p.tile_income) {
        lines.push(h('li', { class: 'cm-line gain cm-tile-income', dataset: { kind: 'tile', reward: String(p.tile_income) } },
          h('span', { class: 'cm-line-what', text: ctx.t('leg.tile_income', { n: p.tile_income }) })));
      }
      if (p.partner) {
        const c = p.copy;
        const what = !c ? ''
          : c.kind === 'pyramid' ? ctx.t('leg.copy_pyramid', { name: ctx.name(p.partner) })
            : ctx.t('leg.copy', { name: ctx.name(p.partner), ticket: ctx.t('leg.ticket', { colour: colourName(ctx, view, c.camel), value: c.value }), why: ctx.t(`why.${c.why}`, { place: c.place }) });
        lines.push(c
          ? h('li', { class: `cm-line cm-copy-line ${c.reward > 0 ? 'gain' : c.reward < 0 ? 'loss' : ''}`, dataset: { kind: 'copy', partner: p.partner, camel: c.camel || '', reward: String(c.reward) } },
            h('span', { class: 'cm-line-what', text: what }),
            h('span', { class: 'cm-line-amount', text: plus(c.reward) }))
          : h('li', { class: 'cm-line cm-copy-line', dataset: { kind: 'copy', partner: p.partner, reward: '0' } },
            h('span', { class: 'cm-line-what', text: ctx.t('leg.no_copy', { name: ctx.name(p.partner) }) })));
      }
      if (!lines.length) lines.push(h('li', { class: 'cm-line hint', text: ctx.t('leg.nothing') }));
      const hasMoney = typeof p.old === 'number';
      return h('li', { class: `cm-leg-player ${p.player === ctx.me ? 'mine' : ''}`, dataset: { player: p.player, old: hasMoney ? String(p.old) : '', new: hasMoney ? String(p.new) : '' } },
        h('div', { class: 'cm-leg-head' },
          h('span', { class: 'cm-name', text: ctx.name(p.player) }),
          hasMoney ? h('span', { class: 'cm-leg-money', text: ctx.t('leg.money', { old: p.old, new: p.new }) }) : null),
        h('ul', { class: 'cm-lines' }, ...lines));
    })),
  ];
  if (opts.final) {
    return h('section', { class: 'card cm-leg final', 'aria-labelledby': 'cm-leg-title', dataset: { leg: String(r.leg) } },
      h('h2', { id: 'cm-leg-title', text: title }), ...body);
  }
  return h('details', { class: 'card cm-leg', open: Boolean(opts.open), dataset: { leg: String(r.leg) } },
    h('summary', { text: title }), ...body);
}

/**
 * The race end headline: winner and loser camels (pyramid-only mode: that is all).
 * @param {Ctx} ctx @param {any} view
 */
export function raceHead(ctx, view) {
  const res = view.result;
  if (!res) return null;
  return h('section', { class: 'card cm-race', 'aria-labelledby': 'cm-race-title' },
    h('h2', { id: 'cm-race-title', text: ctx.t('race.title') }),
    h('p', { class: 'cm-race-camels' },
      h('span', { class: 'cm-race-winner', dataset: { camel: res.winner_camel } }, ctx.t('race.winner_camel', { colour: colourName(ctx, view, res.winner_camel) })),
      h('span', { class: 'cm-race-loser', dataset: { camel: res.loser_camel } }, ctx.t('race.loser_camel', { colour: colourName(ctx, view, res.loser_camel) }))),
    h('ol', { class: 'cm-ranking' }, ...res.ranking.map((/** @type {string} */ c, /** @type {number} */ i) => rankItem(ctx, view, c, i))));
}

/**
 * Both finish piles, card by card, in the order they were placed.
 * @param {Ctx} ctx @param {any} view
 */
export function pilesReveal(ctx, view) {
  const res = view.result;
  if (!res || !res.piles || view.mode === 'pyramid') return null;
  const pile = (/** @type {'winner'|'loser'} */ name) => {
    const cards = res.piles[name];
    return h('div', { class: `cm-reveal ${name}`, dataset: { pile: name } },
      h('h3', { text: ctx.t(`race.pile.${name}`) }),
      cards.length ? h('ol', { class: 'cm-reveal-cards' }, ...cards.map((/** @type {any} */ c) => h('li', {
        class: `cm-reveal-card ${c.correct ? 'right' : 'wrong'}`,
        dataset: { player: c.player, camel: c.camel, correct: String(c.correct), delta: String(c.delta), paid: String(c.paid) },
      },
      h('span', { class: 'cm-name', text: ctx.name(c.player) }),
      camelTag(ctx, view, c.camel),
      h('span', { class: 'cm-line-why', text: c.correct ? ctx.t('race.right', { k: c.k, delta: c.delta }) : ctx.t('race.wrong') }),
      c.paid !== c.delta ? h('span', { class: 'hint', text: ctx.t('race.paid', { paid: plus(c.paid) }) }) : null))) : h('p', { class: 'hint', text: ctx.t('race.pile_empty') }));
  };
  return h('section', { class: 'card cm-piles-reveal', 'aria-label': ctx.t('piles.title') }, pile('winner'), pile('loser'));
}

/**
 * Final standings, the winners (shared victory) and the share button.
 * @param {Ctx} ctx @param {any} snap
 */
export function standings(ctx, snap) {
  const view = snap.view;
  const res = view.result;
  if (!res || view.mode === 'pyramid') return null;
  const rows = res.money.slice().sort((/** @type {any} */ a, /** @type {any} */ b) => a.rank - b.rank);
  const names = res.winners.map((/** @type {string} */ p) => ctx.name(p)).join(', ');
  return h('section', { class: 'card cm-standings', 'aria-labelledby': 'cm-standings-title' },
    h('h2', { id: 'cm-standings-title', text: ctx.t('race.standings') }),
    h('p', { class: 'cm-winners', text: ctx.t(res.winners.length > 1 ? 'race.shared' : 'race.winner', { names }) }),
    // The view's places, a tie sharing one ("4." twice), as on the results sheet.
    h('ol', { class: 'cm-standing-list' }, ...rows.map((/** @type {any} */ m) => h('li', {
      class: `${res.winners.includes(m.player) ? 'winner' : ''} ${m.player === ctx.me ? 'mine' : ''}`,
      dataset: { player: m.player, money: String(m.after), rank: String(m.rank) },
    },
    h('span', { class: 'cm-rank', text: `${m.rank}.` }),
    h('span', { class: 'cm-name', text: ctx.name(m.player) }),
    h('span', { class: 'cm-standing-money', text: ctx.t('race.money', { before: m.before, after: m.after }) })))),
    h('button', { type: 'button', class: 'cm-share', text: ctx.t('race.share'), onclick: () => { share(ctx, summary(ctx, snap)); } }));
}

/**
 * The result as plain text, for a chat.
 * @param {Ctx} ctx @param {any} snap
 */
export function summary(ctx, snap) {
  const view = snap.view;
  const res = view.result;
  const rows = res.money.slice().sort((/** @type {any} */ a, /** @type {any} */ b) => a.rank - b.rank);
  const lines = rows.map((/** @type {any} */ m) => ctx.t('summary.line', { rank: m.rank, name: ctx.name(m.player), money: m.after }));
  return [
    ctx.t('summary.head', { title: ctx.title(), legs: view.leg }),
    ctx.t('summary.camels', { winner: colourName(ctx, view, res.winner_camel), loser: colourName(ctx, view, res.loser_camel) }),
    ...lines,
    ctx.t('summary.winners', { names: res.winners.map((/** @type {string} */ p) => ctx.name(p)).join(', ') }),
  ].join('\n');
}

/**
 * navigator.share where there is one, else the clipboard.
 * @param {Ctx} ctx @param {string} text
 */
async function share(ctx, text) {
  const nav = /** @type {any} */ (navigator);
  if (typeof nav.share === 'function') {
    try {
      await nav.share({ text });
      return;
    } catch (e) {
      if (e && /** @type {any} */ (e).name === 'AbortError') return;
    }
  }
  const ok = await copyText(text);
  toast(ctx.t(ok ? 'race.copied' : 'race.copy_failed'));
}

/**
 * Every player's public figures: money, tickets held, tile, partner, how many
 * finish cards on each pile (never their colours), and the piles.
 * @param {Ctx} ctx @param {any} snap
 */
export function playersCard(ctx, snap) {
  const view = snap.view;
  const moneyOf = new Map(snap.players.map((/** @type {any} */ p) => [p.id, p.money]));
  const piles = view.finish_piles;
  return h('section', { class: 'card cm-players', 'aria-labelledby': 'cm-players-title' },
    h('h2', { id: 'cm-players-title', class: 'cm-small-title', text: ctx.t('players.title') }),
    h('ul', { class: 'cm-player-list' }, ...view.players.map((/** @type {any} */ p) => {
      const m = moneyOf.get(p.id);
      const bits = [];
      if (p.pyramid_tickets) bits.push(h('span', { class: 'chip cm-chip', text: ctx.t('players.pyramid', { n: p.pyramid_tickets }) }));
      if (p.tile) bits.push(h('span', { class: `chip cm-chip tile ${p.tile.side}`, text: ctx.t('players.tile', { space: p.tile.space, side: ctx.t(`side.${p.tile.side}_short`) }) }));
      if (p.partner) bits.push(h('span', { class: 'chip cm-chip partner', text: ctx.t('players.partner', { name: ctx.name(p.partner) }) }));
      if (p.finish_cards) bits.push(h('span', { class: 'chip cm-chip', text: ctx.t('players.cards', p.finish_cards) }));
      return h('li', {
        class: `cm-player ${p.id === view.current_player ? 'current' : ''} ${p.id === ctx.me ? 'mine' : ''}`,
        dataset: { player: p.id, money: typeof m === 'number' ? String(m) : '' },
      },
      h('div', { class: 'cm-player-head' },
        h('span', { class: 'cm-name', text: ctx.name(p.id) }),
        p.id === view.current_player ? h('span', { class: 'badge you', text: ctx.t('players.now') }) : null,
        typeof m === 'number' ? h('span', { class: 'cm-money', text: money(ctx, m) }) : null),
      h('div', { class: 'cm-player-bets', 'aria-label': ctx.t('players.bets') },
        ...(p.bets.length ? p.bets.map((/** @type {any} */ b) => h('span', { class: 'cm-bet-chip', dataset: { camel: b.camel, value: String(b.value) } }, camelTag(ctx, view, b.camel, String(b.value))))
          : [h('span', { class: 'hint', text: ctx.t('players.no_bets') })]),
        ...bits));
    })),
    piles ? h('p', { class: 'hint cm-piles-line' },
      ...['winner', 'loser'].map((pile) => h('span', { class: 'cm-pile-size', dataset: { pile, size: String(piles[pile].size) } },
        ctx.t(piles[pile].size === 1 ? 'piles.line.one' : 'piles.line', { pile: ctx.t(`finish.pile.${pile}`), n: piles[pile].size }),
        piles[pile].owners && piles[pile].owners.length ? ` (${piles[pile].owners.map((/** @type {string} */ o) => ctx.name(o)).join(', ')})` : ''))) : null);
}

/**
 * My own finish cards: in hand and on the piles (this seat's view only).
 * @param {Ctx} ctx @param {any} view
 */
export function myCards(ctx, view) {
  const me = view.me;
  if (!me) return null;
  return h('section', { class: 'card cm-mine', 'aria-labelledby': 'cm-mine-title' },
    h('h2', { id: 'cm-mine-title', class: 'cm-small-title', text: ctx.t('me.title') }),
    h('p', { class: 'cm-hand-line' },
      h('span', { class: 'cm-label', text: `${ctx.t('me.hand')}: ` }),
      ...(me.finish_hand.length ? me.finish_hand.map((/** @type {string} */ c) => h('span', { class: 'cm-hand-card', dataset: { camel: c } }, camelTag(ctx, view, c))) : [ctx.t('me.none')])),
    me.finish_placed.length ? h('ul', { class: 'cm-placed' }, ...me.finish_placed.map((/** @type {any} */ c) => h('li', { dataset: { camel: c.camel, pile: c.pile } },
      ctx.t('me.placed_item', { colour: colourName(ctx, view, c.camel), pile: ctx.t(`finish.pile.${c.pile}`), position: c.position })))) : null);
}
