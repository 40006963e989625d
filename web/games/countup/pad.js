// Count Up's columns of the results screen's score pad (screens/results.js):
// one per round (☆ a star scored), how each round and the game ended, from
// the server's result.

/**
 * @param {import('../../screens/results.js').GameResult} res
 * @param {(key: string, params?: Record<string, unknown>) => string} t this game's strings
 * @returns {import('../../screens/results.js').ScorePad}
 */
export function scorePad(res, t) {
  /** @type {import('../../screens/results.js').ScorePad} */
  const pad = { head: [], cols: [], notes: [] };
  for (const r of res.rounds) {
    pad.head.push(t('pad.round', { round: r.round }));
    pad.cols.push((p) => `${r.scores[p.id]}${r.stars.includes(p.id) ? ' ☆' : ''}`);
    pad.notes.push(t(`pad.end_${r.end === 'marker20' ? 'marker20' : 'max'}`, { round: r.round, last: r.last }));
  }
  if (res.details.ended_by) pad.notes.push(t(`pad.${res.details.ended_by}`));
  return pad;
}
