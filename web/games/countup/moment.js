// Count Up's scoring moment (screens/moment.js): the round just scored, from
// the view's last `rounds_played` entry, while the round stands scored.

/**
 * @param {import('../../games-loader.js').Snapshot} snap
 * @param {import('../../games-loader.js').GameContext} ctx
 * @returns {import('../../games-loader.js').Moment|null}
 */
export function roundMoment(snap, ctx) {
  const v = /** @type {any} */ (snap.view);
  const played = (v && v.rounds_played) || [];
  if (!played.length || (v.phase !== 'scored' && v.phase !== 'over')) return null;
  const rec = played[played.length - 1];
  return {
    // The phone that called the count says its outcome.
    speaker: v.caller || null,
    key: `round:${rec.round}`,
    title: ctx.t('result.round_title', { round: rec.round }),
    lines: v.players.filter((/** @type {string} */ p) => rec.players[p]).map((/** @type {string} */ p) => {
      const s = rec.players[p];
      const why = [ctx.t('result.breakdown', { marker: s.marker, bonus: s.bonus, score: s.score })];
      if (s.star) why.push('☆20');
      return { player: p, gain: s.score, why };
    }),
  };
}
