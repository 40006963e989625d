// Camel Up's columns of the results screen's score pad (screens/results.js):
// one per leg, then the final bets, from the server's result.

/**
 * @param {import('../../screens/results.js').GameResult} res
 * @param {(key: string, params?: Record<string, unknown>) => string} t this game's strings
 * @returns {import('../../screens/results.js').ScorePad}
 */
export function scorePad(res, t) {
  /** @type {import('../../screens/results.js').ScorePad} */
  const pad = { head: [], cols: [], notes: [] };
  for (const r of res.rounds) {
    pad.head.push(r.final ? t('pad.final_bets') : t('pad.leg', { leg: r.leg }));
    pad.cols.push((p) => String(r.money[p.id] ?? ''));
    if (r.final) {
      pad.notes.push(t('pad.final', { winner: t(`colour.${r.winner_camel}`), loser: t(`colour.${r.loser_camel}`) }));
    }
  }
  return pad;
}
