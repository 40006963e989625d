// Round results (each player's 6 characters with level and points, the
// round-3 rule), running totals, the final standings with the tie-break
// explained, the host's "next round" button, and the rules in play.

import { h } from '../../ui.js';
import { charLabel, posText, token } from './common.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 */

/**
 * @param {Ctx} ctx
 * @param {any} view
 * @param {any} r one entry of view.round_results
 */
function resultBody(ctx, view, r) {
  return [
    r.king ? h('p', { class: 'ku-king' }, token(ctx, view, r.king, { small: true }), h('span', { text: ctx.t('result.king', { char: charLabel(ctx, view, r.king) }) })) : null,
    h('ul', { class: 'ku-result-players' }, ...view.players.map((/** @type {string} */ p) => {
      const pr = r.players[p];
      if (!pr) return null;
      return h('li', { class: `ku-result-player ${p === ctx.me ? 'mine' : ''}`, dataset: { player: p } },
        h('div', { class: 'ku-result-head' },
          h('span', { class: 'ku-result-name', text: ctx.name(p) }),
          h('span', { class: 'ku-result-score', dataset: { score: String(pr.score) }, text: ctx.t('result.score', { score: pr.score }) })),
        h('ul', { class: 'ku-result-chars' }, ...pr.goal.map((/** @type {string} */ ch) => h('li', { dataset: { char: ch } },
          token(ctx, view, ch, { small: true }),
          h('span', { class: 'ku-where', text: posText(ctx, r.positions[ch]) }),
          h('span', { class: 'ku-pts', text: ctx.t('points', { n: pr.points[ch] }) })))),
        h('p', { class: 'hint ku-result-sum' },
          ctx.t('result.sum', { raw: pr.raw }),
          pr.card !== null && pr.card !== undefined ? ` · ${ctx.t('result.virtual', { n: pr.card })}` : ''),
        pr.rule33 ? h('p', { class: 'ku-rule33', text: ctx.t('result.rule33', { round: r.round }) }) : null);
    })),
  ];
}

/**
 * The latest round's result, open; earlier rounds folded away.
 * @param {Ctx} ctx
 * @param {any} snap
 */
export function roundResults(ctx, snap) {
  const view = snap.view;
  const results = view.round_results || [];
  if (!results.length) return [];
  const last = results[results.length - 1];
  const out = [];
  const showLast = view.phase === 'scored' || view.phase === 'over';
  if (showLast) {
    out.push(h('section', { class: 'card ku-result', 'aria-labelledby': 'ku-result-title', dataset: { round: String(last.round) } },
      h('h2', { id: 'ku-result-title', text: ctx.t('result.title', { round: last.round }) }),
      ...resultBody(ctx, view, last)));
  }
  const earlier = showLast ? results.slice(0, -1) : results;
  for (const r of earlier.slice().reverse()) {
    out.push(h('details', { class: 'card ku-result ku-earlier', dataset: { round: String(r.round) } },
      h('summary', { text: ctx.t('result.earlier', { round: r.round }) }),
      ...resultBody(ctx, view, r)));
  }
  return out;
}

/**
 * Round-by-round scores and totals of every player (the public figures).
 * @param {Ctx} ctx
 * @param {any} snap
 */
export function totalsTable(ctx, snap) {
  const rounds = (snap.view.round_results || []).map((/** @type {any} */ r) => r.round);
  if (!rounds.length) return null;
  return h('section', { class: 'card ku-totals', 'aria-labelledby': 'ku-totals-title' },
    h('h2', { id: 'ku-totals-title', text: ctx.t('result.totals') }),
    h('table', { class: 'ku-table' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, h('span', { class: 'sr-only', text: ctx.t('result.player_col') })),
        ...rounds.map((/** @type {number} */ n) => h('th', { scope: 'col', text: ctx.t('result.round_col', { n }) })),
        h('th', { scope: 'col', text: ctx.t('figure.total') }))),
      h('tbody', null, ...snap.players.map((/** @type {any} */ p) => h('tr', { class: p.id === ctx.me ? 'mine' : '', dataset: { player: p.id } },
        h('th', { scope: 'row', text: p.name }),
        ...rounds.map((/** @type {number} */ _n, /** @type {number} */ i) => h('td', { text: String((p.round_scores || [])[i] ?? '') })),
        h('td', { class: 'ku-total', dataset: { total: String(p.total) }, text: String(p.total) }))))));
}

