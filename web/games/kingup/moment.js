// King Up!'s scoring moment (screens/moment.js): the round just scored, from
// the view's last `round_results` entry, while the round stands scored.

/**
 * @param {import('../../games-loader.js').Snapshot} snap
 * @param {import('../../games-loader.js').GameContext} ctx
 * @returns {import('../../games-loader.js').Moment|null}
 */
export function roundMoment(snap, ctx) {
  const v = /** @type {any} */ (snap.view);
  const results = (v && v.round_results) || [];
  if (!results.length || (v.phase !== 'scored' && v.phase !== 'over')) return null;
  const r = results[results.length - 1];
  return {
    key: `round:${r.round}`,
    title: ctx.t('result.title', { round: r.round }),
    lines: v.players.filter((/** @type {string} */ p) => r.players[p]).map((/** @type {string} */ p) => {
      const pr = r.players[p];
      const why = [ctx.t('result.sum', { raw: pr.raw })];
      if (pr.card !== null && pr.card !== undefined) why.push(ctx.t('result.virtual', { n: pr.card }));
      if (pr.rule33) why.push(ctx.t('result.rule33', { round: r.round }));
      return { player: p, gain: pr.score, why };
    }),
  };
}
