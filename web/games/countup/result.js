// After a round: per player the marker, each X cell with its bonus (voided
// ones struck through, with why), the round score and ☆20; the totals; and,
// once the game is over, the winner with the reason.

import { h } from '../../ui.js';
import { sheetRow } from './sheet.js';

/** @typedef {import('../../games-loader.js').GameContext} Ctx */

/**
 * One player's scored round.
 * @param {Ctx} ctx
 * @param {any} rec a `rounds_played` entry
 * @param {string} p
 * @param {any} snap
 */
function playerRound(ctx, rec, p, snap) {
  const s = rec.players[p];
  const bonusRow = snap.options && Array.isArray(snap.options.bonus) ? snap.options.bonus[rec.round - 1] : (s.numbers || []).map(() => 0);
  const xs = /** @type {Array<{number: number, slot: number|null, voided: boolean, bonus: number|null}>} */ (s.x_cells);
  const cells = xs.map((x) => {
    const pts = x.bonus === null ? '' : ` +${x.bonus}`;
    if (x.voided) {
      return h('li', { class: 'cu-xcell voided' },
        h('s', { text: `X ${x.number}${pts}` }), ' ',
        h('span', { class: 'cu-why', text: ctx.t('result.voided_why', { lo: rec.danger ? rec.danger[0] : '', hi: rec.danger ? rec.danger[1] : '' }) }));
    }
    return h('li', { class: 'cu-xcell', text: `X ${x.number}${pts}` });
  });
  return h('li', { class: `cu-res${s.star ? ' star' : ''}${p === snap.me ? ' mine' : ''}`, dataset: { player: p } },
    h('div', { class: 'cu-res-head' },
      h('span', { class: 'cu-name', text: ctx.name(p) }),
      s.star ? h('span', { class: 'cu-star', text: '☆20' }) : null,
      h('span', { class: 'cu-res-score', dataset: { score: s.score }, text: ctx.t(s.score === 1 ? 'result.points.one' : 'result.points', { n: s.score }) })),
    s.numbers ? sheetRow(ctx, { numbers: s.numbers, x_cells: xs, bonusRow }) : null,
    h('p', { class: 'cu-res-line', text: ctx.t('result.breakdown', { marker: s.marker, bonus: s.bonus, score: s.score }) }),
    cells.length ? h('ul', { class: 'cu-xcells', 'aria-label': ctx.t('result.x_cells') }, ...cells) : null);
}

/**
 * The round just scored, the score table, the winner (when over).
 * @param {Ctx} ctx
 * @param {any} snap
 */
export function resultView(ctx, snap) {
  const v = snap.view;
  const out = [];
  if (v.result) out.push(winnerBanner(ctx, snap));
  const rec = v.rounds_played[v.rounds_played.length - 1];
  if (rec) {
    const why = ctx.t(rec.end === 'marker20' ? 'result.end_marker20' : 'result.end_max', { n: rec.last });
    out.push(h('section', { class: 'card cu-round-result', 'aria-labelledby': 'cu-round-title' },
      h('h2', { id: 'cu-round-title', text: ctx.t('result.round_title', { round: rec.round }) }),
      h('p', { class: 'hint', text: why }),
      h('ul', { class: 'cu-res-list' }, ...v.players.map((/** @type {string} */ p) => playerRound(ctx, rec, p, snap)))));
  }
  out.push(scoreTable(ctx, snap));
  return out;
}

/**
 * Rounds × players, ☆20 ticks and totals.
 * @param {Ctx} ctx
 * @param {any} snap
 */
export function scoreTable(ctx, snap) {
  const v = snap.view;
  const rounds = Array.from({ length: v.rounds }, (_, i) => i + 1);
  const winners = new Set(v.result ? v.result.winners : []);
  return h('section', { class: 'card cu-scores', 'aria-labelledby': 'cu-scores-title' },
    h('h2', { id: 'cu-scores-title', text: ctx.t('scores.title') }),
    // A wide table (4 rounds and long names) scrolls sideways: a region a keyboard can reach.
    h('div', { class: 'cu-table-scroll', tabindex: 0, role: 'group', 'aria-labelledby': 'cu-scores-title' }, h('table', { class: 'cu-table' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col', text: ctx.t('scores.player') }),
        ...rounds.map((r) => h('th', { scope: 'col', text: ctx.t('scores.round', { round: r }) })),
        h('th', { scope: 'col', text: '☆20' }),
        h('th', { scope: 'col', text: ctx.t('scores.total') }))),
      h('tbody', null, ...snap.players.map((/** @type {any} */ p) => h('tr', { class: `${winners.has(p.id) ? 'winner' : ''}${p.id === snap.me ? ' mine' : ''}`, dataset: { player: p.id } },
        h('th', { scope: 'row', text: ctx.name(p.id) }),
        ...rounds.map((r) => {
          const s = (p.round_scores || [])[r - 1];
          const star = v.rounds_played[r - 1] && v.rounds_played[r - 1].players[p.id].star;
          return h('td', { class: `cu-rs${star ? ' star' : ''}`, text: s === undefined ? '' : star ? `${s}☆` : s });
        }),
        h('td', { class: 'cu-stars', text: p.stars || 0 }),
        h('td', { class: 'cu-total', text: p.total || 0 })))))));
}

/**
 * @param {Ctx} ctx
 * @param {any} snap
 */
function winnerBanner(ctx, snap) {
  const r = snap.view.result;
  const names = r.winners.map((/** @type {string} */ p) => ctx.name(p)).join(ctx.lang === 'ko' ? '·' : ' & ');
  let reason;
  if (r.reason === 'two_stars') reason = ctx.t('winner.two_stars');
  else if (r.reason === 'total') reason = ctx.t(r.ended_by === 'two_stars' ? 'winner.two_stars_total' : 'winner.total');
  else if (r.reason === 'tie_break') reason = ctx.t('winner.tie_break', { depth: r.tie_break_depth || 1 });
  else reason = ctx.t(r.ended_by === 'two_stars' ? 'winner.two_stars_shared' : 'winner.shared');
  return h('section', { class: 'card cu-winner', 'aria-labelledby': 'cu-winner-title' },
    h('h2', { id: 'cu-winner-title', text: ctx.t(r.winners.length > 1 ? 'winner.title_shared' : 'winner.title', { names }) }),
    h('p', { class: 'cu-reason', text: reason }),
    h('p', { class: 'hint', text: ctx.t(r.ended_by === 'two_stars' ? 'winner.ended_two_stars' : 'winner.ended_last_round') }));
}