/**
 * The winners, the ranking and, for a tie, how it was broken.
 * @param {Ctx} ctx
 * @param {any} snap
 */
export function finalStandings(ctx, snap) {
  const res = snap.view.result;
  if (!res) return null;
  const ranked = snap.view.players.slice().sort((/** @type {string} */ a, /** @type {string} */ b) => res.totals[b] - res.totals[a]);
  const parts = [
    h('h2', { id: 'ku-final-title', text: ctx.t('final.title') }),
    h('p', { class: 'ku-winners', text: ctx.t(res.shared ? 'final.shared' : 'final.winner', { names: res.winners.map((/** @type {string} */ p) => ctx.name(p)).join(', ') }) }),
    h('ol', { class: 'ku-standings' }, ...ranked.map((/** @type {string} */ p) => h('li', { class: res.winners.includes(p) ? 'winner' : '', dataset: { player: p } },
      h('div', { class: 'ku-standing' },
        h('span', { class: 'ku-result-name', text: ctx.name(p) }),
        res.winners.includes(p) ? h('span', { class: 'badge you', text: ctx.t('final.winner_badge') }) : null,
        h('span', { class: 'ku-result-score', dataset: { total: String(res.totals[p]) }, text: ctx.t('final.total', { total: res.totals[p] }) }))))),
  ];
  const tb = res.tie_break;
  if (tb) {
    const tiedNames = tb.tied.map((/** @type {string} */ p) => ctx.name(p)).join(', ');
    const lines = [ctx.t('final.tied', { total: res.totals[tb.tied[0]], names: tiedNames })];
    if (tb.rule === 'survivors') {
      lines.push(ctx.t('final.tie_survivors', { low: tb.counts_level0 ? 0 : 1 }));
      lines.push(tb.tied.map((/** @type {string} */ p) => ctx.t('final.survivors', { name: ctx.name(p), n: tb.survivors[p] })).join(' · '));
      if (res.shared) lines.push(ctx.t('final.still_tied'));
    } else {
      lines.push(ctx.t('final.tie_none'));
    }
    parts.push(h('div', { class: 'notice ku-tiebreak' }, ...lines.map((line) => h('p', { text: line }))));
  }
  return h('section', { class: 'card ku-final', 'aria-labelledby': 'ku-final-title' }, ...parts);
}

/**
 * The host's "Start round n" (legal for every seat; only the host's is accepted,
 * so the others see who they are waiting for).
 * @param {Ctx} ctx
 * @param {any} snap
 * @param {{busy: boolean, act: (a: Record<string, unknown>) => Promise<boolean>}} ui
 */
export function nextRound(ctx, snap, ui) {
  if (snap.view.phase !== 'scored') return null;
  const round = snap.view.round + 1;
  const can = (snap.legal || []).some((/** @type {any} */ a) => a.type === 'next_round') && snap.me !== null && snap.me === snap.host;
  if (can) {
    return h('button', {
      type: 'button', class: 'primary ku-next', disabled: ui.busy, text: ctx.t('next.button', { round }),
      onclick: () => { ui.act({ type: 'next_round' }); },
    });
  }
  return h('p', { class: 'waiting ku-next-wait', text: ctx.t('next.wait', { round }) });
}

/**
 * The table's rules and the app's assumptions, one line each.
 * @param {Ctx} ctx
 * @param {any} view
 */
export function rulesSummary(ctx, view) {
  const r = view.rules;
  if (!r) return null;
  const lines = [
    ctx.t(view.goal_deck === 'virtual' ? 'rules.deck_virtual' : 'rules.deck_printed'),
    view.play_mode === 'full' ? ctx.t('rules.placement', { each: r.placements_each, left: r.leftovers }) : null,
    view.play_mode === 'full' ? ctx.t('rules.no_cards', { n: r.no_cards_each }) : null,
    ctx.t('rules.rule33', { round: r.zero_to_33_round }),
    r.tie_break === 'survivors'
      ? ctx.t('rules.tie_survivors', { level0: ctx.t(r.tie_break_counts_level0 ? 'rules.level0_in' : 'rules.level0_out') })
      : ctx.t('rules.tie_none'),
  ];
  return h('details', { class: 'card ku-rules' },
    h('summary', { text: ctx.t('rules.title') }),
    h('ul', null, ...lines.filter(Boolean).map((line) => h('li', { text: line }))));
}
