// Camel Up's scoring moment (screens/moment.js): the leg just scored, from
// the view's `last_leg` (each ticket's reward and why, the copy, the
// spectator tile's income, `gain`), until the first die of the next leg.

import { colourName } from './common.js';

/** @param {number} n */
const plus = (n) => (n < 0 ? `−${-n}` : `+${n}`);

/**
 * @param {import('../../games-loader.js').Snapshot} snap
 * @param {import('../../games-loader.js').GameContext} ctx
 * @returns {import('../../games-loader.js').Moment|null}
 */
export function legMoment(snap, ctx) {
  const v = /** @type {any} */ (snap.view);
  const r = v && v.last_leg;
  if (!r || v.mode === 'pyramid') return null;
  // The news until the next leg's first die; the race's end keeps its last leg.
  const news = !(v.tents || []).length || v.phase === 'over' || v.phase === 'paper_cards';
  if (!news) return null;
  /** @param {any} t */
  const ticket = (t) => (t.kind === 'pyramid'
    ? `${ctx.t('leg.pyramid')} ${plus(t.reward)}`
    : `${ctx.t('leg.ticket', { colour: colourName(ctx, v, t.camel), value: t.value })} (${ctx.t(`why.${t.why}`, { place: t.place })}) ${plus(t.reward)}`);
  return {
    key: `leg:${r.leg}`,
    title: ctx.t('leg.title', { leg: r.leg }),
    lines: r.players.map((/** @type {any} */ p) => {
      const why = p.tickets.map(ticket);
      if (p.copy) why.push(`${ctx.t('moment.copy', { name: ctx.name(p.partner) })} ${ticket(p.copy)}`);
      if (p.tile_income) why.push(ctx.t('leg.tile_income', { n: p.tile_income }));
      return { player: p.player, gain: p.gain, why: why.length ? why : [ctx.t('leg.nothing')] };
    }),
  };
}
